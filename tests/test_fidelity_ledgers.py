"""Every built-in protocol's page carries a fidelity ledger that keeps its format and stays true to the code.

The protocols come from the registry (every built-in one, as the README's table test finds them), not
from a list here, so a new built-in protocol without a ledger fails. For each: its ``docs.md`` has the
section ``## Fidelity ledger`` with the one table of the required header; every row's default says
``as the paper``, ``option`` with its named options and reason, or ``not yet`` with its reason and
issue; every option named exists (a variant, a parameter with a value it accepts, a command-line flag
of ``python -m debate_core`` or ``python -m experiments``); every test named exists. The core paper
and Parliament have no ``not yet`` row (issue #25). The reader of the format is
``debate_core.testing.ledger``; docs/fidelity.md explains the rule.
"""

from __future__ import annotations

import argparse
from functools import cache
from pathlib import Path

import pytest

from debate_core.protocols import describe, protocol_class
from debate_core.protocols.base import Protocol, ProtocolParams
from debate_core.testing.ledger import (
    HEADER,
    LedgerError,
    ledger_problems,
    node_problem,
    option_problem,
    protocol_docs,
    read_ledger,
)

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN = sorted(info.name for info in describe() if info.source == "built-in")
WHOLE = ("kimura", "parliament")  # every row as the paper or a named option (issue #25)


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    found: set[str] = set()
    for action in parser._actions:
        found.update(s for s in action.option_strings if s.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _flags(sub)
    return found


@cache
def cli_flags() -> frozenset[str]:
    """Every long flag of the two command lines and their sub-commands (the plugins' commands included)."""
    from console.cli import build_parser as debate_parser
    from experiments.cli import build_parser as experiments_parser

    return frozenset(_flags(debate_parser()) | _flags(experiments_parser()))


def page(name: str) -> str:
    return protocol_docs(protocol_class(name)).read_text(encoding="utf-8")


def test_every_built_in_protocol_is_checked():
    assert {"kimura", "parliament", "handraiser", "ace", "sid"} <= set(BUILT_IN)


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_page_has_the_ledger_section_with_its_one_table(name):
    try:
        rows = read_ledger(page(name))
    except LedgerError as error:
        pytest.fail(f"{name}'s page {protocol_docs(protocol_class(name)).relative_to(ROOT)}: {error}")
    assert rows, f"{name}'s ledger has no rows"


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_row_keeps_the_format_and_names_options_and_tests_that_exist(name):
    problems = ledger_problems(protocol_class(name), page(name), ROOT, cli_flags())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", [n for n in WHOLE if n in BUILT_IN])
def test_the_core_paper_and_parliament_have_no_row_not_yet_built(name):
    rows = read_ledger(page(name))
    missing = [row.where(name) for row in rows if row.kind == "not yet"]
    assert not missing, "rows still 'not yet' (issue #25 wants every row as the paper or an option):\n" + "\n".join(
        missing
    )


# -- the checker itself: each of its refusals, on a protocol made for the purpose ------------------
class _Params(ProtocolParams):
    rho: float = 0.4
    widen: bool = True


class _Made(Protocol):
    name = "made"
    variants = ("full", "lean")
    Params = _Params

    def run(self, table):  # pragma: no cover - never run
        raise NotImplementedError


GOOD_TEST = "`tests/test_fidelity_ledgers.py::test_every_built_in_protocol_is_checked`"


def _page(*rows: str) -> str:
    table = "\n".join((HEADER, "| --- | --- | --- | --- | --- |", *rows))
    return f"# Made\n\n## Fidelity ledger\n\nHow to read it.\n\n{table}\n\n## After\n\n| a | b |\n| - | - |\n"


@pytest.mark.parametrize(
    ("row", "says"),
    [
        (f"| gate | §4.1 | `gate.py` | as the paper | {GOOD_TEST} |", None),
        (f"| gate | Eq. 2 | `gate.py` | as the paper's code | {GOOD_TEST} |", None),
        (f"| kept share | Fig. 2 | `rho` | option `rho=0.5`, `lean` — the code's value | {GOOD_TEST} |", None),
        (f"| probe | — | ours | option `made/lean:rho=0.2` — our own | {GOOD_TEST} |", None),
        (f"| repeats | Table 1 | runs | option `compare --repeats 3` — n runs | {GOOD_TEST} |", None),
        ("| task | App. C | none | not yet — needs the game, #27 | — |", None),
        ("| metric | Fig. 3 | not built | out of reach — its model cannot be fetched offline | — |", None),
        ("| metric | Fig. 3 | not built | out of reach | — |", "says why"),
        (f"| gate | §4.1 | `gate.py` | roughly the paper | {GOOD_TEST} |", "begins with none of"),
        (f"| gate | §4.1 | `gate.py` | option rho — why | {GOOD_TEST} |", "backticks"),
        (f"| gate | §4.1 | `gate.py` | option `rho` | {GOOD_TEST} |", "reason"),
        (f"| gate | §4.1 | `gate.py` | option `nope` — why | {GOOD_TEST} |", "'nope' is neither a variant"),
        (f"| gate | §4.1 | `gate.py` | option `rho=much` — why | {GOOD_TEST} |", "rho=much is refused"),
        (f"| gate | §4.1 | `gate.py` | option `sid/lean` — why | {GOOD_TEST} |", "names the protocol 'sid'"),
        (f"| gate | §4.1 | `gate.py` | option `made/fat` — why | {GOOD_TEST} |", "'fat' is no variant"),
        (f"| gate | §4.1 | `gate.py` | option `--no-such-flag` — why | {GOOD_TEST} |", "is no command-line flag"),
        ("| task | App. C | none | not yet — needs the game | — |", "names the issue"),
        ("| gate | §4.1 | `gate.py` | as the paper | — |", "only a not yet or out of reach row"),
        (f"| gate | somewhere | `gate.py` | as the paper | {GOOD_TEST} |", "says no place in the paper"),
        (f"| gate | — | `gate.py` | as the paper | {GOOD_TEST} |", "only an option row"),
        ("| gate | §4.1 | `gate.py` | as the paper | tests/test_x.py::test_y |", "backticked pytest node ids"),
        ("| gate | §4.1 | `gate.py` | as the paper | `tests/test_missing.py::test_y` |", "does not exist"),
        (
            "| gate | §4.1 | `gate.py` | as the paper | `tests/test_fidelity_ledgers.py::test_nothing_of_the_kind` |",
            "defines no test_nothing_of_the_kind",
        ),
    ],
)
def test_the_checker_accepts_each_allowed_form_and_names_the_row_of_each_broken_one(row, says):
    problems = ledger_problems(_Made, _page(row), ROOT, {"--repeats"})
    if says is None:
        assert problems == []
    else:
        assert problems and all(p.startswith("made's ledger, line 9 (") for p in problems), problems
        assert any(says in p for p in problems), problems


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("# Made\n\nNo ledger here.\n", "no section headed exactly"),
        ("## Fidelity ledger\n\n| mechanism | paper | here | default |\n| --- | --- | --- | --- |\n", "header"),
        ("## Fidelity ledger\n\nSoon.\n\n## Next\n\n" + HEADER + "\n| --- | --- | --- | --- | --- |\n", "0 tables"),
        (f"## Fidelity ledger\n\n{HEADER}\n| --- | --- | --- | --- | --- |\n", "no rows"),
        (f"## Fidelity ledger\n\n{HEADER}\n| --- | --- | --- | --- | --- |\n| a | b | c |\n", "3 cells"),
    ],
)
def test_a_page_without_the_section_or_with_another_table_shape_is_refused(text, says):
    with pytest.raises(LedgerError, match=says):
        read_ledger(text)
    assert ledger_problems(_Made, text, ROOT)[0].startswith("made's page: ")


def test_a_class_test_and_a_parametrised_test_are_found_by_their_node_ids():
    here = "tests/test_fidelity_ledgers.py"
    assert (
        node_problem(f"{here}::test_a_page_without_the_section_or_with_another_table_shape_is_refused[x]", ROOT) is None
    )
    assert node_problem(f"{here}::_Made::run", ROOT) is None
    assert "defines no _Made::walk" in (node_problem(f"{here}::_Made::walk", ROOT) or "")
    assert option_problem(_Made, "widen=false") is None
    assert option_problem(_Made, "--repeats 3", {"--repeats"}) is None
