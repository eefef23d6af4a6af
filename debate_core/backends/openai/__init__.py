"""OpenAI-compatible servers as backends: ``OpenAIBackend`` (any server) and ``LlamaCppBackend`` (a local GGUF).

What it does: re-exports the two backends; ``backends.factory`` builds them
for ``--backend openai`` and ``--backend llamacpp``. Nothing heavy is imported
here: httpx is light, xllamacpp is imported only in the server's own process.

What it does not do: anything at import time.
"""

from debate_core.backends.openai.backend import OpenAIBackend, api_root
from debate_core.backends.openai.llamacpp import LlamaCppBackend, LlamaCppServer

__all__ = ["LlamaCppBackend", "LlamaCppServer", "OpenAIBackend", "api_root"]
