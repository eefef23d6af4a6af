"""The fixtures and hooks shared by every test folder: tests/ and each protocol's ``protocols/<name>/tests/``.

The root conftest.py registers this module once (``pytest_plugins``), so a test in either place gets the
same fixtures (``script_backend``, ``segmenter``, ``real_segmenter``), the same lane markers
(tests/lanes.py) and the same ``--shard K/N`` option (tests/shards.py). The plain helpers these fixtures
hand out are in tests/conftest.py; this module holds no helper of its own and runs no test.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest

from debate_core import ScriptedBackend
from debate_core.kernel.sentences import default_sentence_chunker as default_segmenter
from tests.conftest import SentenceSplitter, build_script_backend
from tests.lanes import mark_lanes
from tests.shards import parse_shard, shard

# -- fixtures ------------------------------------------------------------------------


@pytest.fixture
def script_backend() -> Callable[..., ScriptedBackend]:
    return build_script_backend


@pytest.fixture
def segmenter() -> SentenceSplitter:
    return SentenceSplitter()


@pytest.fixture(scope="session")
def real_segmenter() -> Any:
    """The engine's default spaCy segmenter (loaded once per session)."""
    return default_segmenter()


# -- lanes ---------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shard",
        metavar="K/N",
        help=(
            "run only the K-th of N parts of the selected tests, whole test files balanced by tests/durations.json"
            " (make test-fast runs them)"
        ),
    )


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Generator[None, None, None]:
    """Mark every test with its lanes before ``-m`` selects by them; then keep this run's shard of the rest."""
    mark_lanes(items)
    result = yield
    if config.getoption("shard"):
        dropped = shard(items, *parse_shard(config.getoption("shard")))
        if dropped:
            config.hook.pytest_deselected(items=dropped)
    return result


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A shard that happens to hold no test (``--shard 2/2`` on one file) has nothing to fail: exit 0."""
    if session.config.getoption("shard") and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK
