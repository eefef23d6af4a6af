"""The tokens of a server's model: from the server's tokenizer endpoint, or a local tokenizer, cached.

What it does: ``ServerTokens.pieces(text)`` splits a text into the model's
tokens (id and text of each), asking, in this order, a tokenizer function
given from Python, a local Hugging Face tokenizer named by ``tokenizer=``
(loaded lazily, on first use), or the server's ``/tokenize`` endpoint through
its dialect (every id checked to fit 32 bits: ``dialects.token_id``). Answers
are cached (the ``TOKEN_CACHE`` most recent texts), so counting the same
text again asks nothing; ``cached(text)`` looks only in the cache (for a
request that was stopped: no more calls to a server that may be stalling).

What it does not do: decide whether a server may go without a tokenizer
(``backend`` refuses one before a debate starts) or detokenize through the
server (``backend``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from debate_core.backends.base import CancelToken
from debate_core.backends.openai.dialects import Dialect, TokenPiece, token_id
from debate_core.backends.openai.transport import Transport
from debate_core.errors import BackendError

TOKEN_CACHE = 8192

#: a tokenizer given as a function (from Python): text -> [(token id, token text), ...] covering the text
TokenizerFunction = Callable[[str], Sequence[tuple[int, str]]]


class ServerTokens:
    """A server model's tokenizer, with a cache (thread-safe; see the module docstring)."""

    def __init__(
        self,
        http: Transport,
        dialect: Dialect,
        model: str,
        base_url: str,
        tokenizer: str | TokenizerFunction | None = None,
    ) -> None:
        self._http = http
        self._dialect = dialect
        self._model = model
        self._root = base_url.removesuffix("/v1")
        self.local_name = tokenizer if isinstance(tokenizer, str) else None
        self.function = tokenizer if callable(tokenizer) else None
        self._local: Any = None
        self._cache: OrderedDict[str, list[TokenPiece]] = OrderedDict()
        self._lock = threading.Lock()

    def cached(self, text: str) -> list[TokenPiece] | None:
        """The tokens of ``text`` if they were asked for before (no call)."""
        with self._lock:
            return self._cache.get(text)

    def pieces(self, text: str, cancel: CancelToken | None = None) -> list[TokenPiece]:
        """The tokens of ``text`` (``BackendError`` naming the tokenizer when its answer is not one)."""
        with self._lock:
            found = self._cache.get(text)
            if found is not None:
                self._cache.move_to_end(text)
                return found
        if self.function is not None or self.local_name:
            pieces = self._local_pieces(text)
        else:
            data = self._http.post(
                self._root + "/tokenize", self._dialect.tokenize_request(self._model, text), cancel=cancel
            )
            try:
                pieces = self._dialect.tokenize_answer(data)
            except BackendError as error:
                raise BackendError(f"POST {self._root}/tokenize: {error}") from error
        with self._lock:
            self._cache[text] = pieces
            while len(self._cache) > TOKEN_CACHE:
                self._cache.popitem(last=False)
        return pieces

    def local_decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids`` by the local Hugging Face tokenizer (loaded on first use)."""
        self._local_pieces("")
        return str(self._local.decode(list(ids)))

    def _local_pieces(self, text: str) -> list[TokenPiece]:
        if self.function is not None:
            try:
                return [TokenPiece(token_id(i), t) for i, t in self.function(text) if isinstance(t, str)]
            except BackendError as error:
                raise BackendError(f"the backend's tokenizer function: {error}") from error
        if self._local is None:
            from transformers import AutoTokenizer  # heavy: only when asked for

            self._local = AutoTokenizer.from_pretrained(self.local_name)
        encoded = self._local(text, add_special_tokens=False, return_offsets_mapping=True)
        return [
            TokenPiece(int(i), text[a:b])
            for i, (a, b) in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True)
        ]
