"""Test lanes: each collected test is marked by what it uses, so a run can leave the slow kinds out.

The markers (registered in pyproject.toml, ``--strict-markers``):

* ``model``: loads a real language model or its files in this process or a subprocess it starts
  (the embedded SmolLM2, transformers, a tokenizer from ``from_pretrained``);
* ``server``: starts a real inference server (llama.cpp's, vLLM);
* ``browser``: drives the system chromium (``tests/browser``, Playwright, a study report's PNG figures);
* ``postgres``: needs the throwaway PostgreSQL server (``tests/postgres``, the ``postgres_server`` fixture);
* ``fuzz``: a property test (``tests/properties``, or any test driven by Hypothesis's ``@given``).

``FAST_LANE`` (what ``make test-fast`` selects) is every test that is neither ``model``, ``server``
nor ``browser``. ``mark_lanes`` (called from tests/plugin.py) infers the markers, so a new test is
classified without anyone remembering a decorator: by its folder, by the fixtures it requests, and by
the code it runs, read statically: the test function, every fixture in its closure, every class or
function given as a parameter, and every helper of a test package (``tests`` or a protocol's own
``protocols.<name>.tests``) that these name, followed transitively (library code is not read: it names
every backend). A test can still carry a marker by
hand (``@pytest.mark.model`` or a module's ``pytestmark``); inference only adds markers, never removes
one. It does not run anything or watch what a test does at run time: a test that reaches a model
only through a helper outside ``tests`` is not seen and needs a marker by hand.

``--shard K/N`` (tests/shards.py) splits what was selected into N parts of whole files, so that
``make test-fast`` can run its lane as N pytest processes side by side.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

LANES = ("model", "server", "browser", "postgres", "fuzz")  # registered in pyproject.toml
FAST_LANE = "not model and not server and not browser"

TESTS_ROOT = Path(__file__).resolve().parent

# A test under tests/<folder>/ belongs to these lanes.
FOLDER_LANES: dict[str, tuple[str, ...]] = {
    "browser": ("browser",),
    "postgres": ("postgres",),
    "properties": ("fuzz",),
    "vllm": ("server",),
}

# A test that requests one of these fixtures (directly or through another fixture) belongs to the lane.
FIXTURE_LANES: dict[str, tuple[str, ...]] = {
    "postgres_server": ("postgres",),
    "vllm_server": ("server",),
    "browser": ("browser",),
}

# Code that names one of these (docstrings and comments are not read) belongs to the lane, unless it also
# names the exception (a test that points the app away from the thing, to check what happens without it).
CODE_LANES: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...] = (
    (
        "model",
        re.compile(
            r"\bTransformersBackend\(|\bembedded_model_dir\(|\bload_model\(|\.from_pretrained\("
            r"|\bEMBEDDED\b|['\"]--backend['\"],\s*['\"]transformers['\"]"
            # the web app's model choices, picked by a browser test: the app loads the model it names
            r"|['\"]embedded SmolLM2-135M"
        ),
        None,
    ),
    (
        "server",
        re.compile(
            r"\bLlamaCppServer\(|\bLlamaCppBackend\(|\bxllamacpp\b|\bvllm\.entrypoints\b|\bEMBEDDED_LLAMACPP\b"
            r"|['\"]--backend['\"],\s*['\"]llamacpp['\"]|SmolLM2-135M on llama\.cpp['\"]"
        ),
        None,
    ),
    # Playwright, or a study report's PNG figures (drawn by the system chromium, found by BROWSER_PATH).
    ("browser", re.compile(r"\b(?:sync|async)_playwright\(|\bpng=True\b"), re.compile(r"\bBROWSER_PATH\b")),
)


def folder_lanes(path: Path) -> set[str]:
    """The lanes of a test file by the folder of tests/ it lies in (none outside tests/)."""
    try:
        parts = path.resolve().relative_to(TESTS_ROOT).parts
    except ValueError:
        return set()
    return {lane for part in parts[:-1] for lane in FOLDER_LANES.get(part, ())}


@functools.cache
def _reads(obj: Any) -> tuple[frozenset[str], tuple[Any, ...]]:
    """The lanes that the code of ``obj`` (a test helper) names, and the test helpers it names."""
    code = _code_of(obj)
    if code is None:
        return frozenset(), ()
    lanes = frozenset(
        lane
        for lane, pattern, unless in CODE_LANES
        if pattern.search(code) and not (unless is not None and unless.search(code))
    )
    namespace = getattr(obj, "__globals__", None)
    if namespace is None:
        module = sys.modules.get(getattr(obj, "__module__", ""))
        namespace = vars(module) if module is not None else {}
    names = {node.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Name)}
    helpers = tuple(_unwrapped(namespace[name]) for name in sorted(names & namespace.keys()))
    return lanes, tuple(helper for helper in helpers if _is_test_helper(helper))


def _code_of(obj: Any) -> str | None:
    """The code of a function or class without its docstrings and comments; None when it has no source."""
    try:
        source = inspect.getsource(obj)
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent(source))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0] = ast.Pass()
        if isinstance(node, ast.Call) and _called_name(node) == "parse_args":
            node.args, node.keywords = [], []  # parsing options (``--backend transformers``) loads nothing
    return ast.unparse(tree)


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


# The packages whose code is read: tests/ and each protocol's own tests (protocols/<name>/tests/).
TEST_PACKAGE = re.compile(r"(?:tests|protocols\.[^.]+\.tests)(?:\..+)?")


def _is_test_helper(obj: Any) -> bool:
    """A function or class defined in a test package (helpers worth reading; library code is not)."""
    obj = _unwrapped(obj)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return False
    return TEST_PACKAGE.fullmatch(getattr(obj, "__module__", "") or "") is not None


def code_lanes(roots: Iterable[Any]) -> set[str]:
    """The lanes named by the code of ``roots`` and of every test-package helper they name, transitively."""
    lanes: set[str] = set()
    seen: set[Any] = set()
    pending = [_unwrapped(obj) for obj in roots if _is_test_helper(obj)]
    while pending:
        obj = pending.pop()
        if obj in seen:
            continue
        seen.add(obj)
        direct, helpers = _reads(obj)
        lanes.update(direct)
        pending.extend(helpers)
    return lanes


def lanes_of(item: pytest.Item) -> set[str]:
    """Every lane ``item`` belongs to, by its folder, its fixtures and the code it runs."""
    lanes = folder_lanes(Path(str(item.path)))
    if not isinstance(item, pytest.Function):
        return lanes
    for name in item.fixturenames:
        lanes.update(FIXTURE_LANES.get(name, ()))
    roots: list[Any] = [item.function]
    if getattr(item.function, "is_hypothesis_test", False):
        lanes.add("fuzz")
    # Each requested fixture's function, as this item resolves it (the last definition overrides).
    info = getattr(item, "_fixtureinfo", None)
    for definitions in getattr(info, "name2fixturedefs", {}).values():
        if definitions:
            roots.append(getattr(definitions[-1], "func", None))
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        roots.extend(callspec.params.values())
    lanes.update(code_lanes(root for root in roots if root is not None))
    return lanes


def _unwrapped(obj: Any) -> Any:
    """A decorated function (``functools.cache``, Hypothesis's ``@given``) as the function its author wrote."""
    inner = getattr(getattr(obj, "hypothesis", None), "inner_test", None)
    if inner is not None:
        return inner
    try:
        return inspect.unwrap(obj)
    except ValueError:  # a cycle of __wrapped__
        return obj


def mark_lanes(items: Iterable[pytest.Item]) -> None:
    """Add each item's inferred lane markers (a marker it already carries is kept, not repeated)."""
    for item in items:
        carried = {mark.name for mark in item.iter_markers()}
        for lane in sorted(lanes_of(item) - carried):
            item.add_marker(lane)
