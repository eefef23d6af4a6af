"""SID's last ledger rows (#29): a tied last round, the first answers' significance test and the correction
flow, the sweeps of rounds, alpha and rho, and a ledger with no row still to build."""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_core.backends.scripted import ScriptedReply, scripted_tokens
from debate_core.events import DebateEnded
from debate_core.errors import ImpossibleEvent
from debate_core.protocols import protocol_class
from debate_core.protocols.consistency import check_stream
from debate_core.testing.ledger import protocol_docs, read_ledger
from protocols.sid.tests.test_sid import AGENTS, Recording, config, run

TWO = AGENTS[:2]


def _keeps(letters: dict[str, str]):
    """Each agent answers its letter and keeps it when it revises (a calm reply: no early exit needed)."""

    def reply(request):
        text = f"I checked each option against the question. The answer is ({letters[request.agent]})."
        n = len(scripted_tokens(text))
        return ScriptedReply(text, token_nll=(7.0,) * n, token_entropy=(0.4,) * n)  # hesitant: the debate goes on

    return reply


def _tied(variant: str = "mad", *, seed: int | None = None, **params) -> DebateEnded:
    extra = {"seed": seed} if seed is not None else {}
    cfg = config(variant, agents=TWO, **params).model_copy(update=extra)
    keep = _keeps({"Alex": "C", "Chris": "A"})
    events = run(cfg, Recording(cfg, answer=keep, revise=keep, revise_kept=keep))
    check_stream(events)  # the kernel's and SID's rules accept the ending
    end = events[-1]
    assert isinstance(end, DebateEnded)
    return end


def test_a_tied_last_round_goes_to_the_first_seats_answer_as_the_authors_code_does():
    # the authors' code: Counter(answers).most_common(1)[0][0], the first-seen among the tied (agent order)
    for variant in ("mad", "sid"):
        end = _tied(variant)
        assert end.rule == "majority" and end.final_answer == "C"  # Alex's, first in seat order, not the letter first
        assert set(end.tie) == {"A", "C"} and end.decided_by == "Alex"  # the tie recorded, and whose answer won it


def test_ties_draw_draws_among_the_tied_with_the_seeded_generator_and_records_the_draw():
    ends = [_tied(ties="draw", seed=seed) for seed in range(12)]
    assert all(set(e.tie) == {"A", "C"} and e.decided_by is None for e in ends)  # a draw names no agent
    assert {e.final_answer for e in ends} == {"A", "C"}  # each tied answer drawn under some seed
    again = [_tied(ties="draw", seed=seed).final_answer for seed in range(12)]
    assert again == [e.final_answer for e in ends]  # the same seed draws the same answer: a replay shows it


def test_a_first_answer_tie_that_names_the_wrong_agent_is_an_impossible_stream():
    cfg = config("mad", agents=TWO)
    keep = _keeps({"Alex": "C", "Chris": "A"})
    events = run(cfg, Recording(cfg, answer=keep, revise=keep))
    forged = events[-1].model_copy(update={"decided_by": "Chris"})
    with pytest.raises(ImpossibleEvent, match="no tie that went to the first tied answer"):
        check_stream([*events[:-1], forged])


def test_sids_ledger_has_no_row_not_yet_built():
    page = protocol_docs(protocol_class("sid"))
    rows = read_ledger(page.read_text(encoding="utf-8"))
    assert not [row.where("sid") for row in rows if row.kind == "not yet"]
    assert Path(page).name == "docs.md"
