"""HandRaiser's ledger rows that no other test showed: the random policy's 'none' and the listener's batches."""

from __future__ import annotations

from debate_core.events import Interrupted, UtteranceGenerated
from protocols.handraiser.study.train_listener import Encoded, Settings, _batches
from protocols.handraiser.tests.test_handraiser import Script, config, run
from tests.conftest import of_type


def _statements_left_whole(seed: int, allow_none: bool) -> tuple[int, int]:
    cfg = config("random", random_allow_none=allow_none, max_rounds=2).model_copy(update={"seed": seed})
    events = run(cfg, Script(wait_rounds=1))
    statements = [e for e in of_type(events, UtteranceGenerated) if e.kind == "statement"]
    cut = {e.utterance_id for e in of_type(events, Interrupted)}
    return sum(1 for s in statements if s.utterance_id not in cut), len(statements)


def test_random_cuts_every_statement_once_as_the_paper_and_allow_none_may_leave_one_whole():
    plain = [_statements_left_whole(seed, allow_none=False) for seed in range(20)]
    assert all(whole == 0 for whole, _ in plain)  # "randomly pick one point to interrupt in each turn"
    loose = [_statements_left_whole(seed, allow_none=True) for seed in range(20)]
    left, said = sum(w for w, _ in loose), sum(n for _, n in loose)
    assert 0 < left < said  # "no interruption" is one more choice among the chunk boundaries


def _rows(yes: int, no: int) -> list[Encoded]:
    return [Encoded([1, 2], [3], "Yes") for _ in range(yes)] + [Encoded([1, 2], [4], "No") for _ in range(no)]


def test_training_batches_are_class_balanced_by_default_and_plain_passes_with_no_balance():
    rows = _rows(10, 90)
    draw = _batches(rows, Settings(data=("x",), out="y", batch_size=10, seed=3))
    drawn = [row.label for _ in range(200) for row in draw()]
    share = drawn.count("Yes") / len(drawn)
    assert 0.4 < share < 0.6  # each label equally likely, though Yes is a tenth of the data
    passes = _batches(rows, Settings(data=("x",), out="y", batch_size=10, seed=3, balance=False))
    first_pass = [row for _ in range(10) for row in passes()]
    assert sorted(map(id, first_pass)) == sorted(map(id, rows))  # --no-balance: every example once per pass


def test_statements_and_votes_are_capped_by_their_own_parameters():
    script = Script()
    run(config("generic", statement_tokens=64, vote_tokens=12, question_tokens=20), script)
    caps = {r.kind: r.sampling.max_new_tokens for r in script.requests}
    assert caps == {"statement": 64, "vote": 12 + 20}  # a vote, or a wait with its question
    script = Script()
    run(config("generic", statement_tokens=64, vote_tokens=12, questions=False), script)
    assert {r.kind: r.sampling.max_new_tokens for r in script.requests} == {"statement": 64, "vote": 12}
