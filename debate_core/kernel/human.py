"""The thread-safe channel between a person in a seat and the debate.

What it does: the debate posts a ``HumanRequest`` (the request kind, the very
view a model would get, the ``FieldSpec``\\ s to fill in, and a short prompt
for the person) and waits, with an optional timeout, for the reply. The
person's side (a web page, a terminal loop, a test) reads ``pending()`` and
calls ``submit(request_id, values)``. Every submission is checked *at submit
time*: the values against the fields (``forms.validate_values``), then by the
request kind's own rule; anything refused raises ``HumanInputError`` with a
message meant for the person, and nothing reaches the debate. A reply to a
request the debate no longer waits for raises ``StaleRequestError``.

The channel also holds the person's **stance**: what they would do if asked
now (``set_stance(intent="interrupt", urgency=9, answer="B")``), set at any
time from the page's live controls. A live seat answers the request kinds
that have a standing answer (plans, yes/no decisions) from it at once, and
waits only for the person's words. The stance is checked where it enters,
as a submission is (``STANCE_FIELDS``): ``intent`` is one of ``INTENTS``,
``answer`` and ``point`` are text passed through ``debate_core.text.clean``
and bounded (a point must say something), and anything else is refused with
``HumanInputError``; only ``urgency`` is forgiving (anything but an integer
0-9 is dropped, so the request kind's default applies). So no value the
engine accepted from the live controls can stop the recorder.

What it does not do: decide fallbacks. On a timeout or a cancelled request the
seat (``seats.HumanSeat``) falls back as the request kind documents.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from debate_core.errors import HumanInputError, StaleRequestError
from debate_core.kernel.forms import FieldSpec, FormInvalid, validate_values

DEFAULT_MAX_HUMAN_CHARS = 2_000
INTENTS = ("listen", "interrupt", "raise")
MIN_URGENCY, MAX_URGENCY = 0, 9  # the live controls' urgency scale
MAX_POINT_CHARS = 1_000  # a point of information (the decision form's own limit)
STANCE_FIELDS = (
    FieldSpec("intent", "choice", "What you would do now", choices=INTENTS, required=False, noun="intent"),
    FieldSpec("urgency", "integer", "Urgency", minimum=MIN_URGENCY, maximum=MAX_URGENCY, required=False),
    FieldSpec("answer", "text", "Your answer", required=False, noun="answer"),  # bounded by the channel's limit
    FieldSpec("point", "text", "Your point", max_chars=MAX_POINT_CHARS, required=False, words=True, noun="point"),
)
_STANCE = {spec.name: spec for spec in STANCE_FIELDS}


def _urgency_or_none(value: Any) -> int | None:
    """An urgency of the live controls, or None for nonsense (ignored: the request kind's default applies)."""
    try:
        urgency = validate_values((_STANCE["urgency"],), {"urgency": value}, 0)["urgency"]
    except HumanInputError:
        return None
    return urgency if isinstance(urgency, int) else None  # blank text: no urgency


def _as_is(values: Mapping[str, Any]) -> Any:
    return dict(values)


@dataclass(frozen=True, slots=True)
class HumanRequest:
    """What the debate asks the person for; ``view`` is what they may see.

    ``description`` says what is asked in words a person reads (the form's own
    description: "the observer's analysis of the debaters' replies"), for the
    front ends' headings and their "sent" notes; ``kind`` is the form's name for
    programs.
    """

    request_id: int
    kind: str
    view: Any
    fields: tuple[FieldSpec, ...] = ()
    prompt: str = ""
    deadline: float | None = None
    build: Callable[[Mapping[str, Any]], Any] = field(default=_as_is, compare=False, repr=False)
    description: str = ""


class HumanChannel:
    """One open request at a time between the debate and one person."""

    def __init__(self, max_chars: int = DEFAULT_MAX_HUMAN_CHARS) -> None:
        self.max_chars = max_chars
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._open: HumanRequest | None = None
        self._reply: Any = None
        self._replied = False
        self._closed = False
        self._stance: dict[str, Any] = {}

    # -- debate side -----------------------------------------------------------
    def post(
        self,
        kind: str,
        view: Any,
        fields: tuple[FieldSpec, ...] = (),
        *,
        prompt: str = "",
        build: Callable[[Mapping[str, Any]], Any] = _as_is,
        timeout_s: float | None = None,
        description: str = "",
    ) -> HumanRequest:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._cond:
            request = HumanRequest(
                next(self._ids), str(kind), view, fields, prompt, deadline, build, description=str(description)
            )
            self._open, self._reply, self._replied = request, None, False
            self._cond.notify_all()
            return request

    def wait(self, request: HumanRequest) -> Any | None:
        """Block until the person replies (the built value), the deadline passes, or the channel closes."""
        with self._cond:
            while True:
                if self._open is not request:
                    return None
                if self._replied:
                    reply, self._open, self._reply, self._replied = self._reply, None, None, False
                    return reply
                if self._closed:
                    self._open = None
                    return None
                remaining = None if request.deadline is None else request.deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    self._open = None
                    return None
                self._cond.wait(remaining)

    def withdraw(self, request: HumanRequest | None = None) -> bool:
        """Stop waiting for ``request`` (None: whichever is open): its ``wait`` returns None now, a late reply to it
        is stale; later requests are posted as usual. Whether a request was withdrawn."""
        with self._cond:
            if self._open is None or (request is not None and self._open is not request) or self._replied:
                return False
            self._open, self._reply = None, None
            self._cond.notify_all()
            return True

    def close(self) -> None:
        """Stop waiting for good: open and future requests get no reply."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def stance(self) -> dict[str, Any]:
        """A copy of the person's standing stance (empty: they only listen)."""
        with self._cond:
            return dict(self._stance)

    # -- the person's side ---------------------------------------------------------
    def set_stance(self, **values: Any) -> dict[str, Any]:
        """Change what the person would do if asked now; returns the stance.

        Values None (and blank text) are removed; the rest are checked against
        ``STANCE_FIELDS`` before any is kept: refused values raise
        ``HumanInputError`` and change nothing; an urgency that is not an
        integer 0-9 is dropped.
        """
        accepted = self._checked_stance(values)
        with self._cond:
            for key, value in accepted.items():
                if value is None:
                    self._stance.pop(key, None)
                else:
                    self._stance[key] = value
            return dict(self._stance)

    def _checked_stance(self, values: Mapping[str, Any]) -> dict[str, Any]:
        unknown = [key for key in values if key not in _STANCE]
        if unknown:
            raise HumanInputError(f"the live controls have no {unknown[0]!r} (they set: {', '.join(_STANCE)})")
        given = {key: value for key, value in values.items() if value is not None}
        if "intent" in given and (not isinstance(given["intent"], str) or len(given["intent"]) > 40):
            raise HumanInputError(f"the intent must be one of {', '.join(INTENTS)}")
        urgency = given.pop("urgency", None)
        checked = validate_values(tuple(_STANCE[key] for key in given), given, self.max_chars)
        accepted: dict[str, Any] = {key: None for key in values}
        accepted.update({key: value or None for key, value in checked.items()})
        if urgency is not None:
            accepted["urgency"] = _urgency_or_none(urgency)
        return accepted

    def pending(self, timeout_s: float | None = 0.0) -> HumanRequest | None:
        """The open request, waiting up to ``timeout_s`` (None: forever) for one."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._cond:
            while self._open is None or self._replied:
                if self._closed:
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._open

    def submit(self, request_id: int, values: Mapping[str, Any]) -> Any:
        """Answer request ``request_id``; returns the value the debate will act on.

        Raises ``HumanInputError`` (with a message for the person) when the
        values are refused, ``StaleRequestError`` when the request is no
        longer open.
        """
        request = self._expect(request_id)
        accepted = validate_values(request.fields, values, self.max_chars)
        try:
            reply = request.build(accepted)
        except FormInvalid as error:
            raise HumanInputError(str(error)) from None
        with self._cond:
            if self._open is not request or self._replied:
                raise StaleRequestError("that request is no longer open; the debate has moved on")
            self._reply, self._replied = reply, True
            self._cond.notify_all()
        return reply

    def _expect(self, request_id: int) -> HumanRequest:
        with self._cond:
            request = self._open
        if request is None or request.request_id != request_id:
            raise StaleRequestError("that request is no longer open; the debate has moved on")
        return request
