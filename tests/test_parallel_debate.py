"""The kernel's parallel debate (Du et al.), as every protocol that runs it runs it: the baselines family's
``parallel`` and ``dmad``, ACE's ``parallel`` and SID's ``mad``, each with its own prompts on the one loop
(``debate_core.kernel.parallel_debate``): every round is one batch of every debater, a revision reads the
others' answers of the round before and never this round's, and the majority of the last answers decides (a
reply naming no answer keeps the debater's last one; a tie is the debate's seeded draw)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.backends.base import GenerationRequest
from debate_core.events import DebateEnded, PhaseStarted
from debate_core.kernel import parallel_debate as kernel
from protocols.ace import loop as ace_loop
from protocols.baselines import loop as baselines_loop
from protocols.sid import loop as sid_loop
from tests.conftest import QUESTION, of_type


def ace_reply(mark: str, answer: str | None) -> str:
    return json.dumps({"answer": answer or "none of them", "explanation": [f"{mark} is my reasoning."]})


def sid_reply(mark: str, answer: str | None) -> str:
    return f"{mark} is my reasoning." + (f" The answer is ({answer})." if answer else "")


def baselines_reply(mark: str, answer: str | None) -> str:
    return f"{mark} is my reasoning." + (f"\nFinal Answer: {answer}" if answer else "")


SYSTEMS: dict[str, Callable[[str, str | None], str]] = {
    "baselines/parallel": baselines_reply,
    "baselines/dmad": baselines_reply,
    "ace/parallel": ace_reply,
    "sid/mad": sid_reply,
}


def mark(agent: str, round_: int) -> str:
    return f"[{agent} in round {round_}]"


def debate(system: str, answers: dict[str, list[str | None]], *, seed: int = 0) -> tuple[list, ScriptedBackend]:
    """A parallel debate of ``system`` whose debaters answer ``answers[agent][round - 1]``, each reply marked."""
    protocol, variant = system.split("/")
    rounds = len(next(iter(answers.values())))
    agents = tuple(AgentSpec(name=name) for name in answers)
    config = DebateConfig(
        question=QUESTION, agents=agents, protocol=protocol, variant=variant, params={"rounds": rounds}, seed=seed
    )
    asked: Counter[str] = Counter()

    def reply(request: GenerationRequest) -> str:
        asked[request.agent] += 1
        round_ = asked[request.agent]
        return SYSTEMS[system](mark(request.agent, round_), answers[request.agent][round_ - 1])

    backend = ScriptedBackend(reply)
    return Debate(config, backend).run(), backend


def test_the_baselines_ace_and_sid_run_the_one_parallel_debate_of_the_kernel():
    assert ace_loop.parallel_debate is sid_loop.parallel_debate is baselines_loop.parallel_debate
    assert baselines_loop.parallel_debate is kernel.parallel_debate


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_round_is_one_batch_and_a_revision_reads_the_others_last_answers_never_this_rounds(system):
    answers: dict[str, list[str | None]] = {"D1": ["A", "B", "B"], "D2": ["B", "B", "B"], "D3": ["C", "C", "B"]}
    events, backend = debate(system, answers)
    assert [sorted(r.agent for r in batch) for batch in backend.batches] == [["D1", "D2", "D3"]] * 3
    for round_, batch in enumerate(backend.batches, 1):
        for request in batch:
            prompt = "\n".join(m.content for m in request.messages)
            if round_ == 1:
                assert "in round" not in prompt  # the question alone
                continue
            others = [name for name in answers if name != request.agent]
            assert all(mark(name, round_ - 1) in prompt for name in others), (system, round_, request.agent)
            assert not any(mark(name, round_) in prompt for name in answers)  # nobody reads this round's answers
    rounds = [p.round for p in of_type(events, PhaseStarted) if p.phase in ("answer", "revise", "revision")]
    assert rounds == [1, 2, 3]
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert (end.reason.value, end.rule, end.final_answer) == ("rounds", "majority", "B")
    assert {v.answer: v.count for v in end.votes} == {"B": 3}


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_reply_naming_no_answer_keeps_the_last_and_a_tie_is_the_seeded_draw(system):
    answers: dict[str, list[str | None]] = {"D1": ["A", None], "D2": ["C", "C"]}  # D1 names none in round 2
    ends = [debate(system, answers, seed=seed)[0][-1] for seed in (0, 0, 1, 2, 3, 4)]
    for end in ends:
        assert end.rule == "majority" and sorted(v.answer for v in end.votes) == ["A", "C"]  # D1 keeps its A
        assert sorted(end.tie) == ["A", "C"] and end.final_answer in ("A", "C")
    assert ends[0].final_answer == ends[1].final_answer  # the same seed draws the same answer
