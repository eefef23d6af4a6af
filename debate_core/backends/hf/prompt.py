"""What a model sees for a request: the chat-templated prompt, then the assistant prefix, as tokens.

What it does: ``render_prompt`` applies the tokenizer's chat template with the
generation prompt (or a plain ``role: content`` layout for a base model
without one); ``tokenize_prompt`` tokenizes that text and then, **on its
own**, the request's assistant prefix, keeping each token's character offsets
in the combined text (``TokenizedPrompt``). Tokenizing the prefix separately
makes a continuation's prompt exactly the original prompt followed by the
prefix's tokens, so greedy continuation of a model's own text reproduces the
rest of it and the cached key/values of the original prompt are reused. The
decoder and the attention query both use these same tokens.

What it does not do: run the model or import torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debate_core.backends.base import GenerationRequest


@dataclass(frozen=True)
class TokenizedPrompt:
    """``ids[i]`` covers ``text[offsets[i][0]:offsets[i][1]]``; the last ``prefix_tokens`` ids are the prefix."""

    text: str
    ids: list[int]
    offsets: list[tuple[int, int]]
    prefix_tokens: int = 0

    @property
    def prefix_ids(self) -> list[int]:
        return self.ids[len(self.ids) - self.prefix_tokens :]


def render_prompt(tokenizer: Any, request: GenerationRequest) -> str:
    """The prompt text for a request's messages (chat template and generation prompt applied)."""
    messages = [m.as_dict() for m in request.messages]
    if getattr(tokenizer, "chat_template", None):
        return str(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
    # a base model without a chat template
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\n\nassistant:"


def tokenize_prompt(tokenizer: Any, request: GenerationRequest) -> TokenizedPrompt:
    """The rendered prompt's tokens, then the assistant prefix's (tokenized on its own), with offsets."""
    text = render_prompt(tokenizer, request)
    ids: list[int] = []
    offsets: list[tuple[int, int]] = []
    prefix_tokens = 0
    for part, shift in ((text, 0), (request.assistant_prefix, len(text))):
        if part:
            encoded = tokenizer(part, add_special_tokens=False, return_offsets_mapping=True)
            ids.extend(int(i) for i in encoded["input_ids"])
            offsets.extend((int(s) + shift, int(e) + shift) for s, e in encoded["offset_mapping"])
            prefix_tokens = len(encoded["input_ids"]) if shift else 0
    return TokenizedPrompt(text + request.assistant_prefix, ids, offsets, prefix_tokens)
