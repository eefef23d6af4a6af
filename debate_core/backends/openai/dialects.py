"""What differs between OpenAI-compatible servers, each as one small ``Dialect``.

What it does: a ``Dialect`` says how a server takes a JSON schema (the
standard ``response_format`` of type ``json_schema``, or llama.cpp's own
``grammar`` field with an llguidance grammar whose JSON has no free
whitespace: a tiny model given free whitespace can fill its whole token cap
with blank lines), how it continues a partial assistant message (vLLM's
``continue_final_message``; llama.cpp continues a final assistant message by
itself and repeats it in the answer), how to reach its tokenizer (``/tokenize``
and ``/detokenize``, whose request and answer shapes differ), how many
``top_logprobs`` it gives, and whether its log-probabilities are taken from
the raw distribution. ``detect(models_json)`` picks the dialect from the
``owned_by`` field of ``GET /v1/models`` (``llamacpp``, ``vllm``); anything
else gets ``generic`` (the OpenAI API itself and servers that copy it: no
continuation, no tokenizer endpoint). Tokenizer answers are checked where they
are read: a token id is a whole number below ``MAX_VOCAB`` (``token_id``), a
token's text is text, a vocabulary size is a positive whole number; anything
else is a ``BackendError``.

What it does not do: send anything (``transport``) or turn answers into
completions (``backend``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from debate_core.errors import BackendError

#: token ids and vocabulary sizes a server may report: what a 32-bit signed integer holds
MAX_VOCAB = 2**31 - 1


def token_id(value: Any) -> int:
    """A token id as a server gave it, checked: a whole number from 0 to ``MAX_VOCAB - 1`` (else ``BackendError``)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_VOCAB:
        raise BackendError(f"a token id is not a whole number from 0 to {MAX_VOCAB - 1:,}: {value!r:.40}")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise BackendError(f"{what} is a {type(value).__name__}, not text: {value!r:.80}")
    return value


@dataclass(frozen=True)
class TokenPiece:
    """One token of a text as the server's tokenizer cut it: its id (None when not given) and text."""

    id: int | None
    text: str


@dataclass(frozen=True)
class Dialect:
    name: str
    continuation: bool
    tokenizer: bool
    max_top_logprobs: int
    raw_logprobs: bool
    note: str
    #: the server returns the log-probabilities of given token ids (vLLM's ``logprob_token_ids``)
    exact_choices: bool = False

    def constrain(self, body: dict[str, Any], schema: Mapping[str, Any]) -> None:
        """Add the JSON schema to a chat request."""
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": dict(schema), "strict": True},
        }

    def continue_message(self, body: dict[str, Any], prefix: str) -> None:
        """Turn a chat request into the continuation of a partial assistant reply ``prefix``."""
        body["messages"] = [*body["messages"], {"role": "assistant", "content": prefix}]

    def strip_prefix(self, text: str, prefix: str) -> str:
        """What follows ``prefix`` in an answer to a continuation request."""
        return text

    def tokenize_request(self, model: str, text: str) -> dict[str, Any]:
        raise BackendError(f"the {self.name} dialect has no tokenizer endpoint")

    def tokenize_answer(self, data: Any) -> list[TokenPiece]:
        raise BackendError(f"the {self.name} dialect has no tokenizer endpoint")

    def detokenize_request(self, model: str, ids: Sequence[int]) -> dict[str, Any]:
        raise BackendError(f"the {self.name} dialect has no tokenizer endpoint")

    def detokenize_answer(self, data: Any) -> str:
        raise BackendError(f"the {self.name} dialect has no tokenizer endpoint")

    def vocab_size(self, model_entry: Mapping[str, Any]) -> int | None:
        return None


def _piece_text(piece: Any) -> str:
    """A token's text as llama.cpp gives it: a string, or a list of byte values for part of a character."""
    if isinstance(piece, str):
        return piece
    if isinstance(piece, list) and all(isinstance(b, int) and 0 <= b < 256 for b in piece):
        return bytes(piece).decode("utf-8", "replace")
    raise BackendError(f"the tokenizer gave a token piece of an unknown shape: {piece!r:.80}")


@dataclass(frozen=True)
class LlamaCpp(Dialect):
    """llama.cpp's server (``llama-server``, xllamacpp)."""

    def constrain(self, body: dict[str, Any], schema: Mapping[str, Any]) -> None:
        strict = {**dict(schema), "x-guidance": {"whitespace_flexible": False}}
        body["grammar"] = "%llguidance {}\nstart: %json " + json.dumps(strict)

    def strip_prefix(self, text: str, prefix: str) -> str:
        return text[len(prefix) :] if text.startswith(prefix) else text

    def tokenize_request(self, model: str, text: str) -> dict[str, Any]:
        return {"content": text, "with_pieces": True, "add_special": False, "parse_special": False}

    def tokenize_answer(self, data: Any) -> list[TokenPiece]:
        tokens = data.get("tokens") if isinstance(data, Mapping) else None
        if not isinstance(tokens, list) or not all(isinstance(t, Mapping) for t in tokens):
            raise BackendError(f"the /tokenize answer has an unknown shape: {str(data)[:200]}")
        return [TokenPiece(token_id(t.get("id")), _piece_text(t.get("piece"))) for t in tokens]

    def detokenize_request(self, model: str, ids: Sequence[int]) -> dict[str, Any]:
        return {"tokens": list(ids)}

    def detokenize_answer(self, data: Any) -> str:
        return _text(data.get("content") if isinstance(data, Mapping) else data, "the /detokenize answer")

    def vocab_size(self, model_entry: Mapping[str, Any]) -> int | None:
        meta = model_entry.get("meta")
        size = meta.get("n_vocab") if isinstance(meta, Mapping) else None
        if size is None:
            return None
        if isinstance(size, bool) or not isinstance(size, int) or not 0 < size <= MAX_VOCAB:
            raise BackendError(f"the model's n_vocab is not a vocabulary size: {size!r:.40}")
        return size


@dataclass(frozen=True)
class Vllm(Dialect):
    """vLLM's OpenAI-compatible server (0.32; the findings behind this are in docs/vllm-notes.md).

    Free JSON whitespace can be turned off only on the server
    (``--structured-outputs-config '{"backend":"xgrammar","disable_any_whitespace":true}'``); the
    per-request field is accepted and ignored. Log-probabilities are raw by default
    (``--logprobs-mode raw_logprobs``) but the grammar's mask is applied to them: tokens a schema
    forces have log-probability 0. Cached prompt tokens are reported only with
    ``--enable-prompt-tokens-details``.
    """

    def continue_message(self, body: dict[str, Any], prefix: str) -> None:
        super().continue_message(body, prefix)
        body["continue_final_message"] = True
        body["add_generation_prompt"] = False

    def strip_prefix(self, text: str, prefix: str) -> str:
        return text[len(prefix) :] if text.startswith(prefix) else text

    def tokenize_request(self, model: str, text: str) -> dict[str, Any]:
        return {"model": model, "prompt": text, "add_special_tokens": False, "return_token_strs": True}

    def tokenize_answer(self, data: Any) -> list[TokenPiece]:
        tokens = data.get("tokens") if isinstance(data, Mapping) else None
        if not isinstance(tokens, list):
            raise BackendError(f"the /tokenize answer has an unknown shape: {str(data)[:200]}")
        ids = [token_id(i) for i in tokens]
        strs = data.get("token_strs")
        if not isinstance(strs, list) or len(strs) != len(ids):
            raise BackendError("the /tokenize answer has no token texts (vLLM older than 0.7?)")
        return [TokenPiece(i, _byte_level(_text(s, "a token's text"))) for i, s in zip(ids, strs, strict=True)]

    def detokenize_request(self, model: str, ids: Sequence[int]) -> dict[str, Any]:
        return {"model": model, "tokens": list(ids)}

    def detokenize_answer(self, data: Any) -> str:
        return _text(data.get("prompt") if isinstance(data, Mapping) else data, "the /detokenize answer")


_BYTE_LEVEL: dict[str, int] = {}


def _byte_level(token: str) -> str:
    """A byte-level BPE token string (``Ġthe``) as the text it stands for (`` the``)."""
    if not _BYTE_LEVEL:
        printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
        extra = 0
        for b in range(256):
            if b in printable:
                _BYTE_LEVEL[chr(b)] = b
            else:
                _BYTE_LEVEL[chr(256 + extra)] = b
                extra += 1
    if any(ch not in _BYTE_LEVEL for ch in token):
        return token  # not byte-level (SentencePiece and the like): the string is the text
    return bytes(_BYTE_LEVEL[ch] for ch in token).decode("utf-8", "replace")


GENERIC = Dialect(
    "generic",
    continuation=False,
    tokenizer=False,
    max_top_logprobs=20,
    raw_logprobs=False,
    note="an OpenAI-compatible server of unknown kind: response_format for schemas, no continuation",
)
LLAMACPP = LlamaCpp(
    "llamacpp",
    continuation=True,
    tokenizer=True,
    max_top_logprobs=200,
    raw_logprobs=True,
    note="llama.cpp's server: llguidance grammar without free whitespace; log-probabilities of the raw logits",
)
VLLM = Vllm(
    "vllm",
    continuation=True,
    tokenizer=True,
    max_top_logprobs=20,
    raw_logprobs=True,
    note="vLLM: response_format json_schema; raw log-probabilities (its default --logprobs-mode), grammar-masked",
    exact_choices=True,
)
DIALECTS = {d.name: d for d in (GENERIC, LLAMACPP, VLLM)}


def detect(models: Any) -> Dialect:
    """The dialect of the server whose ``GET /v1/models`` answered ``models``."""
    entries = models.get("data") if isinstance(models, Mapping) else None
    owners = {str(e.get("owned_by", "")).lower() for e in entries or () if isinstance(e, Mapping)}
    if "llamacpp" in owners:
        return LLAMACPP
    if "vllm" in owners:
        return VLLM
    return GENERIC
