"""ACE's rounds and the parallel baseline's, driven over the kernel's moves.

What it does: each loop drives one debate over a ``Circle`` (the run
state, ``state``: seats, last replies, views, publishing a round's replies)
and yields its events, ending with ``table.finish``:

* ``ace`` (and its ablations): round 1, every debater answers at once
  (``answer``). Each later round is **Analyze** (the observer compares the
  pair and may stop the debate; ``AnalysisMade``), **Compose** (each debater
  picks one act about itself and one about its peer from the library and
  writes its action; ``ActionComposed``), **Execute** (each debater carries
  out its action: answer, items, comments; by default from the paper's
  Execute prompt and the action alone, ``execute_input=rich`` adds the
  replies and comments). The debate stops when the observer says so
  (``observer_stop``), as the paper; at ``max_rounds`` when a cap is set
  (``rounds``); with none, at the safety net ``guard_rounds`` (``max_turns``,
  a stall guard's reason). Ablations: ``no_analyze`` skips Analyze (nothing
  stops it: it runs ``max_rounds`` or else ``rounds`` rounds; Compose sees
  only the debater's own reply, no auxiliary information; a rich Execute
  still shows the peer's reply); ``no_compose`` draws both acts at
  random from the library with the debate's seeded generator (recorded with
  source ``policy``); ``no_execute`` asks for the acts and the new answer in
  one step (``compose_execute``) and publishes that answer.
* **The final answer** (the paper is silent; the project's rule): the answer
  every debater gives when they agree (``consensus``); otherwise, with
  ``final=observer``, the observer's pick among the debaters' answers
  (``judge``); if the pick is unusable, or with ``final=majority``, the
  kernel's majority of the debaters with its seeded tie rule.
* ``parallel`` (Du et al.'s multi-agent debate, the baseline): the kernel's
  ``parallel_debate``, the one parallel debate that the baselines family
  and SID's MAD run too, on Du et al.'s prompts with ACE's format
  constraint (``par_prompts=du``; ``ace``: ACE's JSON prompt set): every
  debater answers (``answer``), then for ``rounds - 1`` rounds each sees
  the others' previous replies and revises (``revise``), all at once; the
  majority of the last round decides (ties: the seeded draw), ending
  ``rounds``.

What it does not do: keep the debate's run state (the ``Circle``,
``state``), parse or word anything (``forms``, ``prompts/``), or make a
kernel move of its own: asking, saying, disclosing, updating answers and
finishing are the ``Table``'s.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Mapping, Sequence

from debate_core.events.codec import Event
from debate_core.events.records import EndReason, Source
from debate_core.kernel.endings import consensus, majority, verdict
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.parallel_debate import parallel_debate
from debate_core.kernel.table import Replies
from protocols.ace.events import ActionComposed, AnalysisMade
from protocols.ace.forms import Analysis, Composition
from protocols.ace.state import Circle
from protocols.ace.views import AceView, Stance


def _first_round(circle: Circle, form: Form[AceView, Stance]) -> Iterator[Event]:
    table = circle.table
    yield table.phase("answer", 1)
    table.tick()
    replies = circle.ask(form, list(circle.debaters), circle.view)
    yield from circle.publish(replies, "answer")


def ace(circle: Circle) -> Iterator[Event]:
    """ACE and its ablations (see the module docstring)."""
    table, variant = circle.table, circle.variant
    yield from _first_round(circle, circle.forms.answer)
    reason = circle.limit_reason  # the cap's (``rounds``) or the safety net's (``max_turns``), unless stopped
    for round_ in range(2, circle.limit + 1):
        circle.round = round_
        analysis: Analysis | None = None
        if variant != "no_analyze":
            analysis = yield from _analyze(circle)
            if analysis.stop:
                reason = EndReason.OBSERVER_STOP
                break
        compositions = yield from _compose(circle, analysis)
        if variant == "no_execute":
            yield table.phase("answer", round_, "given while composing (no Execute step)")
            replies = {name: _stance_of(result) for name, result in compositions.items()}
            yield from circle.publish(replies, "compose_execute")
            continue
        yield from _execute(circle, compositions)
    yield from _finish(circle, reason)


def _execute(circle: Circle, compositions: dict[str, FormResult[Composition]]) -> Iterator[Event]:
    yield circle.table.phase("execute", circle.round)
    circle.table.tick()

    def execute_view(name: str) -> AceView:
        chosen = compositions[name].value
        return circle.view(name, acts=chosen.acts, action=chosen.action)

    yield from circle.publish(circle.ask(circle.forms.execute, list(circle.debaters), execute_view), "execute")


def _analyze(circle: Circle) -> Generator[Event, None, Analysis]:
    table = circle.table
    observer = circle.observer
    assert observer is not None
    yield table.phase("analyze", circle.round)
    table.tick()
    result = circle.ask(circle.forms.analyze, [observer], circle.view)[observer]
    analysis: Analysis = result.value
    yield table.emit(
        AnalysisMade,
        analyst=observer,
        round=circle.round,
        findings={"pairs": [analysis.findings.as_dict()]},
        stop=analysis.stop,
        reason=analysis.reason,
        **result.record(),
    )
    return analysis


def _compose(circle: Circle, analysis: Analysis | None) -> Generator[Event, None, dict[str, FormResult[Composition]]]:
    table, variant = circle.table, circle.variant
    yield table.phase("compose", circle.round)
    table.tick()
    debaters = list(circle.debaters)
    if variant == "no_compose":
        results = {name: _random_acts(circle) for name in debaters}
    else:
        findings = analysis.findings if analysis is not None else None

        def compose_view(name: str) -> AceView:
            if variant == "no_analyze":
                return circle.view(name, peers=())  # no auxiliary information at all
            return circle.view(name, findings=findings.seen_by(name) if findings is not None else None)

        form = circle.forms.compose_execute if variant == "no_execute" else circle.forms.compose
        results = dict(circle.ask(form, debaters, compose_view))
    for name in debaters:
        result = results[name]
        chosen: Composition = result.value
        yield table.emit(
            ActionComposed,
            agent=name,
            round=circle.round,
            acts=chosen.acts,
            action_text=chosen.action,
            **result.record(),
        )
    return results


def _random_acts(circle: Circle) -> FormResult[Composition]:
    """The ``no_compose`` ablation: one act of each orientation drawn with the debate's seeded generator."""
    rng, library = circle.table.rng, circle.library
    self_act = rng.choice(library.of("self"))
    peer_act = rng.choice(library.of("peer"))
    action = (
        f"{self_act.name.capitalize()}: {self_act.description} {peer_act.name.capitalize()}: {peer_act.description}"
    )
    return FormResult(
        Composition(self_act.name, peer_act.name, action), Source.POLICY, True, note="acts drawn at random"
    )


def _stance_of(result: FormResult[Composition]) -> FormResult[Stance]:
    stance = result.value.stance
    assert stance is not None
    return result.with_value(stance)


def _finish(circle: Circle, reason: EndReason) -> Iterator[Event]:
    table, observer = circle.table, circle.observer
    yield table.phase("decision", circle.round)
    answers = circle.debater_answers()
    decision = consensus(answers)
    if (
        decision is None
        and circle.params.final == "observer"
        and observer is not None
        and any(a.answer for a in answers)
    ):
        table.tick()
        result = circle.ask(circle.forms.pick, [observer], circle.view)[observer]
        picked = result.value
        why = "the debaters disagree at the end: the observer picks"
        if picked is None:
            why += "; no usable pick, so the debaters' majority decides"
        yield table.emit(
            AnalysisMade,
            analyst=observer,
            round=circle.round,
            findings={"pick": picked},
            stop=True,
            reason=why,
            **result.record(),
        )
        if picked is not None:
            yield table.update_answers({observer: picked}, "the observer's pick")
            decision = verdict(observer, picked, answers)
    yield table.finish(reason, decision or majority(answers, table.rng))


def parallel(circle: Circle) -> Iterator[Event]:
    """Du et al.'s multi-agent debate on the kernel's ``parallel_debate``, with the forms ``par_prompts`` chose:
    ``answer``, then ``revise`` after seeing the others' last replies, ``rounds`` times in all; the majority of the
    last round."""
    forms = circle.forms

    def ask(round_: int, who: Sequence[str]) -> Replies[Stance]:
        circle.round = round_
        return circle.ask(forms.answer if round_ == 1 else forms.revise, list(who), circle.view)

    def publish(round_: int, replies: Mapping[str, FormResult[Stance]]) -> Iterator[Event]:
        return circle.publish(replies, "answer" if round_ == 1 else "revise")

    yield from parallel_debate(circle.table, circle.debaters, circle.params.rounds, ask, publish)


__all__ = ["ace", "parallel"]
