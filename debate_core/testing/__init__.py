"""Checks a protocol's own test suite can call: the conformance every registered protocol keeps.

What it does: re-exports ``debate_core.testing.conformance`` (the cases, one
per registered protocol and variant, and the engine-side checks: the scripted
demo runs, the stream is possible, survives the codec, every fold given
consumes it, a person can fill every form in every seat a person may take) and ``debate_core.testing.people``
(the automatic person that fills forms from their fields) and
``debate_core.testing.ledger`` (a protocol's fidelity ledger, read from its
page and checked against the protocol and the tests it names).

What it does not do: import pytest or any front end (``ui``, ``storage``,
``console``, ``experiments``): checks that need them live in the project's
test suite (``tests/conformance``), which calls these.
"""

from debate_core.testing.conformance import (
    QUESTION,
    Case,
    ConformanceError,
    DemoRun,
    case_for,
    case_ids,
    check_codec,
    check_demo,
    check_folds,
    check_forms,
    check_hand_over,
    check_people,
    check_run,
    people_seats,
    run_demo,
)
from debate_core.testing.ledger import LedgerError, LedgerRow, ledger_problems, protocol_docs, read_ledger
from debate_core.testing.people import AutoPerson, candidate_values, fill_form

__all__ = [
    "QUESTION",
    "AutoPerson",
    "Case",
    "ConformanceError",
    "DemoRun",
    "LedgerError",
    "LedgerRow",
    "candidate_values",
    "case_for",
    "case_ids",
    "check_codec",
    "check_demo",
    "check_folds",
    "check_forms",
    "check_hand_over",
    "check_people",
    "check_run",
    "fill_form",
    "ledger_problems",
    "people_seats",
    "protocol_docs",
    "read_ledger",
    "run_demo",
]
