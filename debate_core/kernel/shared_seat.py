"""A seat people come and go from: its model, a person, or nobody (the turn passes), switched from outside.

What it does: ``HandOverSeat`` answers the kernel as whoever acts for it at
the moment it is asked, fixed for that request from ``ask`` to ``receive``:

* ``Acting.MODEL``: its ``ModelSeat`` (one generation request, parsed as a
  model's reply, ``Source.MODEL``);
* ``Acting.PERSON``: a live ``HumanSeat`` on the channel of the person who
  holds it now (``to_person(channel)``; their plans come from their stance,
  the debate waits only for their words; ``Source.HUMAN``);
* ``Acting.PASS``: nobody; the request kind's fallback is the answer
  (``form.fallback(view)``), recorded as valid with the note ``NOBODY``
  (``Source.POLICY``: a rule answered, not a model or a person).

``to_model()``, ``to_person(channel)`` and ``to_pass()`` switch it, from any
thread. A switch away from a person while the debate waits for their words
withdraws that request (``HumanChannel.withdraw``): the debate goes on at
once with the fallback, recorded with the note ``LEFT`` and the person as
its source, so a debate never hangs on someone who left. A request already
sent to the model is answered by the model even if a person sits down
before it returns; the person acts from the next request on.

While its model acts, the kernel streams the model's utterance in steps as
for a ``ModelSeat`` (``acts_as_model``); a person who sits down in the
middle of one is asked for its whole rest.

What it does not do: decide who acts (the front end's room does), or keep any person's
identity: the events say whether a person or a model answered, never who.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from debate_core.backends.base import CancelToken, Completion, GenerationRequest
from debate_core.config import SeatKind
from debate_core.events.records import GenerationInfo, Source
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.human import HumanChannel
from debate_core.kernel.seats import LET_PASS, HumanSeat, ModelSeat, Seat

NOBODY = "nobody held the seat: the turn passed"
LEFT = "the person left the seat while asked: the turn passed"


class Acting(StrEnum):
    """Who answers for a ``HandOverSeat`` now."""

    MODEL = "model"
    PERSON = "person"
    PASS = "pass"


class HandOverSeat(Seat):
    """A seat whose model, person or nobody answers, switched thread-safely from outside (see the module)."""

    def __init__(
        self,
        name: str,
        model: ModelSeat | None,
        *,
        kind: SeatKind = SeatKind.MODEL,
        acting: Acting = Acting.MODEL,
        channel: HumanChannel | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """``model``: the seat's model (None: it has none, and ``to_model`` lets the turns pass instead);
        ``kind``: the kind the debate's config gives the agent; ``timeout_s``: how long a person's words are
        waited for (None: as long as it takes, or until they leave)."""
        super().__init__(name)
        self.kind = kind
        self.model = model
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._acting = Acting.PASS
        self._person: HumanSeat | None = None
        self._cancelled = False
        # what the request in progress was asked as: (acting, the person's seat when a person)
        self._asked: tuple[Acting, HumanSeat | None] | None = None
        if acting is Acting.PERSON:
            if channel is None:
                raise ValueError("a seat a person acts for needs their channel")
            self.to_person(channel)
        elif acting is Acting.MODEL:
            self.to_model()

    @property
    def acting(self) -> Acting:
        with self._lock:
            return self._acting

    @property
    def channel(self) -> HumanChannel | None:
        """The channel of the person who holds the seat now (None while a model or nobody acts)."""
        with self._lock:
            return self._person.channel if self._person is not None else None

    # -- switching (any thread) ---------------------------------------------------------------------
    def to_model(self) -> None:
        """The model acts from the next request on (nobody, for a seat without a model)."""
        self._switch(Acting.MODEL if self.model is not None else Acting.PASS, None)

    def to_pass(self) -> None:
        """Nobody acts: every request is let pass until someone sits."""
        self._switch(Acting.PASS, None)

    def to_person(self, channel: HumanChannel) -> None:
        """The person on ``channel`` acts from the next request on (a live seat: plans from their stance)."""
        self._switch(Acting.PERSON, HumanSeat(self.name, channel, timeout_s=self.timeout_s, live=True))

    def _switch(self, acting: Acting, person: HumanSeat | None) -> None:
        with self._lock:
            before = self._person
            self._acting, self._person = acting, person
        if before is not None and before is not person:
            before.channel.withdraw()  # a request the person was asked falls back now: nobody waits for them

    def acts_as_model(self) -> bool:
        """Whether its model answers the next request (then the kernel streams its utterance in steps; a person
        who sits down mid-utterance is asked for the whole rest)."""
        with self._lock:
            return self._acting is Acting.MODEL and self.model is not None

    # -- the kernel's two steps ---------------------------------------------------------------------
    def ask(
        self, form: Form[Any, Any], view: Any, *, turn: int, nonce: int = 0, cancel: CancelToken | None = None
    ) -> list[GenerationRequest]:
        with self._lock:
            acting, person = self._acting, self._person
            if self._cancelled and acting is Acting.PERSON:
                acting, person = Acting.PASS, None
            self._asked = (acting, person)
        if acting is Acting.MODEL and self.model is not None:
            return self.model.ask(form, view, turn=turn, nonce=nonce, cancel=cancel)
        if acting is Acting.PERSON and person is not None:
            return person.ask(form, view, turn=turn, nonce=nonce, cancel=cancel)
        return []

    def receive(self, form: Form[Any, Any], view: Any, completions: Sequence[Completion]) -> FormResult[Any]:
        with self._lock:
            asked, self._asked = self._asked, None
        if asked is None:
            raise RuntimeError("receive called before ask")
        acting, person = asked
        if acting is Acting.MODEL and self.model is not None:
            return self.model.receive(form, view, completions)
        if acting is Acting.PERSON and person is not None:
            result = person.receive(form, view, completions)
            with self._lock:
                gone = self._person is not person
            if gone and result.note == LET_PASS and not self._cancelled:
                # the person left while asked: their request was withdrawn, so the fallback answered
                return FormResult(form.fallback(view), Source.HUMAN, True, None, LEFT, None, result.generation)
            return result
        return FormResult(form.fallback(view), Source.POLICY, True, None, NOBODY, None, GenerationInfo())

    def cancel(self) -> None:
        """The debate is being stopped: a person's wait ends, and nobody is asked again."""
        with self._lock:
            self._cancelled = True
            person = self._person
        if person is not None:
            person.cancel()
