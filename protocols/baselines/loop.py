"""The baselines' loops: IO, CoT, Self-Consistency, Step-Back prompting, Self-Contrast, and parallel debate.

What it does: each function drives one variant over a ``Desk`` (the run state, ``state``) and
yields its events, ending with ``table.finish``:

* ``io``: the question, answered directly (Input-Output prompting): one request, the answer alone;
* ``cot``: step-by-step reasoning ending with its answer (Wei et al.'s chain of thought, zero-shot
  in Kojima et al.'s words, "Let's think step by step");
* ``self_consistency``: ``samples`` chains of thought sampled independently (each its own
  request, its own seed), the debate's answer the majority of their answers (Wang et al.: sample
  diverse reasoning paths, marginalise them by a majority vote); a tie is broken by the debate's
  seeded draw, and a sample that names no answer casts no vote;
* ``step_back``: abstraction, then reasoning (Zheng et al.): the solver first asks the more
  general question behind the question and answers it with the principles, then reasons from
  those principles to the answer;
* ``self_contrast``: the solver names ``perspectives`` distinct solving perspectives, solves the
  question from each, keeps the distinct solutions (``selection.select``), contrasts their
  differences into a checklist, and reconciles them into one answer (Zhang et al.);
* ``parallel``: Du et al.'s multi-agent debate: every debater answers alone (one batch), then in
  each of ``rounds - 1`` rounds every debater reads the others' last answers (not this round's:
  the round is asked in one batch before anyone's reply is said) and gives an updated answer; the
  majority of the debaters' last answers decides (a debater whose reply names no answer keeps its
  last; a tie is the debate's seeded draw). The rounds are the kernel's ``parallel_debate``, the
  one parallel debate that ACE's ``parallel`` and SID's ``mad`` run too, each with its own
  prompts; this family brings its prompts, its turns (one per debater) and its phase names;
* ``tar``: Liang et al.'s debate with a judge: each round the affirmative side states (or
  defends) its answer, the negative side disagrees and answers it point by point, and the judge
  says whether one side is clearly right (``judge``); if so the debate ends with that answer
  (``verdict``), else it goes on, and after ``max_rounds`` rounds the judge weighs both sides and
  gives its own verdict;
* ``dmad``: Liu et al.'s diverse multi-agent debate: parallel debate whose debaters each reason by
  their own method (``methods``, in seat order: chain of thought, step-back, program of thought), in
  their first answers and in every revision;
* ``rtc``: ReConcile's round table (Chen et al.): every agent answers with an explanation and a
  confidence, then in up to ``discussion_rounds`` rounds reads all the last answers grouped by
  answer (explanations and confidences with them) and revises; a round that begins in consensus
  is not held (end reason ``consensus``); the answers are decided by the confidence-weighted vote
  (``reconcile.weighted_vote``);
* ``rpd``: ChatEval's role-played debate (Chan et al.): debaters in distinct roles (their own
  persona, else ``ROLE_PLAYS`` in seat order) speak one by one for ``rounds`` rounds, each reading
  the whole discussion so far; the majority of the last answers decides.

Each step is the seat's public reply (a person in a seat sees and writes each); the debate's
answer is the solver's last (``single``), the samples' majority, the debaters', or the judge's.
In the debates (``parallel``, ``dmad``, ``tar``, ``rtc``, ``rpd``) the answer a step names is
recorded under its round (``round N``, as ACE and SID record theirs), so the web app draws the
answers per round; TAR's judge's own verdict after the last round, and the single-agent
variants' steps, under the step's kind.

What it does not do: parse or word anything (``forms``, ``prompts/``) or keep kernel state (the
``Table`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from debate_core.events.codec import Event
from debate_core.events.records import AgentAnswer, EndReason
from debate_core.kernel.endings import FinalDecision, consensus, count_votes, majority, single, verdict
from debate_core.kernel.forms import FormResult
from debate_core.kernel.parallel_debate import Phases, parallel_debate
from debate_core.kernel.table import Replies
from protocols.baselines.forms import Solved
from protocols.baselines.judge import Judged
from protocols.baselines.reconcile import grouped, weighted_vote
from protocols.baselines.selection import select
from protocols.baselines.state import Desk
from protocols.baselines.views import SolverView

PHASES = Phases(revise="revision", decision=None)  # this family's phase names: its streams as before the sharing


def _end(desk: Desk) -> Event:
    table = desk.table
    return table.finish(EndReason.PHASES_DONE, single(desk.solver, table.answers.get(desk.solver), table.answer_list()))


def _step(
    desk: Desk, phase: str, kind: str, *, round: int | None = None, nonce: int = 0, **fields: Any
) -> Iterator[Event]:
    """One phase: a new turn, the solver asked ``kind`` and its reply voiced."""
    yield desk.table.phase(phase, round)
    desk.table.tick()
    reply = desk.ask(kind, nonce=nonce, **fields)
    desk.last = reply.value
    yield from desk.voice(reply, kind=kind)


def io(desk: Desk) -> Iterator[Event]:
    yield from _step(desk, "answer", "answer")
    yield _end(desk)


def cot(desk: Desk) -> Iterator[Event]:
    yield from _step(desk, "reasoning", "reasoning")
    yield _end(desk)


def self_consistency(desk: Desk) -> Iterator[Event]:
    table, solver, k = desk.table, desk.solver, desk.params.samples
    votes: list[str | None] = []
    for sample in range(1, k + 1):
        yield from _step(desk, "sample", "sample", round=sample, nonce=sample, sample=sample, samples=k)
        assert isinstance(desk.last, Solved)
        votes.append(desk.last.answer)
    winner, counted, tie = count_votes(votes, table.rng)
    answers = tuple(AgentAnswer(agent=solver, answer=answer) for answer in votes if answer is not None)
    if winner is not None and winner != table.answers.get(solver):
        yield table.update_answers({solver: winner}, cause="majority of the samples")
    yield table.finish(EndReason.PHASES_DONE, FinalDecision(winner, "majority", answers, counted, tie))


def step_back(desk: Desk) -> Iterator[Event]:
    yield from _step(desk, "abstraction", "step_back")
    principles = desk.last if isinstance(desk.last, str) else ""
    yield from _step(desk, "reasoning", "step_back_reasoning", principles=principles)
    yield _end(desk)


def self_contrast(desk: Desk) -> Iterator[Event]:
    count = desk.params.perspectives
    yield from _step(desk, "perspectives", "perspectives", count=count)
    perspectives = desk.last if isinstance(desk.last, tuple) else ()
    solutions: list[str] = []
    answers: list[str | None] = []
    for index, perspective in enumerate(perspectives, 1):
        yield from _step(desk, "solve", "perspective", round=index, nonce=index, perspective=perspective)
        assert isinstance(desk.last, Solved)
        solutions.append(f"(perspective: {perspective})\n{desk.last.text or '(no solution)'}")
        answers.append(desk.last.answer)
    kept = yield from select(desk, solutions, answers)  # the distinct ones (``selection``)
    yield from _step(desk, "contrast", "contrast", solutions=kept)
    checklist = desk.last if isinstance(desk.last, str) else ""
    yield from _step(desk, "reconcile", "reconcile", solutions=kept, checklist=checklist)
    yield _end(desk)


def parallel(desk: Desk) -> Iterator[Event]:
    """Du et al.'s debate: all answer alone, then each round every debater reads the others' last answers and
    updates its own; the majority of the last answers decides."""
    yield from _debate(desk, "first_answer", "revise", lambda agent: "cot")


def dmad(desk: Desk) -> Iterator[Event]:
    """Liu et al.'s debate: parallel debate whose debaters each reason by their own method throughout."""
    methods = desk.params.methods
    order = {agent: methods[index % len(methods)] for index, agent in enumerate(desk.agents)}
    yield from _debate(desk, "method_answer", "method_revise", order.__getitem__)


def _debate(desk: Desk, first_kind: str, revise_kind: str, method: Callable[[str], str]) -> Iterator[Event]:
    """The kernel's parallel debate (``parallel_debate``: each round asked in one batch, the majority of the last
    answers) with this family's prompts: ``first_kind`` then ``revise_kind``, the others' last answers named; each
    debater's reply its own turn, cut into sentences."""
    table = desk.table
    last: dict[str, str] = {}

    def kind(round_: int) -> str:
        return first_kind if round_ == 1 else revise_kind

    def ask(round_: int, who: Sequence[str]) -> Replies[Any]:
        def seen(agent: str) -> SolverView:
            others = tuple(f"{name}: {last.get(name) or '(no answer)'}" for name in desk.agents if name != agent)
            return desk.view(agent, round=round_, own=last.get(agent, ""), others=others, method=method(agent))

        return table.ask(desk.forms[kind(round_)], who, seen)

    def publish(round_: int, replies: Mapping[str, FormResult[Any]]) -> Iterator[Event]:
        for index, agent in enumerate(name for name in desk.agents if name in replies):
            if index:
                table.tick()
            reply = replies[agent]
            yield from desk.voice(reply, kind=kind(round_), agent=agent, round=round_)
            if reply.value.text:
                last[agent] = reply.value.text

    yield from parallel_debate(table, desk.agents, desk.params.rounds, ask, publish, phases=PHASES)


def tar(desk: Desk) -> Iterator[Event]:
    """Liang et al.'s debate: the affirmative and the negative side each round, then the judge's call; the judge
    ends it with a side's answer, or gives its own verdict after the last round."""
    table = desk.table
    (affirmative,), (negative,), (judge,) = (table.with_role(role) for role in ("affirmative", "negative", "judge"))
    record: list[str] = []
    rounds = desk.params.max_rounds
    for round_ in range(1, rounds + 1):
        yield table.phase("debate", round_)
        for agent, kind in ((affirmative, "affirmative"), (negative, "negative")):
            table.tick()
            reply = desk.ask(kind, agent=agent, round=round_, record=tuple(record))
            yield from desk.voice(reply, kind=kind, agent=agent, round=round_)
            if reply.value.text:
                record.append(f"{kind.capitalize()} (round {round_}): {reply.value.text}")
        yield table.phase("judgement", round_)
        table.tick()
        sides = (table.answers.get(affirmative), table.answers.get(negative))
        call = desk.ask("judge_check", agent=judge, round=round_, rounds=rounds, record=tuple(record), sides=sides)
        judged = call.value
        assert isinstance(judged, Judged)
        yield from desk.voice(
            call.map(lambda j: Solved(j.text, j.answer)), kind="judge_check", agent=judge, round=round_
        )
        if judged.stop:
            yield table.finish(EndReason.VERDICT, verdict(judge, table.answers.get(judge), table.answer_list()))
            return
    yield table.phase("verdict")
    table.tick()
    final = desk.ask("judge_final", agent=judge, rounds=rounds, record=tuple(record))
    yield from desk.voice(final, kind="judge_final", agent=judge)
    yield table.finish(EndReason.ROUNDS, verdict(judge, table.answers.get(judge), table.answer_list()))


def rtc(desk: Desk) -> Iterator[Event]:
    """ReConcile's round table: answers with confidence, up to ``discussion_rounds`` rounds of discussion over the
    grouped answers (ended early by a consensus), then the confidence-weighted vote."""
    table = desk.table
    last: dict[str, Solved] = {}
    reason = EndReason.ROUNDS
    for round_ in range(1, desk.params.discussion_rounds + 2):
        first = round_ == 1
        if not first and consensus(table.answer_list()) is not None:
            reason = EndReason.CONSENSUS
            break
        kind = "rtc_first" if first else "rtc_revise"
        yield table.phase("answer" if first else "discussion", round_)
        table.tick()
        shown = grouped(last)

        def seen(agent: str, round_: int = round_, shown: tuple[str, ...] = shown) -> SolverView:
            own = last[agent].text if agent in last else ""
            return desk.view(agent, round=round_, own=own, others=shown)

        replies = desk.ask_all(kind, seen)
        for index, agent in enumerate(desk.agents):
            if index:
                table.tick()
            yield from desk.voice(replies[agent], kind=kind, agent=agent, round=round_)
            if replies[agent].value.text:
                last[agent] = replies[agent].value
    confidences = {agent: solved.confidence for agent, solved in last.items()}
    decision, tally = weighted_vote(table.answer_list(), confidences, table.rng)
    yield table.phase("vote", detail=f"confidence-weighted: {tally}")
    yield table.finish(reason, decision)


ROLE_PLAYS = (
    "You play a critic: you look for the flaw in every argument, your own included.",
    "You play a scientist: you reason from evidence and established facts.",
    "You play a psychologist: you ask why each answer is tempting and whether that is a reason to believe it.",
    "You play a news author: you check where each claim comes from before you accept it.",
    "You play a member of the general public: you ask for plain explanations and weigh them with common sense.",
)


def rpd(desk: Desk) -> Iterator[Event]:
    """ChatEval's role-played debate: each round the debaters speak one by one, in their roles, each reading the
    whole discussion so far (this round's earlier turns included); the majority of the last answers decides."""
    table = desk.table
    config = table.config
    persona = {
        agent: config.agent(agent).persona or ROLE_PLAYS[index % len(ROLE_PLAYS)]
        for index, agent in enumerate(desk.agents)
    }
    record: list[str] = []
    for round_ in range(1, desk.params.rounds + 1):
        yield table.phase("discussion", round_)
        for agent in desk.agents:
            table.tick()
            reply = desk.ask("rpd_turn", agent=agent, round=round_, record=tuple(record), persona=persona[agent])
            yield from desk.voice(reply, kind="rpd_turn", agent=agent, round=round_)
            if reply.value.text:
                record.append(f"{agent}: {reply.value.text}")
    yield table.finish(EndReason.ROUNDS, majority(table.answer_list(), table.rng))


DRIVE = {
    "io": io,
    "cot": cot,
    "self_consistency": self_consistency,
    "step_back": step_back,
    "self_contrast": self_contrast,
    "parallel": parallel,
    "tar": tar,
    "dmad": dmad,
    "rtc": rtc,
    "rpd": rpd,
}
