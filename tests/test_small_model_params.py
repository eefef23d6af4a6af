"""Parameters a protocol recommends for a small model (``Protocol.small_model_params``), generically.

A protocol's defaults stay its paper's; it may name the parameters that make a tiny model (the
embedded SmolLM2-135M) work. The registry checks them against the protocol's ``Params`` and gives
them to the front ends, which apply them only when a small model is chosen: the terminal's
``--small-model`` (``--param`` wins) and the listing here; the web app's choice is tested in
``tests/test_ui_view.py``. A protocol of the tests' own stands for any (``SmallRounds``,
``tests/protocols/small_rounds.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pytest
from rich.console import Console

from console.cli import build_parser, config_from_args, small_model_note
from console.listing import show_protocols
from debate_core import Debate, ScriptedBackend
from debate_core.errors import ConfigError
from debate_core.events import PhaseStarted
from debate_core.protocols import registry
from debate_core.protocols.registry import describe, small_model_params, with_small_model_params
from tests.conftest import of_type
from tests.protocols.judged_rounds import JudgedRounds
from tests.protocols.small_rounds import SmallRounds


@pytest.fixture
def small_rounds() -> Iterator[str]:
    registry.register(SmallRounds)
    yield SmallRounds.name
    registry.unregister(SmallRounds.name)


def run_args(*argv: str):
    return build_parser().parse_args(["run", "--agents", "Ann, Ben, Cy", *argv])


def test_the_registry_gives_a_protocols_small_model_params_and_an_explicit_parameter_wins(small_rounds):
    assert small_model_params(small_rounds) == {"rounds": 1}
    assert with_small_model_params(small_rounds, {}) == {"rounds": 1}
    assert with_small_model_params(small_rounds, {"rounds": 4, "early_end": False}) == {"rounds": 4, "early_end": False}
    assert SmallRounds.Params().rounds == 3  # the defaults stay the paper's
    info = next(i for i in describe() if i.name == small_rounds)
    assert dict(info.small_model_params) == {"rounds": 1}
    assert small_model_params("no-such-protocol") == {} and JudgedRounds.small_model_params == {}


@pytest.mark.parametrize(
    ("small", "wrong"), [({"round": 1}, "round: Extra inputs are not permitted"), ({"rounds": 0}, "rounds: Input")]
)
def test_small_model_params_that_are_not_the_protocols_parameters_are_refused_when_it_is_registered(small, wrong):
    class Wrong(JudgedRounds):
        name = "wrong-rounds"
        small_model_params: ClassVar[Mapping[str, Any]] = small

    with pytest.raises(ConfigError, match=f"wrong-rounds's small_model_params are not its parameters .*{wrong}"):
        registry.register(Wrong)
    assert "wrong-rounds" not in registry.available()


def test_the_terminals_small_model_flag_sets_them_says_so_and_a_param_wins(small_rounds):
    plain = run_args("--protocol", small_rounds)
    assert config_from_args(plain).params == {} and small_model_note(plain) is None
    small = run_args("--protocol", small_rounds, "--small-model")
    assert config_from_args(small).params == {"rounds": 1}
    assert small_model_note(small) == (
        "For a small model, small-rounds runs with rounds=1 (the paper's: 3); --param KEY=VALUE sets another."
    )
    overridden = run_args("--protocol", small_rounds, "--small-model", "--param", "rounds=2")
    assert config_from_args(overridden).params == {"rounds": 2} and small_model_note(overridden) is None
    config = config_from_args(small)
    events = Debate(config, ScriptedBackend(lambda r: '{"answer": "B", "final": false}')).run()
    assert [p.round for p in of_type(events, PhaseStarted) if p.phase == "verdict"] == [1]  # one round, as set


def test_a_protocol_without_small_model_params_is_unchanged_by_the_flag():
    registry.register(JudgedRounds)  # it recommends none
    try:
        args = run_args("--protocol", JudgedRounds.name, "--small-model")
        assert small_model_note(args) is None
        assert config_from_args(args).params == config_from_args(run_args("--protocol", JudgedRounds.name)).params
    finally:
        registry.unregister(JudgedRounds.name)


def test_the_listing_names_the_small_model_params(small_rounds):
    console = Console(record=True, width=200)
    show_protocols(console)
    text = console.export_text()
    block = text[text.index("small-rounds:") :]
    assert f"for a small model: rounds={json.dumps(1)} (run --small-model; the app's embedded model)" in block
