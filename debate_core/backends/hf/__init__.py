"""The Hugging Face transformers backend: any causal LM, every capability (see ``backend``).

Modules: ``backend`` (``TransformersBackend``), ``loading`` (``ModelSpec``,
``LoadedModel``, ``load_model``: device and dtype choice, a bounded LRU of
loaded models), ``decoding`` (the batch decoder), ``signals`` (token
statistics, choice probabilities), ``attention`` (attention scores between
marked spans), ``prefix_cache`` (key/value prefix reuse), ``prompt`` (a
tokenized prompt) and ``embedded`` (the embedded SmolLM2 model).

Importing this package is cheap: torch, transformers and xgrammar are imported
only when a model is loaded or used.
"""

from debate_core.backends.hf.backend import TransformersBackend
from debate_core.backends.hf.loading import LoadedModel, ModelSpec, load_model, unload_model

__all__ = ["LoadedModel", "ModelSpec", "TransformersBackend", "load_model", "unload_model"]
