"""The conformance checks every registered protocol passes, run on the scripted backend with no test written.

What it does: ``case_ids()`` names one case per registered protocol and
variant (``"parliament/british"``), read from the registry when called, so a
protocol registered by a plug-in or ``register(cls)`` gets its cases too.
``case_for(case_id, params)`` builds the case: agents for the variant's roles
(the minimum of each role; three agents for a protocol without roles) and,
when the protocol refuses to seat models only (a variant that needs a person,
such as HandRaiser's ``human``), the seat a person must take, found by trying
each seat a person may take; the protocol's refusal is kept as ``refusal``.
A variant that cannot start at all without parameters of its own (a trained
classifier's file) is a ``ConformanceError`` naming the protocol's message
until the caller gives them. The checks:

* ``check_demo``: the protocol's scripted demo (``Protocol.demo_responder``,
  every model a variant seats in a role served by the demo too) runs to an
  end other than stopped or failed, within ``MAX_EVENTS`` events; the stream begins with one
  ``debate_started`` and ends with one ``debate_ended``, numbers its events
  0..n-1 with turns that never go back, passes the import checker
  (``protocols.consistency.check_stream``) and the codec round trip
  (``check_codec``: every event to JSON and back, identical), and no scripted
  reply was recorded as unusable;
* ``check_folds(events, folds)``: each ``EventFold`` handles or ignores every
  event type and consumes the stream without an error;
* ``check_people``: a person (``people.AutoPerson``, filling forms from their
  fields only) takes each seat a person may take in turn and fills every
  request; the debate ends as the demo does and its stream is possible;
* ``check_forms(run)``: every form a model was asked in a run, in the very
  situation it was asked (its view), a person's values fill too, so a person
  could have answered anything a model was asked.

Every failure is a ``ConformanceError`` (an ``AssertionError``) naming the
case and the rule.

What it does not do: import a front end, storage or the study harness (the
project's ``tests/conformance`` adds the checks that need them: the store
round trip, replay against live, the terminal, the report), use a model, or
fix anything it finds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from debate_core.backends.base import Backend
from debate_core.backends.router import BackendRouter
from debate_core.backends.scripted import ScriptedBackend
from debate_core.config import AgentSpec, DebateConfig, Question, SeatKind
from debate_core.debate import Debate
from debate_core.errors import ConfigError, ImpossibleEvent
from debate_core.events.codec import Event, event_from_dict, event_to_dict
from debate_core.events.fold import EventFold
from debate_core.events.records import EndReason
from debate_core.events.types import DebateEnded, DebateStarted
from debate_core.kernel.forms import Form
from debate_core.kernel.human import HumanChannel
from debate_core.kernel.seats import HumanSeat, ModelSeat, Seat, model_seat
from debate_core.kernel.shared_seat import HandOverSeat
from debate_core.protocols.base import Protocol
from debate_core.protocols.consistency import check_stream
from debate_core.protocols.registry import available, protocol_class
from debate_core.testing.people import AutoPerson, fill_form

QUESTION = Question(
    text="Which option names the second letter of the Greek alphabet?",
    options=("Alpha", "Beta", "Gamma", "Delta"),
    answer="B",
)
NAMES = ("Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou")
FAILED_ENDS = (EndReason.STOPPED, EndReason.ERROR)
MAX_EVENTS = 5_000  # a scripted demo ends long before this (the built-ins: at most a few hundred events)


class ConformanceError(AssertionError):
    """A protocol breaks a rule every protocol keeps; the message names the case and the rule."""


def case_ids(protocols: Mapping[str, type[Protocol]] | None = None) -> list[str]:
    """``"protocol/variant"`` for every variant of every registered protocol (or of those given)."""
    found = available() if protocols is None else protocols
    return [f"{name}/{variant}" for name, cls in sorted(found.items()) for variant in cls.variants]


@dataclass(frozen=True)
class Case:
    """One protocol variant set up to run on its scripted demo."""

    protocol: type[Protocol]
    variant: str
    params: Mapping[str, Any]
    agents: tuple[AgentSpec, ...]
    people: tuple[str, ...] = ()  # agents a person must take for the variant to start
    refusal: str | None = None  # the protocol's refusal of a table of models only (why ``people``)

    @property
    def id(self) -> str:
        return f"{self.protocol.name}/{self.variant}"

    def config(self, people: Iterable[str] = ()) -> DebateConfig:
        """The case's configuration, with a person in the seats named in ``people``."""
        humans = set(people)
        agents = tuple(
            agent.model_copy(update={"seat": SeatKind.HUMAN}) if agent.name in humans else agent
            for agent in self.agents
        )
        return DebateConfig(
            question=QUESTION,
            agents=agents,
            protocol=self.protocol.name,
            variant=self.variant,
            params=dict(self.params),
        )


def agents_for(cls: type[Protocol], variant: str, params: Mapping[str, Any]) -> tuple[AgentSpec, ...]:
    """The fewest agents the variant's roles take (each role's minimum, at least ``min_agents`` in all)."""
    instance = cls(variant, cls.Params.model_validate(dict(params)))
    specs = instance.role_specs()
    if not specs:
        return tuple(AgentSpec(name=name) for name in NAMES[: max(instance.min_agents, 3)])
    roles = [spec.name for spec in specs for _ in range(spec.minimum)]
    open_ = [spec for spec in specs if spec.maximum is None or spec.maximum > spec.minimum]
    while len(roles) < instance.min_agents and open_:
        spec = open_[0]
        roles.append(spec.name)
        if spec.maximum is not None and roles.count(spec.name) >= spec.maximum:
            open_.pop(0)
    if len(roles) > len(NAMES):
        raise ConformanceError(f"{cls.name}/{variant} needs {len(roles)} agents; the checks seat {len(NAMES)}")
    return tuple(AgentSpec(name=name, role=role) for name, role in zip(NAMES, roles, strict=False))


def people_seats(case: Case) -> tuple[str, ...]:
    """The seats a person may take, one per role (every seat of a protocol without roles)."""
    instance = case.protocol(case.variant, case.protocol.Params.model_validate(dict(case.params)))
    specs = {spec.name: spec for spec in instance.role_specs()}
    if not specs:
        return tuple(agent.name for agent in case.agents)
    firsts = {agent.role: agent.name for agent in reversed(case.agents)}
    return tuple(firsts[name] for name, spec in specs.items() if spec.human_ok and name in firsts)


def case_for(case_id: str, params: Mapping[str, Any] | None = None) -> Case:
    """The case ``"protocol/variant"`` with ``params``; the seat a person must take, if the variant needs one."""
    name, _, variant = case_id.partition("/")
    cls = protocol_class(name)
    variant = variant or cls.default_variant()
    if variant not in cls.variants:
        raise ConformanceError(f"{case_id}: {name} has no variant {variant!r}")
    given = dict(params or {})
    case = Case(cls, variant, given, agents_for(cls, variant, given))
    try:
        _start(case, ())
        return case
    except ConfigError as error:
        refusal = str(error)
    for seat in people_seats(case):
        try:
            _start(case, (seat,))
        except ConfigError:
            continue
        return Case(cls, variant, given, case.agents, (seat,), refusal)
    raise ConformanceError(
        f"{case_id}: its scripted demo cannot start: {refusal} (give the parameters it needs: case_for(..., params))"
    )


def _start(case: Case, people: Sequence[str]) -> Debate:
    """The debate set up (nothing runs); ``ConfigError`` when the protocol refuses it."""
    config = case.config(people)
    seats: dict[str, Seat] = {name: HumanSeat(name, HumanChannel()) for name in people}
    return Debate(config, _backend(case, config)[0], seats=seats)


def _backend(case: Case, config: DebateConfig) -> tuple[Backend | BackendRouter, list[ScriptedBackend]]:
    """The demo's scripted backend, with a scripted backend of its own for each model the variant seats."""
    responder = case.protocol.demo_responder(config)
    if responder is None:
        raise ConformanceError(f"{case.id}: the protocol has no scripted demo (Protocol.demo_responder)")
    default = ScriptedBackend(responder, model_id="scripted-demo")
    instance = case.protocol(case.variant, case.protocol.Params.model_validate(dict(case.params)))
    seated = {role: ScriptedBackend(responder, model_id=model) for role, model in instance.seat_models().items()}
    if not seated:
        return default, [default]
    return BackendRouter(default, by_role=dict(seated)), [default, *seated.values()]


@dataclass
class DemoRun:
    """One run of a case: its events, what the models were asked and what the people filled in."""

    case: Case
    events: list[Event]
    asked: dict[str, set[str]]  # agent -> the request kinds their model seat was asked
    filled: dict[str, list[str]] = field(default_factory=dict)  # person -> the request kinds they filled
    refused: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # person -> (kind, why) not fillable
    views: list[tuple[str, Form[Any, Any], Any]] = field(default_factory=list)  # (agent, form, view) models were asked

    @property
    def ended(self) -> DebateEnded:
        end = self.events[-1] if self.events else None
        if not isinstance(end, DebateEnded):
            raise ConformanceError(f"{self.case.id}: the stream ends with {getattr(end, 'type', 'nothing')}")
        return end


def run_demo(
    case: Case,
    *,
    people: Iterable[str] | None = None,
    debate_id: str | None = None,
    on_event: Callable[[Event], None] | None = None,
    hand_over: Callable[[ModelSeat], Seat] | None = None,
) -> DemoRun:
    """Run ``case`` on its scripted demo, an automatic person in each seat of ``people`` (default: the case's).

    ``hand_over``: the seat each model seat is put in (a seat people come and go from, say)."""
    seated = tuple(dict.fromkeys(case.people if people is None else (*case.people, *people)))
    config = case.config(seated)
    backend, scripted = _backend(case, config)
    persons = {name: AutoPerson(HumanChannel()) for name in seated}
    seats: dict[str, Seat] = {name: HumanSeat(name, person.channel) for name, person in persons.items()}
    if hand_over is not None:
        for agent in config.agents:
            if agent.name not in seats and agent.seat is SeatKind.MODEL:
                seats[agent.name] = hand_over(model_seat(config, agent.name, debate_id or ""))
    debate = Debate(config, backend, seats=seats, debate_id=debate_id)
    views = _record_views(debate)
    events: list[Event] = []
    for person in persons.values():
        person.start()
    stream = debate.events()
    try:
        for event in stream:
            events.append(event)
            if on_event is not None:
                on_event(event)
            if len(events) == MAX_EVENTS:
                debate.stop()  # it ends at its next move, with reason stopped
            elif len(events) >= 2 * MAX_EVENTS:
                break  # a loop that makes no move the stop is checked at
    finally:
        close = getattr(stream, "close", None)  # a generator: ends the protocol's loop where it is
        if close is not None:
            close()
        for person in persons.values():
            person.stop()
    if len(events) >= MAX_EVENTS:
        raise ConformanceError(f"{case.id}: the scripted demo ran past {MAX_EVENTS:,} events; it never ends by itself")
    asked: dict[str, set[str]] = {}
    for backend_ in scripted:
        for request in backend_.requests:
            asked.setdefault(request.agent, set()).add(request.kind)
    return DemoRun(
        case,
        events,
        asked,
        {name: list(person.filled) for name, person in persons.items()},
        {name: list(person.refused) for name, person in persons.items() if person.refused},
        views,
    )


def _record_views(debate: Debate) -> list[tuple[str, Form[Any, Any], Any]]:
    """Wrap each model seat's ``ask`` so every (agent, form, view) it is asked is kept, in order."""
    views: list[tuple[str, Form[Any, Any], Any]] = []
    for name, seat in debate.seats.items():
        if not isinstance(seat, ModelSeat):
            continue

        def ask(form: Form[Any, Any], view: Any, *, _ask: Any = seat.ask, _name: str = name, **kwargs: Any) -> Any:
            views.append((_name, form, view))
            return _ask(form, view, **kwargs)

        setattr(seat, "ask", ask)  # noqa: B010 - this instance only, for this run
    return views


def check_codec(events: Sequence[Event]) -> None:
    """Every event survives JSON and back unchanged (what every store and export relies on)."""
    for event in events:
        try:
            again = event_from_dict(json.loads(json.dumps(event_to_dict(event))))
        except (TypeError, ValueError) as error:
            raise ConformanceError(f"event {event.seq} ({event.type}) does not survive JSON: {error}") from error
        if again != event:
            raise ConformanceError(f"event {event.seq} ({event.type}) changes through JSON: {event!r} -> {again!r}")


def _mistakes(value: Any, path: str = "") -> list[str]:
    """Where a model's reply inside an event was recorded as unusable (``valid`` false or an ``error``)."""
    found: list[str] = []
    if isinstance(value, dict):
        if value.get("source") == "model" and (value.get("valid") is False or value.get("error")):
            found.append(f"{path or 'the event'}: {value.get('error') or 'invalid'}")
        for key, inner in value.items():
            found += _mistakes(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _mistakes(inner, f"{path}[{index}]")
    return found


def check_run(run: DemoRun) -> None:
    """The rules every stream keeps (see the module docstring); ``ConformanceError`` naming the first broken."""
    events, where = run.events, run.case.id
    if not events or not isinstance(events[0], DebateStarted):
        raise ConformanceError(f"{where}: the stream does not begin with debate_started")
    end = run.ended
    if end.reason in FAILED_ENDS:
        raise ConformanceError(f"{where}: the demo ended {end.reason.value}")
    kinds = [event.type for event in events]
    if kinds.count("debate_started") != 1 or kinds.count("debate_ended") != 1:
        raise ConformanceError(f"{where}: a stream has one debate_started and one debate_ended")
    seqs = [event.seq for event in events]
    if seqs != list(range(len(events))):
        raise ConformanceError(f"{where}: events are numbered {seqs[:10]}..., not 0..{len(events) - 1}")
    back = next((e for e, before in zip(events[1:], events, strict=False) if e.turn < before.turn), None)
    if back is not None:
        raise ConformanceError(f"{where}: event {back.seq} ({back.type}) goes back to turn {back.turn}")
    for person, refused in run.refused.items():
        kind, why = refused[0]
        raise ConformanceError(f"{where}: a person in {person}'s seat cannot fill the {kind} form: {why}")
    try:
        check_stream(events)
    except ImpossibleEvent as error:
        raise ConformanceError(f"{where}: the import checker refuses its own stream: {error}") from error
    check_codec(events)
    mistakes = [f"event {e.seq} ({e.type}) {m}" for e in events for m in _mistakes(event_to_dict(e))]
    if mistakes:
        raise ConformanceError(f"{where}: the scripted demo's replies are recorded as unusable: {mistakes[0]}")


class _Rotating(HandOverSeat):
    """The hand-over check's seat: its model, an automatic person, nobody, in turn, request by request."""

    def __init__(self, model: ModelSeat) -> None:
        super().__init__(model.name, model)
        self.person = AutoPerson(HumanChannel())
        self.asked = 0

    def ask(self, form: Form[Any, Any], view: Any, **kwargs: Any) -> Any:
        switch = (self.to_model, lambda: self.to_person(self.person.channel), self.to_pass)[self.asked % 3]
        self.asked += 1
        switch()
        return super().ask(form, view, **kwargs)


def check_hand_over(case: Case) -> DemoRun:
    """Every model seat a seat people come and go from (``HandOverSeat``), switched at every request between
    its model, a person (filling forms from their fields) and nobody (the turn passes): the demo still runs to
    an end and its stream is possible (``check_run``)."""
    seats: list[_Rotating] = []

    def hand_over(model: ModelSeat) -> Seat:
        seat = _Rotating(model)
        seat.person.start()
        seats.append(seat)
        return seat

    try:
        run = run_demo(case, hand_over=hand_over)
    finally:
        for seat in seats:
            seat.person.stop()
    check_run(run)
    return run


def check_demo(case: Case) -> DemoRun:
    """Run the case's scripted demo and check its stream (``check_run``); returns the run."""
    run = run_demo(case)
    check_run(run)
    return run


def check_folds(events: Sequence[Event], folds: Iterable[EventFold]) -> None:
    """Each fold handles or ignores every event type and consumes ``events`` without an error."""
    for fold in folds:
        name = type(fold).__name__
        missing = type(fold).unhandled()
        if missing:
            raise ConformanceError(f"{name} neither handles nor ignores {', '.join(missing)}")
        for event in events:
            try:
                fold.dispatch(event)
            except Exception as error:
                raise ConformanceError(f"{name} fails on event {event.seq} ({event.type}): {error!r}") from error


def check_forms(run: DemoRun) -> set[str]:
    """Every form a model seat was asked in ``run``, a person's values fill in the same view; the kinds."""
    for number, (agent, form, view) in enumerate(run.views):
        _, why = fill_form(form, view, number)
        if why is not None:
            raise ConformanceError(
                f"{run.case.id}: a person in {agent}'s seat cannot fill the {form.kind} form its model was asked: {why}"
            )
    return {form.kind for _, form, _ in run.views}


def check_people(case: Case) -> dict[str, set[str]]:
    """A person in each seat a person may take, in turn, fills every request; ``{seat: kinds filled}``."""
    filled: dict[str, set[str]] = {}
    for seat in people_seats(case):
        run = run_demo(case, people=(seat,))
        check_run(run)
        filled[seat] = set(run.filled.get(seat, []))
    return filled
