"""Model backends behind one seam (see ``base``), and the scripted one for tests."""

from debate_core.backends.base import (
    Backend,
    Completion,
    GenerationRequest,
    Message,
    RequestKind,
    SamplingParams,
)
from debate_core.backends.scripted import ScriptedBackend, count_word_tokens

__all__ = [
    "Backend",
    "Completion",
    "GenerationRequest",
    "Message",
    "RequestKind",
    "SamplingParams",
    "ScriptedBackend",
    "count_word_tokens",
]
