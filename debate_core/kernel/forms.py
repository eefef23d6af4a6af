"""Request kinds as data: what a seat is asked, how a model is prompted, how a person answers.

What it does: a ``Form`` describes one kind of request (an initial answer, a
plan, an utterance, a yes/no decision, a vote, ...): how to render a view into
chat messages for a model, the JSON schema that may constrain its output, how
to parse the output (raising ``FormInvalid``), the documented fallback when it
is invalid or missing, the signals to measure, the token cap, and the
``FieldSpec``\\ s a person fills in instead. Because every request kind is a
``Form``, a person can take any seat in any protocol, and the web app and
terminal render the person's form from ``fields`` instead of knowing the kind.

``validate_values`` checks a person's values against the fields (type, range,
choices, length; text passes the one sanitising rule of ``debate_core.text``)
before the form builds its value, so a refused submission never reaches the
debate. ``FormResult`` is what a seat returns: the value acted on, where it
came from, whether it was valid, the raw output, the cost, and the backend's
completion with its signals; ``map(fn)`` / ``with_value(v)`` keep all of that
for a value derived from it (the text a protocol says of a structured reply).

What it does not do: call a backend or wait for a person (``seats`` do).
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from debate_core.backends.base import NO_SIGNALS, Completion, Message, Signals
from debate_core.config import DebateConfig
from debate_core.errors import HumanInputError
from debate_core.events.records import GenerationInfo, Source
from debate_core.text import clean

V = TypeVar("V")
T = TypeVar("T")
U = TypeVar("U")

FieldKind = Literal["choice", "integer", "text", "boolean"]
_LABEL_PUNCTUATION = "()[].:"


class FormInvalid(ValueError):
    """A reply does not fit its form; the message is recorded (or shown to the person)."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One thing a person fills in: a choice, an integer, a text or a yes/no.

    ``check`` replaces the generic check for this field (it gets the raw value
    and returns the accepted one, raising ``FormInvalid`` with a message for
    the person). ``noun`` names the field in messages; ``empty_message``
    replaces the generic one for a required text left empty; ``words`` refuses
    a text with no letter or digit (punctuation alone says nothing, and would
    never be disclosed). A text field
    without ``max_chars`` is bounded by the channel's limit on what a person
    may say.
    """

    name: str
    kind: FieldKind
    label: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    max_chars: int | None = None
    required: bool = True
    default: Any = None
    help: str = ""
    noun: str = ""
    empty_message: str = ""
    words: bool = False
    check: Callable[[Any], Any] | None = field(default=None, compare=False)

    @property
    def called(self) -> str:
        return self.noun or self.name


@dataclass(frozen=True, slots=True)
class FormResult(Generic[T]):
    """A seat's reply to one request: the value acted on and how it came about."""

    value: T
    source: Source
    valid: bool
    error: str | None = None
    note: str | None = None
    raw: str | None = None
    generation: GenerationInfo = field(default_factory=GenerationInfo)
    completion: Completion | None = None

    def map(self, fn: Callable[[T], U]) -> FormResult[U]:
        """The same reply (source, validity, error, note, raw output, cost, completion) acting on ``fn(value)``."""
        return self.with_value(fn(self.value))

    def with_value(self, value: U) -> FormResult[U]:
        """The same reply acting on ``value`` instead (what a protocol says of a structured reply, say).

        Every other field is carried, a field added later included.
        """
        carried: FormResult[Any] = self
        return dataclasses.replace(carried, value=value)

    def record(self) -> dict[str, Any]:
        """The fields an event or record keeps of a reply: source, valid, error, note, raw, generation."""
        return {
            "source": self.source,
            "valid": self.valid,
            "error": self.error,
            "note": self.note,
            "raw": self.raw,
            "generation": self.generation,
        }


def _no_schema(view: Any) -> Mapping[str, Any] | None:
    return None


def _no_prefix(view: Any) -> str:
    return ""


def _default_cap(config: DebateConfig) -> int:
    return config.max_new_tokens


@dataclass(frozen=True)
class Form(Generic[V, T]):
    """One request kind. ``V`` is the view a seat is given, ``T`` the value it returns.

    ``seed_salt`` keeps sampling seeds of different kinds apart (a distinct,
    reproducible seed per debate seed, agent, turn and kind); ``cacheable``
    lets a backend reuse the key/values of this kind's previous prompt from
    the same agent. ``from_stance``, when a kind has one, answers for a
    person from their standing stance (the intent, urgency and answer they
    set with the page's live controls) without waiting: plans and yes/no
    decisions have one; kinds that need a person's words do not.

    ``assistant_prefix`` (a continuation: the start of the model's own reply,
    for a backend that continues a partial reply) has a prompt-based
    counterpart, ``said_in_prompt(view, said)``: the request rendered with
    what was said placed in its prompt, its answer taken as what follows, for
    a backend that cannot (the streaming moves ask it; None: they add the
    kernel's generic wording, ``streaming.said_in_prompt``, to ``render``).
    """

    kind: str
    description: str
    render: Callable[[V], tuple[Message, ...]]
    parse: Callable[[str, V], tuple[T, str | None]]
    fallback: Callable[[V], T]
    fields: Callable[[V], tuple[FieldSpec, ...]]
    from_human: Callable[[Mapping[str, Any], V], T]
    human_raw: Callable[[T], str] = str
    describe: Callable[[V], str] = lambda view: ""
    schema: Callable[[V], Mapping[str, Any] | None] = _no_schema
    signals: Signals = NO_SIGNALS
    assistant_prefix: Callable[[V], str] = _no_prefix
    said_in_prompt: Callable[[V, str], tuple[Message, ...]] | None = None
    token_cap: Callable[[DebateConfig], int] = _default_cap
    from_stance: Callable[[Mapping[str, Any], V], T] | None = None
    seed_salt: int | None = None
    cacheable: bool = True
    template: str = ""

    @property
    def salt(self) -> int:
        if self.seed_salt is not None:
            return self.seed_salt
        return 3 + zlib.crc32(self.kind.encode()) % 7_907


# -- a person's values ---------------------------------------------------------------------------


def validate_values(fields: tuple[FieldSpec, ...], values: Mapping[str, Any], max_chars: int) -> dict[str, Any]:
    """The values a person submitted, checked field by field; raises ``HumanInputError``."""
    if not isinstance(values, Mapping):
        raise HumanInputError("a submission is a set of named values")
    known = {f.name for f in fields}
    unknown = [name for name in values if name not in known]
    if unknown:
        expected = ", ".join(f.name for f in fields) or "nothing"
        raise HumanInputError(f"this request has no field {unknown[0]!r} (it asks for: {expected})")
    accepted: dict[str, Any] = {}
    for spec in fields:
        try:
            accepted[spec.name] = _check(spec, values.get(spec.name), max_chars)
        except FormInvalid as error:
            raise HumanInputError(str(error)) from None
    return accepted


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _check(spec: FieldSpec, value: Any, max_chars: int) -> Any:
    if spec.check is not None:
        if isinstance(value, str):
            value = clean(value)
        return spec.check(value)
    if spec.kind == "text":
        return _check_text(spec, value, max_chars)
    if _blank(value):
        if spec.required:
            raise FormInvalid(f"choose the {spec.called} first")
        return spec.default
    if spec.kind == "integer":
        return _check_integer(spec, value)
    if spec.kind == "boolean":
        return _check_boolean(spec, value)
    return _check_choice(spec, value)


def _check_text(spec: FieldSpec, value: Any, max_chars: int) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise FormInvalid(f"the {spec.called} must be text, not {type(value).__name__}")
    text = clean(value).strip()
    limit = spec.max_chars if spec.max_chars is not None else max_chars
    if len(text) > limit:
        raise FormInvalid(f"the {spec.called} is {len(text):,} characters long; the limit is {limit:,}")
    if spec.required and not text:
        raise FormInvalid(spec.empty_message or f"the {spec.called} is empty")
    if spec.words and text and not any(ch.isalnum() for ch in text):
        raise FormInvalid(f"the {spec.called} has no letter or digit: there is nothing to say")
    return text


def _check_integer(spec: FieldSpec, value: Any) -> int:
    low = spec.minimum if spec.minimum is not None else "-inf"
    high = spec.maximum if spec.maximum is not None else "inf"
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not value.is_integer())
    ):
        raise FormInvalid(f"{spec.called} must be an integer {low}-{high}, got {value!r}")
    number = int(value)
    if (spec.minimum is not None and number < spec.minimum) or (spec.maximum is not None and number > spec.maximum):
        shown = number if abs(number) < 10**15 else "this large"  # thousands of digits cannot even be printed
        raise FormInvalid(f"{spec.called} {shown} is outside {low}-{high}")
    return number


_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0"}


def _check_boolean(spec: FieldSpec, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().casefold() in _YES | _NO:
        return value.strip().casefold() in _YES
    raise FormInvalid(f"{spec.called} must be yes or no, got {value!r}")


def _check_choice(spec: FieldSpec, value: Any) -> str:
    if not isinstance(value, str):
        raise FormInvalid(f"{spec.called} must be one of {', '.join(spec.choices)}, got {value!r}")
    wanted = clean(value).strip().strip(_LABEL_PUNCTUATION).strip().casefold()
    for choice in spec.choices:
        if choice.casefold() == wanted:
            return choice
    raise FormInvalid(f"{value!r} is not one of {', '.join(spec.choices)}")
