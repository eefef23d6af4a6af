"""Section VI-B's event definitions on hand-built debates, Wilson intervals, token bins."""

from __future__ import annotations

import pytest

from protocols.kimura.study.metrics import Kind, Outcome, effects, intermediate_answers, token_bin
from tests.conftest import build_script_backend, make_config, run


def debate(plans, utterances, initial, **config):
    backend = build_script_backend(plans=plans, utterances=utterances, initial=initial)
    return run(make_config(**config), backend)


def only(found, kind):
    chosen = [effect for effect in found if effect.kind is kind]
    assert len(chosen) == 1, chosen
    return chosen[0]


def test_an_interruption_that_improves():
    # Jenny (correct, B) cuts Alex off; Chris (A) then changes to B.
    events = debate(
        plans={
            (0, "Alex"): ("speak", 5, "A"),
            (1, "Jenny"): ("interrupt", 8, "B"),
            (3, "Chris"): ("listen", 0, "B"),
            (3, "Alex"): ("listen", 0, "A"),
        },
        utterances={"Alex": ["One. Two. Three."], "Jenny": ["Fix. Done."]},
        initial={"Alex": "A", "Chris": "A", "Jenny": "B"},
        max_turns=4,
    )
    found = effects(events, "B")
    cut = only(found, Kind.INTERRUPTION)
    assert (cut.speaker, cut.turn, cut.speaker_correct, cut.outcome) == ("Jenny", 1, True, Outcome.IMPROVED)
    assert cut.before["Chris"] == "A" and cut.after["Chris"] == "B"


def test_an_interruption_that_worsens():
    # Alex (incorrect, A) cuts Jenny off; Chris (B) then changes to A.
    events = debate(
        plans={
            (0, "Jenny"): ("speak", 5, "B"),
            (1, "Alex"): ("interrupt", 8, "A"),
            (3, "Chris"): ("listen", 0, "A"),
        },
        utterances={"Jenny": ["One. Two. Three."], "Alex": ["Wrong. Really."]},
        initial={"Alex": "A", "Chris": "B", "Jenny": "B"},
        max_turns=4,
    )
    cut = only(effects(events, "B"), Kind.INTERRUPTION)
    assert (cut.speaker, cut.speaker_correct, cut.outcome) == ("Alex", False, Outcome.WORSENED)


def test_an_interruption_when_everyone_agrees_is_excluded():
    events = debate(
        plans={(0, "Jenny"): ("speak", 5, "B"), (1, "Alex"): ("interrupt", 8, "B")},
        utterances={"Jenny": ["One. Two. Three."], "Alex": ["Agreed. Yes."]},
        initial={"Alex": "B", "Chris": "B", "Jenny": "B"},
        max_turns=4,
    )
    assert only(effects(events, "B"), Kind.INTERRUPTION).outcome is Outcome.EXCLUDED


def test_a_completion_measures_from_the_floor_grant_to_the_last_sentence():
    events = debate(
        plans={(0, "Jenny"): ("speak", 5, "B"), (2, "Alex"): ("listen", 0, "B")},
        utterances={"Jenny": ["Nitrogen. Is most."]},
        initial={"Alex": "A", "Chris": "A", "Jenny": "B"},
        max_turns=3,
    )
    done = only(effects(events, "B"), Kind.COMPLETION)
    assert (done.speaker, done.turn, done.outcome) == ("Jenny", 0, Outcome.IMPROVED)
    assert done.before == {"Alex": "A", "Chris": "A", "Jenny": "B"}
    assert done.after["Alex"] == "B"


def test_an_unchanged_event_when_nobody_moves():
    events = debate(
        plans={(0, "Jenny"): ("speak", 5, "B")},
        utterances={"Jenny": ["Nitrogen. Is most."]},
        initial={"Alex": "A", "Chris": "A", "Jenny": "B"},
        max_turns=3,
    )
    assert only(effects(events, "B"), Kind.COMPLETION).outcome is Outcome.UNCHANGED


def test_fixed_order_counts_every_speaking_turn_as_a_completion():
    events = debate(
        plans={}, utterances={}, initial={"Alex": "A", "Chris": "B", "Jenny": "B"}, condition="fixed", max_turns=3
    )
    kinds = [effect.kind for effect in effects(events, "B")]
    assert kinds and set(kinds) == {Kind.COMPLETION}


def test_intermediate_answers_follow_every_turn():
    events = debate(plans={}, utterances={}, initial={"Alex": "A", "Chris": "B", "Jenny": "B"}, max_turns=3)
    rows = intermediate_answers(events)
    assert [turn for turn, _, _ in rows] == [0, 1, 2, 3]
    assert rows[0][2] == {"Alex": "A", "Chris": "B", "Jenny": "B"}


@pytest.mark.parametrize(("tokens", "expected"), [(0, (0, 49)), (49, (0, 49)), (50, (50, 99)), (349, (300, 349))])
def test_fifty_token_bins(tokens, expected):
    assert token_bin(tokens) == expected
