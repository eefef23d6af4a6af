"""The test lanes and shards: what ``make test-fast`` leaves out, found from what a test uses
(tests/lanes.py), and how it splits the rest between its processes (tests/shards.py).

The samples below are never called: the lanes are read from their code. The tests reach them
through ``SAMPLES`` (a dict, which the lane inference does not follow), so that these tests
themselves stay in the fast lane.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_GUARD_S
from tests.lanes import FAST_LANE, LANES, code_lanes, folder_lanes
from tests.shards import assign, parse_shard, shard

ROOT = Path(__file__).resolve().parents[1]


# -- samples (never called) ------------------------------------------------------------


def _loads_the_embedded_model() -> Any:
    from debate_core.backends.hf import TransformersBackend

    return TransformersBackend()


def _through_a_helper() -> Any:
    return _loads_the_embedded_model()


@functools.cache
def _cached_server() -> Any:
    from debate_core.backends.openai import LlamaCppServer

    return LlamaCppServer(None)


class _ServerReference:
    def make(self) -> Any:
        return _cached_server()


def _runs_the_cli_on_the_embedded_model() -> list[str]:
    return [sys.executable, "-m", "debate_core", "run", "--backend", "transformers", "--budget", "40"]


def _only_parses_options(parser: Any) -> Any:
    return parser.parse_args(["run", "--backend", "transformers"])


def _mentions_the_model_in_words_only() -> None:
    """TransformersBackend() and LlamaCppServer(None) are named here, in a docstring only."""
    # embedded_model_dir() in a comment is not code either
    return None


def _draws_png_figures(store: Any, out: Path) -> Any:
    from protocols.kimura.study.report import write_report

    return write_report(store, "toy", out, png=True)


def _draws_png_figures_without_a_browser(store: Any, out: Path, monkeypatch: Any) -> Any:
    from protocols.kimura.study.report import write_report

    monkeypatch.setenv("BROWSER_PATH", str(out / "no-such-browser"))
    return write_report(store, "toy", out, png=True)


def _picks_the_embedded_model_in_the_app(page: Any, choose: Any) -> None:
    choose(page, "backend-choice", "embedded SmolLM2-135M (CPU)")


def _picks_the_embedded_model_on_llamacpp_in_the_app(page: Any, choose: Any) -> None:
    choose(page, "backend-choice", "embedded SmolLM2-135M on llama.cpp")


SAMPLES: dict[str, Any] = {
    "loads the embedded model": _loads_the_embedded_model,
    "through a helper": _through_a_helper,
    "a class whose method calls a cached helper": _ServerReference,
    "runs the cli on the embedded model": _runs_the_cli_on_the_embedded_model,
    "only parses options": _only_parses_options,
    "mentions the model in words only": _mentions_the_model_in_words_only,
    "draws png figures": _draws_png_figures,
    "draws png figures without a browser": _draws_png_figures_without_a_browser,
    "picks the embedded model in the app": _picks_the_embedded_model_in_the_app,
    "picks the embedded model on llama.cpp in the app": _picks_the_embedded_model_on_llamacpp_in_the_app,
}


@pytest.mark.parametrize(
    ("sample", "lanes"),
    [
        ("loads the embedded model", {"model"}),
        ("through a helper", {"model"}),
        ("a class whose method calls a cached helper", {"server"}),
        ("runs the cli on the embedded model", {"model"}),
        ("only parses options", set()),
        ("mentions the model in words only", set()),
        ("draws png figures", {"browser"}),
        ("draws png figures without a browser", set()),
        # a browser test that picks a model in the web app: the app's process loads it (or starts its server)
        ("picks the embedded model in the app", {"model"}),
        ("picks the embedded model on llama.cpp in the app", {"model", "server"}),
    ],
)
def test_a_test_is_in_the_lanes_its_code_and_its_helpers_use(sample, lanes):
    assert code_lanes([SAMPLES[sample]]) == lanes


def test_folders_give_their_lanes():
    tests = Path(__file__).resolve().parent
    assert folder_lanes(tests / "browser" / "test_new.py") == {"browser"}
    assert folder_lanes(tests / "postgres" / "test_new.py") == {"postgres"}
    assert folder_lanes(tests / "properties" / "test_new.py") == {"fuzz"}
    assert folder_lanes(tests / "vllm" / "test_new.py") == {"server"}
    assert folder_lanes(tests / "test_new.py") == set()


def test_every_lane_is_a_registered_marker():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for lane in LANES:
        assert f'"{lane}: ' in pyproject
    assert "--strict-markers" in pyproject


# One pytest process collects every selection these tests compare (``pytest.main`` once per selection,
# each a session of its own, as on the command line): a process per selection would start the
# interpreter and import the project each time.
_COLLECT = """
import json, sys
import pytest

class Collected:
    def pytest_collection_finish(self, session):
        self.ids = [item.nodeid for item in session.items]

found = []
for args in json.loads(sys.argv[1]):
    plugin = Collected()
    status = int(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *args], plugins=[plugin]))
    found.append([status, getattr(plugin, "ids", [])])
print("COLLECTED " + json.dumps(found))
"""


def collected(*selections: list[str]) -> list[list[str]]:
    """The node ids pytest collects for each of ``selections`` (argument lists, run from the project's root)."""
    result = subprocess.run(
        [sys.executable, "-c", _COLLECT, json.dumps(selections)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=HANG_GUARD_S,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("COLLECTED ")]
    assert result.returncode == 0 and lines, result.stdout + result.stderr
    found = json.loads(lines[-1].removeprefix("COLLECTED "))
    for (status, _), args in zip(found, selections, strict=True):
        assert status in (0, 5), f"{args}: exit {status}\n{result.stdout}{result.stderr}"  # 5: all deselected
    return [ids for _, ids in found]


CONTRACT = "tests/contract/test_backend_contract.py"
# Files from tests/ and from a protocol's own tests/: a shard is a set of whole files wherever they lie.
SHARDED = ("tests/test_golden.py", "tests/test_folds.py", "protocols/kimura/tests/test_prompts.py")
# A protocol's own tests, one on the embedded model (its code names the backend), one scripted only.
PROTOCOL_TESTS = ("protocols/sid/tests/test_sid_embedded.py", "protocols/parliament/tests/test_parliament.py")


@pytest.fixture(scope="module")
def selections() -> dict[str, list[str]]:
    """The selections the tests below compare, collected by one pytest process."""
    wanted = {
        "fast": ["-m", FAST_LANE, CONTRACT, "tests/test_embedded_debate.py"],
        "model": ["-m", "model", CONTRACT],
        "server": ["-m", "server", CONTRACT],
        "sharded": ["-m", FAST_LANE, *SHARDED],
        "shard 1/2": ["-m", FAST_LANE, "--shard", "1/2", *SHARDED],
        "shard 2/2": ["-m", FAST_LANE, "--shard", "2/2", *SHARDED],
        "protocol fast": ["-m", FAST_LANE, *PROTOCOL_TESTS],
        "protocol model": ["-m", "model", *PROTOCOL_TESTS],
    }
    return dict(zip(wanted, collected(*wanted.values()), strict=True))


def test_the_fast_lane_keeps_the_scripted_contract_and_leaves_out_real_models_and_servers(selections):
    fast = selections["fast"]
    assert fast and all("transformers-embedded" not in i and "openai-llamacpp" not in i for i in fast)
    assert any("[scripted" in i for i in fast)
    assert not [i for i in fast if i.startswith("tests/test_embedded_debate.py")]
    model = selections["model"]
    assert model and all("[transformers-embedded" in i for i in model)
    server = selections["server"]
    assert server and all("[openai-llamacpp" in i for i in server)


def test_a_protocols_own_tests_are_marked_by_their_code_as_those_in_tests_are(selections):
    """protocols/<name>/tests/ is read as tests/ is: a model test there is left out of the fast lane."""
    embedded, scripted = PROTOCOL_TESTS
    model = selections["protocol model"]
    assert model and all(i.startswith(embedded + "::") for i in model)
    fast = selections["protocol fast"]
    assert any(i.startswith(scripted + "::") for i in fast)
    assert not [i for i in fast if i.startswith(embedded + "::")]


def test_the_shards_split_the_selection_by_whole_files(selections):
    everything = selections["sharded"]
    parts = [selections["shard 1/2"], selections["shard 2/2"]]
    assert sorted(parts[0] + parts[1]) == sorted(everything)
    owners = [{i.split("::")[0] for i in part} for part in parts]
    assert owners[0] and owners[1] and not owners[0] & owners[1]


def test_make_test_runs_the_slow_lanes_beside_the_rest_and_so_every_test_once():
    """The models and servers in one run; beside it the fast lane and the browser tests of the scripted app."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "QUICK_LANE := not model and not server\n" in makefile
    assert "FAST_LANE ?= $(QUICK_LANE) and not browser\n" in makefile
    assert FAST_LANE == "not model and not server and not browser"
    parts = makefile.split("\ntest-part-slow:\n", 1)[1].split("\n\n", 2)
    assert '-m "not ($(QUICK_LANE))"' in parts[0] and parts[1].startswith("test-part-quick:\n")
    assert '-m "$(QUICK_LANE)"' in parts[1]
    assert "test-part-slow test-part-quick" in makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]


# -- shards, in this process --------------------------------------------------------------


class _Item:
    """What ``shard`` reads of a collected test: its file and its lane markers."""

    def __init__(self, path: str, *lanes: str) -> None:
        self.path = ROOT / path
        self.lanes = lanes

    def get_closest_marker(self, name: str) -> Any:
        return name if name in self.lanes else None


def _items() -> list[Any]:
    files = {"tests/a.py": 30, "tests/b.py": 5, "tests/c.py": 5, "tests/d.py": 12, "tests/e.py": 1}
    items = [_Item(name) for name, count in files.items() for _ in range(count)]
    return [*items, _Item("tests/e.py", "model"), _Item("tests/e.py", "browser")]


COSTS = {"tests/a.py": {"fast": 1.0}, "tests/e.py": {"fast": 1.0, "slow": 20.0}}  # b, c, d: the median, 1 s


@pytest.mark.parametrize("parts", [1, 2, 3, 5])
def test_every_test_is_in_exactly_one_shard_and_keeps_its_order(parts):
    items = _items()
    shards = []
    for part in range(1, parts + 1):
        kept = list(items)
        dropped = shard(kept, part, parts, COSTS)
        assert sorted(map(id, kept + dropped)) == sorted(map(id, items))
        shards.append(kept)
    assert sorted(id(item) for part in shards for item in part) == sorted(map(id, items))
    for kept in shards:
        assert kept == [item for item in items if item in kept]  # the collection's order
        files = {item.path for item in kept}
        assert all(item.path not in files for other in shards if other is not kept for item in other)


def test_the_shards_balance_by_the_cost_of_what_was_selected():
    items = _items()  # a: 30 s, e: 1 + 2 x 20 = 41 s, d: 12 s, b and c: 5 s each
    loads = []
    for part in (1, 2):
        kept = list(items)
        shard(kept, part, 2, COSTS)
        loads.append(sorted({item.path.name for item in kept}))
    assert loads == [["b.py", "e.py"], ["a.py", "c.py", "d.py"]]  # 46 s against 47 s
    fast_only = [item for item in items if not item.lanes]  # e now costs 1 s: a's 30 s against the rest
    kept = list(fast_only)
    shard(kept, 1, 2, COSTS)
    assert sorted({item.path.name for item in kept}) == ["a.py"]


def test_files_go_dearest_first_to_the_cheapest_part():
    assert assign({"x": 5.0, "y": 4.0, "z": 3.0, "w": 3.0}, 2) == {"x": 0, "y": 1, "w": 1, "z": 0}
    assert assign({"b": 1.0, "a": 1.0}, 2) == {"a": 0, "b": 1}  # ties by name: the same in every process
    assert assign({}, 3) == {}


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", ""])
def test_a_shard_outside_one_to_n_is_a_usage_error(text):
    with pytest.raises(pytest.UsageError, match="K/N"):
        parse_shard(text)
