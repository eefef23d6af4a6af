"""The test lanes: what ``make test-fast`` leaves out, found from what a test uses (tests/lanes.py).

The samples below are never called: the lanes are read from their code. The tests reach them
through ``SAMPLES`` (a dict, which the lane inference does not follow), so that these tests
themselves stay in the fast lane.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_GUARD_S
from tests.lanes import FAST_LANE, LANES, code_lanes, folder_lanes, parse_shard

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


SAMPLES: dict[str, Any] = {
    "loads the embedded model": _loads_the_embedded_model,
    "through a helper": _through_a_helper,
    "a class whose method calls a cached helper": _ServerReference,
    "runs the cli on the embedded model": _runs_the_cli_on_the_embedded_model,
    "only parses options": _only_parses_options,
    "mentions the model in words only": _mentions_the_model_in_words_only,
    "draws png figures": _draws_png_figures,
    "draws png figures without a browser": _draws_png_figures_without_a_browser,
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


def collected(*args: str) -> list[str]:
    """The node ids ``pytest --collect-only`` lists for ``args`` (run from the project's root)."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=HANG_GUARD_S,
    )
    assert result.returncode in (0, 5), result.stdout + result.stderr  # 5: everything deselected
    return [line for line in result.stdout.splitlines() if "::" in line]


CONTRACT = "tests/contract/test_backend_contract.py"


def test_the_fast_lane_keeps_the_scripted_contract_and_leaves_out_real_models_and_servers():
    fast = collected("-m", FAST_LANE, CONTRACT, "tests/test_embedded_debate.py")
    assert fast and all("transformers-embedded" not in i and "openai-llamacpp" not in i for i in fast)
    assert any("[scripted" in i for i in fast)
    assert not [i for i in fast if i.startswith("tests/test_embedded_debate.py")]
    model = collected("-m", "model", CONTRACT)
    assert model and all("[transformers-embedded" in i for i in model)
    server = collected("-m", "server", CONTRACT)
    assert server and all("[openai-llamacpp" in i for i in server)


def test_the_shards_split_the_selection_by_whole_files():
    files = ("tests/test_golden.py", "tests/test_folds.py", "tests/test_prompts.py")
    everything = collected("-m", FAST_LANE, *files)
    parts = [collected("-m", FAST_LANE, "--shard", f"{k}/2", *files) for k in (1, 2)]
    assert sorted(parts[0] + parts[1]) == sorted(everything)
    owners = [{i.split("::")[0] for i in part} for part in parts]
    assert owners[0] and owners[1] and not owners[0] & owners[1]


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", ""])
def test_a_shard_outside_one_to_n_is_a_usage_error(text):
    with pytest.raises(pytest.UsageError, match="K/N"):
        parse_shard(text)
