"""Interruptible multi-agent LLM debate: the engine, as a pure library.

``Debate(config, backend).events()`` yields typed, immutable events; nothing
here prints, persists or renders, and nothing here imports ``ui`` or
``storage``. Heavy libraries (spaCy, torch, transformers) load lazily inside
the classes that need them, so ``import debate_core`` is cheap.
"""

__version__ = "0.1.0"

from debate_core.backends import (
    Backend,
    Completion,
    GenerationRequest,
    Message,
    RequestKind,
    SamplingParams,
    ScriptedBackend,
)
from debate_core.config import (
    DEFAULT_HISTORY_WINDOW,
    DEFAULT_MAX_NEW_TOKENS,
    DEFAULT_MAX_SILENT_TURNS,
    DEFAULT_MAX_TURNS,
    DEFAULT_SEED,
    DEFAULT_TEMPERATURE,
    DEFAULT_TOKEN_BUDGET,
    AgentSpec,
    Condition,
    DebateConfig,
    Question,
    SeatKind,
    SuppliedInitialAnswer,
)
from debate_core.engine import Debate
from debate_core.errors import (
    BackendError,
    ConfigError,
    DebateError,
    HumanInputError,
    StaleRequestError,
)
from debate_core.human import HumanChannel, HumanRequest, RequestType
from debate_core.plans import Action, ActionPlan
from debate_core.protocols import (
    DynamicOrder,
    FixedOrder,
    Interruptible,
    TurnProtocol,
    protocol_for,
)
from debate_core.seats import HumanSeat, ModelSeat, Seat

__all__ = [
    "DEFAULT_HISTORY_WINDOW",
    "DEFAULT_MAX_NEW_TOKENS",
    "DEFAULT_MAX_SILENT_TURNS",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_SEED",
    "DEFAULT_TEMPERATURE",
    "DEFAULT_TOKEN_BUDGET",
    "Action",
    "ActionPlan",
    "AgentSpec",
    "Backend",
    "BackendError",
    "Completion",
    "Condition",
    "ConfigError",
    "Debate",
    "DebateConfig",
    "DebateError",
    "DynamicOrder",
    "FixedOrder",
    "GenerationRequest",
    "HumanChannel",
    "HumanInputError",
    "HumanRequest",
    "HumanSeat",
    "Interruptible",
    "Message",
    "ModelSeat",
    "Question",
    "RequestKind",
    "RequestType",
    "SamplingParams",
    "ScriptedBackend",
    "Seat",
    "SeatKind",
    "StaleRequestError",
    "SuppliedInitialAnswer",
    "TurnProtocol",
    "__version__",
    "protocol_for",
]
