"""The four variants' loops: British Parliament, American Congress, Socratic dialogue, and CoT.

What it does: each function drives one variant over a ``Hall`` (the run
state, ``state``) and yields its events, ending with ``table.finish``; the
debate's answer is always one role's (the prover's final line, or the
solver's), ``single`` in the kernel's terms.

* ``british``: the prover's opening is generated as it streams
  (``Table.say_streaming``, ``stream_tokens`` a step), cut by the character
  rule (``CharRuleChunker``: past ``max_chars``, or past ``min_chars`` at a
  sentence end) and disclosed one chunk per turn as soon as it is ready.
  Between chunks the critic decides privately (``poi_check``, on the chunk or
  on the prefix) whether to raise a point of information. A point suspends
  the speech (``cut(keep="suspend")``: its generation stops there), the
  prover replies in public in at most ``poi_reply_sentences`` sentences, and
  the speech resumes: with ``regenerate`` (the paper) a new generation goes
  on from what was said with the point and the reply in view (the ``resume``
  request, ``resume_streaming``), so nothing the prover had generated past
  the point is said; with ``continue`` (the code) the same generation goes
  on. ``poi_cap`` bounds the points per speech. Then the critic's closing
  rebuttal (it reads the speech, not the exchanges) and the prover's final
  answer, given the rebuttal.
* ``congress``: opening, the critic's critique with a verdict, ``rounds - 1``
  pairs of rebuttals, the final answer given the whole record.
* ``socratic``: ``streaming`` (the paper): the student's answer is generated
  and disclosed chunk by chunk; between chunks Socrates may ask a question
  without taking the floor (a non-blocking ``Intervention``), and the
  student's generation goes on from what it said with the question in view
  (``revise_streaming``), then the final answer. ``turns`` (the code):
  answer, then per round one question and a revision, then the final answer.
* ``cot``: one solver, reasoning and a ``Final Answer`` line.

A person in the prover's seat writes the speech whole; it is disclosed chunk
by chunk the same way, and after a point they are asked for the rest (blank:
as written). So does a model whose backend cannot continue a partial reply
(the plain OpenAI API): its speech is generated whole, and after a point or
a question the kernel asks it for the rest with what it said in the prompt
(the forms' ``said_in_prompt``).

What it does not do: parse or word anything (``forms``, ``prompts/``), keep
the debate's run state (the ``Hall``, ``state``: roles, record, views) or
keep kernel state (the ``Table`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.chunkers import CharRuleChunker, WholeMessage
from debate_core.kernel.endings import single
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import Form
from debate_core.kernel.policies import Decision, NeverPolicy, PromptedPolicy
from debate_core.kernel.streaming import Streamed
from protocols.parliament.forms import Speech, read_speech
from protocols.parliament.params import ParliamentParams
from protocols.parliament.state import Hall
from protocols.parliament.views import RoleView


def chunker_for_params(params: ParliamentParams) -> CharRuleChunker:
    return CharRuleChunker(params.max_chars, params.min_chars, params.enders)


def chunker_for(hall: Hall) -> CharRuleChunker:
    return chunker_for_params(hall.params)


def british(hall: Hall) -> Iterator[Event]:
    table, forms = hall.table, hall.forms
    critic = hall.critic
    assert critic is not None
    yield table.phase("opening")
    table.tick()
    speech = yield from _speech(hall, forms.streamed_opening, "opening", forms.poi_check, "point_of_information")
    yield table.phase("closing")
    table.tick()
    closing = hall.ask(forms.closing, critic, speech=speech)
    yield from hall.voice(critic, closing, kind="closing")
    yield from _final(hall, rebuttal=closing.value.text)


class _Heard:
    """What the prover's generations said, read when each ended: the last one names the speech's answer."""

    def __init__(self, hall: Hall, line: str) -> None:
        self.hall, self.line = hall, line
        self.last: Speech | None = None

    def streamed(self, form: Form[RoleView, str], view: RoleView, *, nonce: int = 0) -> Streamed:
        hall = self.hall

        def read(text: str) -> dict[str, Any] | None:
            self.last = read_speech(text, view, self.line)
            return hall.structured(self.last) or None

        return Streamed(form, view, chunker_for(hall), hall.params.stream_tokens, nonce=nonce, read=read)


def _speech(
    hall: Hall, form: Form[RoleView, str], kind: str, check: Form[RoleView, Decision], what: str
) -> Generator[Event, None, str]:
    """The prover's speech generated and disclosed chunk by chunk, the critic's checks between chunks; what was said."""
    table, prover = hall.table, hall.prover
    heard = _Heard(hall, "Proposed Answer" if what == "point_of_information" else "Provisional Answer")
    floor = yield from table.say_streaming(prover, heard.streamed(form, hall.view(prover)), kind=kind, role="prover")
    said = ""
    if floor is not None:
        yield from _streamed(hall, floor, check, what, heard)
        said = hall.said(floor.units, floor.disclosed)
        hall.transcript.append(f"{hall.title(prover)}: {said}")
    answer = heard.last.answer if heard.last is not None else None
    if answer is not None:
        yield table.update_answers({prover: answer}, cause=kind)
    return said


def _streamed(
    hall: Hall, floor: Floor, check: Form[RoleView, Decision], kind: str, heard: _Heard
) -> Generator[Event, None, None]:
    """Disclose ``floor`` chunk by chunk with the critic's checks between chunks."""
    table, params = hall.table, hall.params
    assert hall.critic is not None
    critic = hall.critic
    policy = PromptedPolicy(check)
    never = NeverPolicy()
    points = 0

    def listen(floor: Floor) -> Generator[Event, None, bool]:
        """The critic's check after a chunk (not after the last: nothing is left to interrupt)."""
        nonlocal points
        capped = params.poi_cap is not None and points >= params.poi_cap
        so_far = hall.said(floor.units, floor.disclosed)
        chunk = floor.units[floor.disclosed - 1]
        shown = {"speech": so_far} if params.critic_sees == "prefix" else {"chunk": chunk}
        decided = table.decide([critic], floor, never if capped else policy, _fixed(hall.view(critic, **shown)))
        yield decided[critic]
        if decided[critic].interrupt:
            points += 1
            point = decided[critic].text or ""
            if kind == "question":
                yield from _question(hall, floor, point, heard)
            else:
                yield from _point(hall, floor, point, heard)
        return False  # the speech goes on (a point suspends and resumes it)

    yield from table.disclose_rest(floor, one_per_turn=True, listen=listen)


def _fixed(view: RoleView) -> Callable[[str], RoleView]:
    return lambda agent: view


def _prepared(floor: Floor) -> str:
    """What the speaker had generated and not said: its queued units and the unfinished rest."""
    return " ".join((*floor.remaining, floor.pending.strip())).strip()


def _point(hall: Hall, floor: Floor, point: str, heard: _Heard) -> Generator[Event, None, None]:
    """A point of information: the speech (and its generation) suspended, the prover's public reply, the speech
    resumed: regenerated from what was said with the exchange in view (paper), or going on unchanged (code)."""
    table, forms, params = hall.table, hall.forms, hall.params
    prover, critic = hall.prover, hall.critic
    assert critic is not None
    so_far = hall.said(floor.units, floor.disclosed)
    prepared = _prepared(floor)
    yield table.intervene(critic, prover, "point_of_information", point, blocking=True, floor=floor)
    yield table.cut(critic, keep="suspend", floor=floor)
    hall.transcript.append(f"{hall.title(critic)} (point of information): {point}")
    table.tick()
    limit = params.poi_reply_sentences
    reply = hall.short(hall.ask(forms.poi_reply, prover, speech=so_far, point=point, sentences=(1, limit)), limit)
    yield from hall.voice(prover, reply, kind="poi_reply", chunker=WholeMessage())
    if params.resume == "continue":
        yield from table.resume(floor)
        return
    view = hall.view(prover, speech=so_far, point=point, reply=reply.value.text, rebuttal=prepared)
    yield from table.resume_streaming(floor, heard.streamed(forms.resume, view, nonce=floor.disclosed))


def _question(hall: Hall, floor: Floor, question: str, heard: _Heard) -> Generator[Event, None, None]:
    """A Socratic question that does not take the floor: the student's generation goes on with it in view."""
    table, forms = hall.table, hall.forms
    prover, critic = hall.prover, hall.critic
    assert critic is not None
    yield table.intervene(critic, prover, "question", question, blocking=False, floor=floor)
    hall.transcript.append(f"{hall.title(critic)} (question): {question}")
    said = hall.said(floor.units, floor.disclosed)
    view = hall.view(prover, speech=said, point=question, rebuttal=_prepared(floor))
    streamed = heard.streamed(forms.revise_rest, view, nonce=floor.disclosed)
    yield table.revise_streaming(floor, streamed, reason=f"question: {question[:200]}")


def _final(hall: Hall, *, rebuttal: str = "") -> Iterator[Event]:
    table = hall.table
    prover = hall.prover
    yield table.phase("final")
    table.tick()
    final = hall.ask(hall.forms.final, prover, rebuttal=rebuttal)
    yield from hall.voice(prover, final, kind="final", chunker=WholeMessage())
    reason = EndReason.PHASES_DONE if hall.variant == "british" else EndReason.ROUNDS
    yield table.finish(reason, single(prover, table.answers.get(prover), table.answer_list()))


def congress(hall: Hall) -> Iterator[Event]:
    table, forms, params = hall.table, hall.forms, hall.params
    prover, critic = hall.prover, hall.critic
    assert critic is not None
    critique_limit = (1, params.critique_sentences)
    yield table.phase("opening", 1)
    table.tick()
    yield from hall.voice(prover, hall.ask(forms.opening, prover), kind="opening")
    yield table.phase("critique", 1)
    table.tick()
    yield from hall.voice(critic, hall.ask(forms.critique, critic, sentences=critique_limit, round=1), kind="critique")
    rounds = params.congress_rounds
    for round_ in range(2, rounds + 1):
        yield table.phase("rebuttal", round_)
        table.tick()
        reply = hall.ask(forms.prover_rebuttal, prover, round=round_, last_round=round_ == rounds)
        yield from hall.voice(prover, reply, kind="rebuttal")
        table.tick()
        critique = hall.ask(forms.critique, critic, sentences=critique_limit, round=round_)
        yield from hall.voice(critic, critique, kind="critique")
    yield from _final(hall)


def socratic(hall: Hall) -> Iterator[Event]:
    table, forms, params = hall.table, hall.forms, hall.params
    prover, critic = hall.prover, hall.critic
    assert critic is not None
    yield table.phase("answer", 1)
    table.tick()
    if params.socratic_mode == "streaming":
        yield from _speech(hall, forms.streamed_answer, "answer", forms.question_check, "question")
        yield from _final(hall)
        return
    answer = hall.ask(forms.student_answer, prover, sentences=(1, 4))
    yield from hall.voice(prover, answer, kind="answer")
    for round_ in range(1, params.socratic_rounds + 1):
        yield table.phase("question", round_)
        table.tick()
        question = hall.short(hall.ask(forms.socratic_question, critic, round=round_), 2)
        yield from hall.voice(critic, question, kind="question", chunker=WholeMessage())
        yield table.phase("revision", round_)
        table.tick()
        revision = hall.ask(forms.student_revision, prover, point=question.value.text, sentences=(1, 3), round=round_)
        yield from hall.voice(prover, revision, kind="revision")
    yield from _final(hall)


def cot(hall: Hall) -> Iterator[Event]:
    table = hall.table
    yield table.phase("reasoning")
    table.tick()
    reply = hall.ask(hall.forms.cot, hall.prover, sentences=(1, 4))
    yield from hall.voice(hall.prover, reply, kind="reasoning")
    yield table.finish(EndReason.PHASES_DONE, single(hall.prover, table.answers.get(hall.prover), table.answer_list()))
