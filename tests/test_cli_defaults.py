"""The terminal's and the storage CLI's defaults come from the engine: its default protocol and shared demo.

``python -m debate_core run`` without a question debates the demo question every protocol shares
(``debate_core.demo``) on ``DEFAULT_PROTOCOL``; ``--condition`` stays the alias of that protocol's
variants, in the terminal and in ``python -m storage list``.
"""

from __future__ import annotations

import pytest

from console import cli
from debate_core.config import DEFAULT_PROTOCOL, Condition
from debate_core.demo import DEMO_AGENTS, DEMO_QUESTION
from storage import cli as storage_cli


def test_a_run_without_a_question_debates_the_shared_demo_on_the_default_protocol():
    config = cli.config_from_args(cli.build_parser().parse_args(["run"]))
    assert (config.protocol, config.variant) == (DEFAULT_PROTOCOL, Condition.INTERRUPTIBLE.value)
    assert config.question == DEMO_QUESTION and config.agents == DEMO_AGENTS
    two = cli.config_from_args(cli.build_parser().parse_args(["run", "--protocol", "parliament"]))
    assert two.question == DEMO_QUESTION and two.agents == DEMO_AGENTS[:2]  # a prover and a critic


@pytest.mark.parametrize("condition", [c.value for c in Condition])
def test_condition_is_the_default_protocols_variant_in_both_clis(condition):
    config = cli.config_from_args(cli.build_parser().parse_args(["run", "--condition", condition]))
    assert (config.protocol, config.variant, config.condition) == (DEFAULT_PROTOCOL, condition, condition)
    args = storage_cli.build_parser().parse_args(["list", "--condition", condition])
    assert args.condition == condition


def test_an_unknown_condition_is_refused_by_both_clis(capsys):
    for parser, argv in ((cli.build_parser(), ["run"]), (storage_cli.build_parser(), ["list"])):
        with pytest.raises(SystemExit):
            parser.parse_args([*argv, "--condition", "sometimes"])
    assert "invalid choice" in capsys.readouterr().err
