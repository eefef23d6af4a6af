"""A protocol's fidelity ledger: read it from its page and check it against the protocol and its tests.

What it does: a protocol's page (``docs.md`` beside its package, for the
built-ins ``protocols/<name>/docs.md``) carries a section headed exactly
``## Fidelity ledger`` holding one markdown table whose header is exactly
``| mechanism | paper | here | default | test |`` (docs/fidelity.md explains
the rule and how to read it). ``read_ledger(text)`` returns its rows
(``LedgerRow``) or raises ``LedgerError`` saying what is missing.
``ledger_problems(protocol, text, root, flags)`` returns, one line each
naming the protocol and the row, everything that breaks the format:

* ``paper``: where in the paper (``§3.2``, ``Eq. 4``, ``Table 1``, ``Alg. 1``,
  ``Fig. 2``, ``App. C``), or ``—`` on an ``option`` row for something the
  paper does not have (this project's own addition);
* ``default``: ``as the paper`` (``as the paper's code`` where the paper is
  silent and its authors' code decides); or ``option`` followed by the
  backticked names of the options, then `` — `` and the reason; or
  ``not yet — `` the reason with the issue (``#27``) that will build it; or
  ``out of reach — `` why this project cannot build it (a model or service it
  cannot reach, data it may not hold), said so a reader knows the gap is known;
* every option named exists: a variant of the protocol (``mad``, or as a
  study names a system, ``sid/mad``, ``handraiser/threshold:tau=0.3``), a
  field of its ``Params`` (``rho``) with a value it accepts (``rho=0.5``), or
  a command-line flag among ``flags`` (``--repeats``; a span may hold a
  command before its flags, ``compare --repeats 3``);
* ``test``: one or more backticked pytest node ids, comma separated
  (``path/to/test_file.py::test_name``, ``...::Class::test_name``; a
  parametrised test without its brackets), each naming a file under
  ``root`` that defines that test; a ``not yet`` or ``out of reach`` row may have ``—``.

``protocol_docs(cls)`` is where a protocol's page lies (beside its package).

What it does not do: find the command-line flags (the caller passes them, so
the engine imports no front end), run the tests it names, judge whether a
row is true (a reader does), or know which protocols must have no ``not
yet`` rows (the project's test says so).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from debate_core.protocols.base import Protocol

HEADING = "## Fidelity ledger"
HEADER = "| mechanism | paper | here | default | test |"
DASH = "—"
KINDS = ("as the paper", "option", "not yet", "out of reach")
_PLACES = re.compile(r"§|\b(?:Eqs?|Tab|Alg|Fig|App|Sec)\.|\b(?:Table|Algorithm|Figure|Appendix|Section|Equation)\b")
_KIND = re.compile(r"^(as the paper|option|not yet|out of reach)\b")
_TICKED = re.compile(r"`([^`]+)`")
_ISSUE = re.compile(r"#\d+\b")
_SEPARATORS = re.compile(r"^(?:\s|,|\band\b|\bor\b|/)*$")
_NODE = re.compile(r"^(?P<path>[\w./-]+\.py)(?P<names>(?:::\w+)+)(?:\[.*\])?$")


class LedgerError(ValueError):
    """A page has no ledger, or its ledger is not one table of the required shape."""


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One row of a ledger as written, with its line number on the page (1-based)."""

    line: int
    mechanism: str
    paper: str
    here: str
    default: str
    test: str

    @property
    def kind(self) -> str | None:
        """``as the paper``, ``option``, ``not yet`` or ``out of reach``, by how the default cell begins (None:
        none of them)."""
        found = _KIND.match(self.default.strip())
        return found[1] if found else None

    @property
    def options(self) -> tuple[str, ...]:
        """The backticked option names of an ``option`` row (before its `` — ``)."""
        if self.kind != "option":
            return ()
        head = self.default.strip().removeprefix("option").split(f" {DASH} ", 1)[0]
        return tuple(_TICKED.findall(head))

    @property
    def tests(self) -> tuple[str, ...]:
        return tuple(_TICKED.findall(self.test))

    def where(self, protocol: str) -> str:
        return f"{protocol}'s ledger, line {self.line} ({self.mechanism or 'no mechanism'})"


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]


def read_ledger(text: str) -> list[LedgerRow]:
    """The rows of the page's ledger; ``LedgerError`` when the section, its table or its header is missing."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == HEADING]
    if not starts:
        raise LedgerError(f"no section headed exactly {HEADING!r}")
    if len(starts) > 1:
        raise LedgerError(f"{len(starts)} sections headed {HEADING!r}; one is allowed")
    start = starts[0] + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    section = list(range(start, end))
    tables: list[list[int]] = []
    for i in section:
        if lines[i].lstrip().startswith("|"):
            if tables and tables[-1][-1] == i - 1:
                tables[-1].append(i)
            else:
                tables.append([i])
    if len(tables) != 1:
        raise LedgerError(f"the section {HEADING!r} holds {len(tables)} tables; it must hold exactly one")
    table = tables[0]
    if " ".join(lines[table[0]].split()) != HEADER:
        raise LedgerError(f"the ledger's header is {lines[table[0]].strip()!r}, not {HEADER!r}")
    if len(table) < 2 or not re.fullmatch(r"\|(\s*:?-{3,}:?\s*\|){5}", lines[table[1]].replace(" ", "")):
        raise LedgerError("the ledger's header is not followed by its |---| line")
    rows = []
    for i in table[2:]:
        cells = _cells(lines[i])
        if len(cells) != 5:
            raise LedgerError(f"line {i + 1} has {len(cells)} cells, not 5: {lines[i].strip()[:80]!r}")
        rows.append(LedgerRow(i + 1, *cells))
    if not rows:
        raise LedgerError("the ledger has no rows")
    return rows


def protocol_docs(cls: type[Protocol]) -> Path:
    """The page of a protocol: ``docs.md`` in the folder of the package that defines the class."""
    module = sys.modules[cls.__module__]
    package = Path(module.__file__ or "").parent
    return package / "docs.md"


def option_problem(cls: type[Protocol], name: str, flags: Iterable[str] = ()) -> str | None:
    """Why ``name`` (as written in a ledger's default cell) names no option of ``cls`` (None: it does)."""
    words = name.split()
    flagged = [word.split("=", 1)[0] for word in words if word.startswith("--")]
    if flagged:
        known = set(flags)
        unknown = [flag for flag in flagged if flag not in known]
        return f"{', '.join(unknown)} is no command-line flag" if unknown else None
    if len(words) != 1:
        return f"{name!r} is neither a variant, a parameter nor a command-line flag"
    if "/" in name:
        protocol, _, system = name.partition("/")
        if protocol != cls.name:
            return f"{name!r} names the protocol {protocol!r}, not {cls.name!r}"
        variant, _, settings = system.partition(":")
        if variant not in cls.variants:
            return f"{variant!r} is no variant of {cls.name} ({', '.join(cls.variants)})"
        problems = [p for p in (_param_problem(cls, s) for s in settings.split(",") if s) if p]
        return "; ".join(problems) or None
    if name in cls.variants:
        return None
    return _param_problem(cls, name)


def _param_problem(cls: type[Protocol], setting: str) -> str | None:
    key, has_value, value = setting.partition("=")
    fields = cls.Params.model_fields
    if key not in fields:
        return f"{key!r} is neither a variant ({', '.join(cls.variants)}) nor a parameter of {cls.name}"
    if not has_value:
        return None
    try:
        cls.Params.model_validate({key: value})
    except ValidationError as error:
        wrong = [e for e in error.errors() if e["loc"] and e["loc"][0] == key]
        if wrong:
            return f"{key}={value} is refused: {wrong[0]['msg']}"
    return None


def node_problem(node: str, root: Path) -> str | None:
    """Why the pytest node id ``node`` names no test under ``root`` (None: the test exists)."""
    found = _NODE.match(node)
    if found is None:
        return f"{node!r} is not a pytest node id (path/to/test_file.py::test_name)"
    path = root / found["path"]
    if not path.is_file():
        return f"{found['path']} does not exist"
    names = found["names"].split("::")[1:]
    scope: list[ast.stmt] = ast.parse(path.read_text(encoding="utf-8")).body
    for depth, name in enumerate(names):
        last = depth == len(names) - 1
        match = next((node for node in scope if _defines(node, name, last)), None)
        if match is None:
            return f"{found['path']} defines no {'::'.join(names[: depth + 1])}"
        scope = match.body if isinstance(match, ast.ClassDef) else []
    return None


def _defines(node: ast.stmt, name: str, last: bool) -> bool:
    if last and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name == name
    if isinstance(node, ast.ClassDef):
        return node.name == name and not last
    return False


def ledger_problems(cls: type[Protocol], text: str, root: Path, flags: Iterable[str] = ()) -> list[str]:
    """Everything that breaks the ledger's format on the page ``text`` of protocol ``cls`` (see the module)."""
    try:
        rows = read_ledger(text)
    except LedgerError as error:
        return [f"{cls.name}'s page: {error}"]
    known = frozenset(flags)
    problems = []
    for row in rows:
        where = row.where(cls.name)
        problems += [f"{where}: {p}" for p in _row_problems(cls, row, root, known)]
    return problems


def _row_problems(cls: type[Protocol], row: LedgerRow, root: Path, flags: frozenset[str]) -> list[str]:
    problems = []
    if not row.mechanism:
        problems.append("the mechanism cell is empty")
    if not row.here:
        problems.append("the here cell is empty")
    kind = row.kind
    if kind is None:
        problems.append(f"the default cell {row.default[:60]!r} begins with none of {', '.join(KINDS)}")
    elif kind == "option":
        head, dash, reason = row.default.strip().removeprefix("option").partition(f" {DASH} ")
        if not row.options or not _SEPARATORS.match(_TICKED.sub("", head)):
            problems.append(f"an option row names its options in backticks after 'option', then ' {DASH} '")
        if not dash or not reason.strip():
            problems.append(f"an option row gives its reason after ' {DASH} '")
        problems += [p for p in (option_problem(cls, name, flags) for name in row.options) if p]
    elif kind == "not yet":
        _, dash, reason = row.default.strip().partition(f" {DASH} ")
        if not dash or not reason.strip():
            problems.append(f"a not yet row gives its reason after ' {DASH} '")
        if not _ISSUE.search(reason):
            problems.append("a not yet row names the issue that will build it (#N)")
    elif kind == "out of reach":
        _, dash, reason = row.default.strip().partition(f" {DASH} ")
        if not dash or not reason.strip():
            problems.append(f"an out of reach row says why after ' {DASH} '")
    if row.paper.strip() == DASH:
        if kind != "option":
            problems.append(f"only an option row (this project's own addition) may have {DASH} for the paper")
    elif not _PLACES.search(row.paper):
        problems.append(f"the paper cell {row.paper[:40]!r} says no place in the paper (§, Eq., Table, Alg., ...)")
    if row.test.strip() == DASH:
        if kind not in ("not yet", "out of reach"):
            problems.append(f"only a not yet or out of reach row may have {DASH} for its test")
    else:
        parts = [part.strip() for part in row.test.split(",")]
        if not parts or not all(_TICKED.fullmatch(part) for part in parts):
            problems.append("the test cell holds backticked pytest node ids, comma separated")
        problems += [p for p in (node_problem(node, root) for node in row.tests) if p]
    return problems


__all__ = [
    "DASH",
    "HEADER",
    "HEADING",
    "KINDS",
    "LedgerError",
    "LedgerRow",
    "ledger_problems",
    "node_problem",
    "option_problem",
    "protocol_docs",
    "read_ledger",
]
