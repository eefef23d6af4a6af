"""Model backends behind one seam (see ``base``): the scripted one, routing, coalescing, the factory.

The real local backend (``hf``, Hugging Face transformers) is imported only
when asked for, by ``factory.make_backend`` or directly.
"""

from debate_core.backends.base import (
    AttentionQuery,
    AttentionScores,
    Backend,
    CancelToken,
    Capability,
    Completion,
    GenerationRequest,
    Message,
    SamplingParams,
    Signals,
    TokenSpan,
)
from debate_core.backends.router import BackendRouter
from debate_core.backends.scripted import ScriptedBackend, ScriptedReply, count_word_tokens

__all__ = [
    "AttentionQuery",
    "AttentionScores",
    "Backend",
    "BackendRouter",
    "CancelToken",
    "Capability",
    "Completion",
    "GenerationRequest",
    "Message",
    "SamplingParams",
    "ScriptedBackend",
    "ScriptedReply",
    "Signals",
    "TokenSpan",
    "count_word_tokens",
]
