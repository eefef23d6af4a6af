"""Multi-agent LLM debate that people can watch, join, interrupt and replay: the engine, as a pure library.

``Debate(config, backend).events()`` runs the configured protocol over the
kernel and yields typed, immutable events; nothing here prints, persists or
renders, and nothing here imports ``ui``, ``storage`` or ``console``. Heavy
libraries (spaCy, torch, transformers) load lazily inside the classes that
need them, so ``import debate_core`` is cheap.

Layout: ``kernel`` (the moves every protocol shares), ``protocols`` (one
package per protocol, found through a registry), ``backends`` (the model
seam), ``events`` (the contract with every consumer), ``config``.
"""

from debate_core.backends import (
    Backend,
    BackendRouter,
    Capability,
    Completion,
    GenerationRequest,
    Message,
    SamplingParams,
    ScriptedBackend,
    Signals,
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
from debate_core.debate import Debate
from debate_core.errors import (
    BackendError,
    BackendUnavailable,
    CapabilityError,
    ConfigError,
    DebateError,
    HumanInputError,
    StaleRequestError,
)
from debate_core.events.records import Action, ActionPlan
from debate_core.kernel import Form, HumanChannel, HumanRequest, HumanSeat, ModelSeat, Seat, Table
from debate_core.protocols import Protocol, ProtocolParams, RoleSpec, register
from debate_core.status import DebateStatus
from debate_core.version import __version__

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
    "BackendRouter",
    "BackendUnavailable",
    "Capability",
    "CapabilityError",
    "Completion",
    "Condition",
    "ConfigError",
    "Debate",
    "DebateConfig",
    "DebateError",
    "DebateStatus",
    "Form",
    "GenerationRequest",
    "HumanChannel",
    "HumanInputError",
    "HumanRequest",
    "HumanSeat",
    "Message",
    "ModelSeat",
    "Protocol",
    "ProtocolParams",
    "Question",
    "RoleSpec",
    "SamplingParams",
    "ScriptedBackend",
    "Seat",
    "SeatKind",
    "Signals",
    "StaleRequestError",
    "SuppliedInitialAnswer",
    "Table",
    "__version__",
    "register",
]
