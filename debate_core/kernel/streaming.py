"""Speech generated as it is disclosed: the kernel's moves for an utterance whose generation streams.

What it does: ``StreamMoves`` is the part of ``Table`` (it extends the speech
moves, ``speech.FloorMoves``) for an utterance that is generated while it is
disclosed, so that a listener's objection can stop the generation where the
speaker has got to and what follows is generated with the objection in view:

* ``say_streaming(speaker, Streamed(form, view, chunker, step_tokens))``:
  the speaker's model seat is asked ``form`` in steps of ``step_tokens``
  tokens, each step continuing the form's own assistant prefix plus what the
  earlier steps generated (the backend's ``CONTINUATION``). After each step
  the chunker cuts the text generated so far: every unit but the last is
  ready (the last may still grow), and all of them once the generation ends
  (the model stopped, or the form's token cap is spent). The utterance
  (``UtteranceGenerated`` with ``streaming``) is said as soon as its first
  unit is ready; it holds the floor while it is ``open``.
* ``extend(floor)``: the next step(s) of an open floor's generation, until a
  unit is ready or the generation ends (``UtteranceExtended``, and
  ``UtteranceCompleted`` when nothing is left). ``disclose_rest`` calls it
  whenever an open floor has no unit queued, so a protocol discloses a
  streamed utterance exactly as any other, with its listeners' moves
  between units.
* ``resume_streaming(floor, streamed)`` and ``revise_streaming(floor,
  streamed, reason)``: the suspended (or, for a revision, running)
  generation is stopped, its undisclosed units and its unfinished text
  discarded (``UtteranceRevised`` records both), and a new generation
  continues from what was disclosed (``streamed.form``'s own assistant
  prefix: what the speaker said) with whatever the protocol put in its view.
  A model seat whose backend cannot continue a partial reply continues in
  its prompt instead: the form asked once, worded by its ``said_in_prompt``
  (what was said placed in the prompt; without one, ``said_in_prompt`` here
  adds a generic "You have said so far: ... Continue from exactly there" to
  its messages), and the answer taken as the rest, less a repetition of what
  was said at its start. ``UtteranceRevised.continued`` records which way
  (``prefill`` or ``prompt``; None for a person, who writes the rest).

``cut`` stops the generation too (``Interrupted.unfinished`` records the text
generated past the last unit); a suspended floor resumed with ``resume(floor)``
goes on generating where it stopped.

A speaker who cannot stream answers the form whole and the utterance is said
as ``say`` says it (not ``streaming``): a person (they write their words at
once), or a model seat whose backend cannot continue a partial reply (after a
resumption or a revision: continuing in its prompt, above).

Every step is an ordinary ``ask``: its tokens are counted in the debate's
costs, and each event records the steps it covers (``generation``: their
summed tokens and seconds; ``raw``: their text). So what was generated is the
texts of the utterance's ``UtteranceGenerated`` and ``UtteranceExtended``
events, what was said its ``UnitDisclosed`` events, and what was generated and
never said its ``discarded`` units and ``unfinished`` text; a step's tokens
past the point where a listener stopped it are generated and discarded, at
most ``step_tokens`` of them.

What it does not do: decide when to stop a generation or what the next one
sees (protocols do), or parse what was said (``Streamed.read`` is the
protocol's reading, recorded when a generation ends).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from debate_core.backends.base import Capability, Message
from debate_core.config import DebateConfig
from debate_core.events.codec import Event
from debate_core.events.records import GenerationInfo, Source
from debate_core.events.types import UtteranceExtended, UtteranceGenerated, UtteranceResumed, UtteranceRevised
from debate_core.kernel.chunkers import Chunker
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.seats import Seat
from debate_core.kernel.speech import MAX_UTTERANCE_CHARS, FloorMoves

_WORD = re.compile(r"\w+")
_EDGES = re.compile(r"^\W+|\W+$")
T = TypeVar("T")
SAID_SO_FAR = (
    'You have said so far:\n"{said}"\n\n'
    "Continue from exactly there: write only what comes next, without repeating what you have said."
)


@dataclass(frozen=True)
class Streamed:
    """How an utterance is generated as it is disclosed (see the module docstring).

    ``form`` is a request kind whose value is the utterance's text; its
    ``assistant_prefix`` (what the speaker has already said, for a
    continuation) starts every step, and its ``token_cap`` bounds the whole
    generation. ``chunker`` cuts the text into units; ``step_tokens`` is the
    most each step generates (1: it stops at the first token a unit is ready
    after). ``read``, given the utterance's whole text when the generation
    ends, says what the protocol reads of it (recorded as ``structured``).
    """

    form: Form[Any, str]
    view: Any
    chunker: Chunker
    step_tokens: int = 32
    nonce: int = 0
    read: Callable[[str], dict[str, Any] | None] | None = None

    def __post_init__(self) -> None:
        if self.step_tokens < 1:
            raise ValueError(f"a generation step needs at least 1 token, got {self.step_tokens}")


@dataclass
class Generation:
    """One generation in progress on an open floor: what it has generated and how far it has got."""

    spec: Streamed
    prefix: str  # the form's own assistant prefix (what was said before this generation)
    cap: int  # the most tokens it may generate
    text: str = ""  # generated so far (after ``prefix``)
    start: int = 0  # where in ``text`` the part not yet cut into ready units begins
    tokens: int = 0
    steps: int = 0
    unrecorded: str = ""  # generated since the utterance's last event
    unrecorded_raw: str = ""  # the same as the model wrote it (a continuation in the prompt may repeat what was said)
    replies: list[FormResult[str]] = field(default_factory=list)  # steps since the last event


def _verbatim(raw: str, view: Any) -> tuple[str, str | None]:
    return raw, None


def _nothing(view: Any) -> str:
    return ""


def said_in_prompt(messages: tuple[Message, ...], said: str) -> tuple[Message, ...]:
    """The kernel's generic wording of a continuation in the prompt: ``messages`` with what was ``said`` (and
    "continue from exactly there") at the end of the last user message, or as a user message of its own."""
    note = SAID_SO_FAR.format(said=said.strip())
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last is None or last != len(messages) - 1:
        return (*messages, Message("user", note))
    return (*messages[:last], Message("user", f"{messages[last].content.rstrip()}\n\n{note}"))


def prompted(form: Form[Any, Any], said: str) -> Form[Any, Any]:
    """``form`` asked of a backend that cannot continue ``said`` (its assistant prefix): ``said`` in the prompt
    (``form.said_in_prompt``, or the kernel's generic wording), no prefix, never cached; a reply the form
    refuses says nothing more (as an empty step does), its error recorded. With nothing said, the form as it
    is, less its prefix."""
    if not said.strip():
        return dataclasses.replace(form, assistant_prefix=_nothing)
    own = form.said_in_prompt
    render = form.render

    def messages(view: Any) -> tuple[Message, ...]:
        return own(view, said.strip()) if own is not None else said_in_prompt(render(view), said)

    return dataclasses.replace(form, render=messages, assistant_prefix=_nothing, fallback=_nothing, cacheable=False)


def after_said(text: str, said: str) -> str:
    """``text`` less ``said`` where a model asked to go on from ``said`` began by repeating it (spacing aside)."""
    words = said.split()
    if not words:
        return text
    edge = r"(?!\w)" if words[-1][-1].isalnum() else ""  # "second" is not repeated by "secondary"
    repeated = re.match(r"\s*" + r"\s+".join(map(re.escape, words)) + edge, text)
    return text[repeated.end() :].lstrip() if repeated is not None else text


def open_start(text: str, units: tuple[str, ...]) -> int:
    """Where the last of ``units`` (pieces of ``text``, in order, as a chunker tidies them) begins, whitespace
    before it included: what follows the units before it."""
    cursor, start = 0, 0
    for unit in units:
        words = unit.split()
        candidates = (unit, _EDGES.sub("", unit), words[0] if words else "", *_WORD.findall(unit)[:1])
        for candidate in candidates:
            found = text.find(candidate, cursor) if candidate else -1
            if found >= 0:
                start, cursor = found, found + len(candidate)
                break
    while start > 0 and text[start - 1].isspace():
        start -= 1
    return start


def merged(replies: list[FormResult[str]]) -> GenerationInfo:
    """The generation info of several steps: tokens and seconds summed, the first prompt, every retry."""
    infos = [reply.generation for reply in replies]
    if not infos:
        return GenerationInfo()
    return GenerationInfo(
        prompt_tokens=sum(i.prompt_tokens for i in infos),
        cached_tokens=sum(i.cached_tokens for i in infos),
        completion_tokens=sum(i.completion_tokens for i in infos),
        latency_s=round(sum(i.latency_s for i in infos), 6),
        prompt=infos[0].prompt,
        retries=tuple(r for i in infos for r in i.retries),
    )


class StreamMoves(FloorMoves):
    """The streaming moves of the table (see the module docstring)."""

    config: DebateConfig
    seats: dict[str, Seat]
    roles: dict[str, str]

    def ask(
        self, form: Form[Any, T], who: Sequence[str], view: Callable[[str], Any], *, nonce: int = 0
    ) -> Mapping[str, FormResult[T]]:
        raise NotImplementedError  # provided by Table

    def _model_speaks(self, speaker: str) -> bool:
        seat = self.seats.get(speaker)
        return seat is not None and seat.acts_as_model()

    def can_stream(self, speaker: str) -> bool:
        """Whether ``speaker``'s seat generates in steps: a model seat whose backend continues a partial reply."""
        if not self._model_speaks(speaker):
            return False
        return Capability.CONTINUATION in self.router.backend_for(speaker, self.roles.get(speaker)).capabilities

    def continues_by(self, speaker: str) -> Literal["prefill", "prompt"] | None:
        """How ``speaker``'s seat goes on from what it said: ``prefill`` (its own partial reply continued),
        ``prompt`` (a model whose backend cannot: what was said placed in the prompt), None (a person)."""
        if self.can_stream(speaker):
            return "prefill"
        return "prompt" if self._model_speaks(speaker) else None

    def say_streaming(
        self,
        speaker: str,
        streamed: Streamed,
        *,
        interrupting: str | None = None,
        kind: str = "speech",
        role: str | None = None,
    ) -> Generator[Event, None, Floor | None]:
        """Generate ``speaker``'s utterance until its first unit is ready and say it; the floor it holds."""
        if not self.can_stream(speaker):
            view = streamed.view
            reply: FormResult[str] = self.ask(streamed.form, [speaker], lambda _: view, nonce=streamed.nonce)[speaker]
            text = reply.value or ""
            read = streamed.read(text) if streamed.read is not None and text else None
            chunker = streamed.chunker
            yield self.say(
                speaker, reply, chunker=chunker, interrupting=interrupting, kind=kind, role=role, structured=read
            )
            return self._holding()
        self._utterance_ids += 1
        floor = Floor(speaker, self._utterance_ids, (), interrupting, kind=kind, open=True)
        self._start(floor, streamed)
        units, ended = self._generate(floor)
        generation: Generation = floor.generation
        replies, text = generation.replies, generation.unrecorded
        floor.units, floor.open = units, not ended
        if ended:
            floor.generation = None
        error = None
        if not units:
            error = next((r.error for r in replies if r.error), None) or (
                "the utterance has nothing to disclose (no letter or digit)" if text else "nothing was generated"
            )
        else:
            self.count("utterances")
            self.floor = floor
        event: UtteranceGenerated = self.emit(
            UtteranceGenerated,
            speaker=speaker,
            utterance_id=floor.utterance_id,
            text=text,
            units=units,
            interrupting=interrupting,
            source=replies[0].source if replies else Source.MODEL,
            error=error,
            raw=text,
            generation=merged(replies),
            role=role,
            kind=kind,
            structured=self._read(generation) if ended and units else None,
            streaming=not ended and bool(units),
        )
        generation.unrecorded, generation.unrecorded_raw, generation.replies = "", "", []
        if not units:
            floor.open, floor.generation = False, None
        yield event
        return self._holding()

    def extend(self, floor: Floor) -> Generator[Event, None, None]:
        """Generate more of an open floor's utterance, until a unit is ready or the generation ends."""
        if not floor.open or floor.suspended or floor.generation is None:
            raise RuntimeError("extend() needs an open floor whose generation is running")
        generation: Generation = floor.generation
        units, ended = self._generate(floor)
        floor.units = floor.units + units
        if ended:
            floor.open, floor.generation = False, None
        yield self.emit(
            UtteranceExtended,
            speaker=floor.speaker,
            utterance_id=floor.utterance_id,
            text=generation.unrecorded,
            units=units,
            ended=ended,
            structured=self._read(generation) if ended else None,
            source=generation.replies[0].source if generation.replies else Source.MODEL,
            valid=all(r.valid for r in generation.replies),
            error=next((r.error for r in generation.replies if r.error), None),
            raw=generation.unrecorded_raw,
            generation=merged(generation.replies),
        )
        generation.unrecorded, generation.unrecorded_raw, generation.replies = "", "", []
        if floor.done:
            yield self._complete(floor)

    def resume_streaming(
        self, floor: Floor, streamed: Streamed, *, reason: str = "regenerated on resuming"
    ) -> list[UtteranceResumed | UtteranceRevised]:
        """A suspended utterance goes on with a new generation: its undisclosed rest discarded, ``streamed`` on."""
        if not floor.suspended:
            raise RuntimeError("resume_streaming() needs a suspended floor")
        floor.suspended = False
        self.floor = floor
        self.count("resumptions")
        resumed = self.emit(UtteranceResumed, speaker=floor.speaker, utterance_id=floor.utterance_id, mode="regenerate")
        return [resumed, self.revise_streaming(floor, streamed, reason=reason)]

    def revise_streaming(self, floor: Floor, streamed: Streamed, *, reason: str) -> UtteranceRevised:
        """Replace the undisclosed rest of ``floor`` (and its generation) by a new generation, ``streamed``."""
        discarded, unfinished = floor.remaining, floor.pending
        floor.units = floor.units[: floor.disclosed]
        floor.pending = ""
        self.count("revisions")
        self._start(floor, streamed)
        floor.open = True
        return self.emit(  # type: ignore[no-any-return]
            UtteranceRevised,
            speaker=floor.speaker,
            utterance_id=floor.utterance_id,
            discarded=discarded,
            units=(),
            reason=reason,
            unfinished=unfinished,
            streaming=True,
            continued=self.continues_by(floor.speaker),
            source=Source.MODEL if self._model_speaks(floor.speaker) else Source.HUMAN,
        )

    # -- the generation ------------------------------------------------------------------------------------
    def _holding(self) -> Floor | None:
        return self.floor if self.floor is not None and self.floor.held else None

    def _start(self, floor: Floor, streamed: Streamed) -> None:
        form = streamed.form
        floor.generation = Generation(streamed, form.assistant_prefix(streamed.view), form.token_cap(self.config))

    @staticmethod
    def _read(generation: Generation) -> dict[str, Any] | None:
        """The protocol's reading of the utterance as its ended generation leaves it: the prefix it continued
        (what was said before it) and all it generated."""
        read = generation.spec.read
        return read(generation.prefix + generation.text) if read is not None else None

    def _generate(self, floor: Floor) -> tuple[tuple[str, ...], bool]:
        """Steps of ``floor``'s generation until a unit is ready or it ends: (the units now ready, ended)."""
        generation: Generation = floor.generation
        while True:
            if not self.can_stream(floor.speaker):  # a person (or a backend that cannot continue) resumes whole
                ended = self._whole(floor, generation)
            else:
                ended = self._step(floor, generation)
            units = self._ready(generation, ended)
            floor.pending = generation.text[generation.start :]
            if units or ended:
                if ended:
                    floor.pending = ""
                return units, ended

    def _whole(self, floor: Floor, generation: Generation) -> bool:
        """The whole (rest of the) utterance in one answer: a person's, or a model's whose backend cannot continue
        a partial reply, which then goes on from what was said (``generation.prefix``) in its prompt."""
        spec = generation.spec
        view = spec.view
        in_prompt = self.continues_by(floor.speaker) == "prompt"
        said = generation.prefix if in_prompt else ""
        form = prompted(spec.form, said) if in_prompt else spec.form
        reply: FormResult[str] = self.ask(form, [floor.speaker], lambda _: view, nonce=spec.nonce)[floor.speaker]
        text = after_said(reply.value or "", said) if said.strip() and reply.valid else reply.value or ""
        generation.text += text
        generation.unrecorded += text
        generation.unrecorded_raw += reply.raw if reply.raw is not None else text
        generation.replies.append(reply)
        return True

    def _step(self, floor: Floor, generation: Generation) -> bool:
        """One step of ``generation``: its text appended; whether the generation has ended."""
        spec = generation.spec
        budget = min(spec.step_tokens, max(1, generation.cap - generation.tokens))
        prefix = generation.prefix + generation.text
        form: Form[Any, str] = dataclasses.replace(
            spec.form,
            parse=_verbatim,
            fallback=_nothing,
            assistant_prefix=lambda view: prefix,
            token_cap=lambda config: budget,
            schema=lambda view: None,
        )
        view, nonce = spec.view, spec.nonce + generation.steps
        reply: FormResult[str] = self.ask(form, [floor.speaker], lambda _: view, nonce=nonce)[floor.speaker]
        piece = reply.value or ""
        generation.steps += 1
        generation.text += piece
        generation.unrecorded += piece
        generation.unrecorded_raw += piece
        generation.replies.append(reply)
        completion = reply.completion
        generation.tokens += max(1, completion.completion_tokens if completion is not None else 0)
        stopped = completion is None or completion.finish_reason != "length"
        return (
            stopped
            or not piece
            or generation.tokens >= generation.cap
            or len(generation.prefix) + len(generation.text) >= MAX_UTTERANCE_CHARS
        )

    @staticmethod
    def _ready(generation: Generation, ended: bool) -> tuple[str, ...]:
        """The units of the generated text not yet cut that are ready: all but the last, or all once it ended."""
        rest = generation.text[generation.start :]
        units = generation.spec.chunker.split(rest) if rest.strip() else ()
        if ended:
            generation.start = len(generation.text)
            return units
        if len(units) < 2:
            return ()
        generation.start += open_start(rest, units)
        return units[:-1]
