"""Debates on a real llama.cpp server (xllamacpp) serving the embedded SmolLM2 GGUF on loopback.

``--backend llamacpp`` starts the server itself and stops it with the backend; ``--backend openai``
reaches one that is already running. Model work is bounded by tokens and turns. The backend's
signals, continuation and cancellation against the same server are in tests/contract.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import httpx
import pytest

from console.cli import main
from debate_core import AgentSpec, Debate, DebateConfig, Question
from debate_core.backends.base import GenerationRequest, Message, SamplingParams
from debate_core.backends.openai import LlamaCppBackend, OpenAIBackend
from debate_core.errors import BackendError, ConfigError
from debate_core.events import DebateEnded, InitialAnswersGiven, PlansMade, UnitDisclosed

LABELS = ("A", "B", "C", "D")
QUESTION = Question(
    text="Which of the following is the body cavity that contains the pituitary gland?",
    options=("Abdominal", "Cranial", "Pleural", "Spinal"),
    answer="B",
)


def small_config(params: dict | None = None, **fields) -> DebateConfig:
    defaults = dict(
        question=QUESTION,
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny")),
        condition="interruptible",
        token_budget=60,  # seven to ten turns: speech, interruptions and the prefix cache at work
        seed=3,
        max_new_tokens=128,
    )
    kimura = {"utterance_max_new_tokens": 40, "prompt_layout": "cached", **(params or {})}
    return DebateConfig(**{**defaults, **fields, "params": kimura})


@pytest.fixture(scope="module")
def llamacpp() -> LlamaCppBackend:
    backend = LlamaCppBackend(None, threads=1, parallel=4)
    yield backend
    backend.close()


def test_an_interruptible_debate_runs_on_llamacpp_with_every_plan_valid(llamacpp):
    events = Debate(small_config(), llamacpp).run()
    end = events[-1]
    assert isinstance(end, DebateEnded) and end.error is None
    assert end.final_answer in LABELS
    initial = next(e for e in events if isinstance(e, InitialAnswersGiven))
    assert all(a.valid and a.answer in LABELS for a in initial.answers)
    plans = [r for e in events if isinstance(e, PlansMade) for r in e.plans]
    assert plans and all(r.valid for r in plans), [r.error for r in plans if not r.valid]
    for record in plans:  # the grammar keeps the JSON compact: no whitespace between tokens
        assert record.raw is not None and "\n" not in record.raw
    units = [e for e in events if isinstance(e, UnitDisclosed)]
    assert end.reason.value == "silence" or units  # SmolLM2 on llama.cpp may keep listening
    assert all(u.tokens == llamacpp.count_tokens(u.text) for u in units)
    # the server's prefix cache served most of the plan prompts (append-only layout)
    assert end.stats.cached_prompt_tokens > end.stats.prompt_tokens / 2


VARYING = {
    "at",
    "latency_s",
    "batch_latency_s",
    "debate_id",
    "model_id",
    "cached_tokens",
}  # clock, id, port, arrival order


def _stable(value):
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def test_the_same_debate_replays_identically_with_one_slot():
    """With one slot (no other rows in a batch) greedy decoding on the server is reproducible."""
    config = small_config(token_budget=40, condition="fixed")
    runs = []
    for _ in range(2):
        backend = LlamaCppBackend(None, threads=1, parallel=1)
        try:
            events = Debate(config, backend).run()
        finally:
            backend.close()
        runs.append([_stable(e.model_dump(mode="json")) for e in events if not isinstance(e, DebateEnded)])
    assert runs[0] == runs[1]
    assert any(e["type"] == "unit_disclosed" for e in runs[0])  # in fixed order every agent speaks


def test_closing_the_backend_stops_its_server(tmp_path):
    backend = LlamaCppBackend(None, threads=1, parallel=1)
    url = backend.base_url
    assert httpx.get(url + "/models", timeout=5).status_code == 200
    backend.close()
    assert backend.server.process.poll() is not None
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/models", timeout=2)


def test_the_server_goes_when_its_parent_is_killed():
    script = (
        "from debate_core.backends.openai import LlamaCppServer\n"
        "s = LlamaCppServer(None, parallel=1)\n"
        "print(s.process.pid, s.port, flush=True)\n"
        "import time; time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child_pid, _port = (int(x) for x in parent.stdout.readline().split())
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    for _ in range(100):  # the child checks its parent every half second
        try:
            subprocess.run(["kill", "-0", str(child_pid)], check=True, capture_output=True)
        except subprocess.CalledProcessError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the llama.cpp server outlived the process that started it")


def test_a_server_that_dies_mid_debate_ends_it_with_the_error_recorded():
    backend = LlamaCppBackend(None, threads=1, parallel=1, retries=2)
    events = []
    try:
        for event in Debate(small_config(token_budget=400), backend).events():
            events.append(event)
            if isinstance(event, PlansMade):
                backend.server.stop()  # the server is gone from the next model call on
    except BackendError:
        pass
    finally:
        backend.close()
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert end.error is not None and "127.0.0.1" in end.error
    assert any(isinstance(e, PlansMade) for e in events)  # what happened before is kept


def test_the_command_line_runs_a_debate_on_an_openai_server_and_records_it(llamacpp, tmp_path, capsys):
    out = tmp_path / "events.jsonl"
    code = main(
        [
            "run",
            "--backend",
            "openai",
            "--base-url",
            llamacpp.base_url,
            "--model",
            llamacpp.model,
            "--budget",
            "30",
            "--utterance-max-new-tokens",
            "30",
            "--layout",
            "cached",
            "--seed",
            "2",
            "--quiet",
            "--events-jsonl",
            str(out),
        ]
    )
    assert code == 0
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert events[0]["type"] == "debate_started" and "llamacpp" in events[0]["model_id"]
    assert events[-1]["type"] == "debate_ended" and events[-1]["error"] is None


def test_the_command_line_names_what_the_server_serves_for_a_wrong_model(llamacpp, capsys):
    code = main(["run", "--backend", "openai", "--base-url", llamacpp.base_url, "--model", "gpt-9", "--quiet"])
    assert code != 0
    err = capsys.readouterr()
    assert "does not serve the model 'gpt-9'; it serves: local" in err.out + err.err


def test_concurrent_requests_share_the_server(llamacpp):
    """Four requests at once come back in order and each is the model's own answer."""
    prompts = [f"Repeat the word {w} once." for w in ("apple", "river", "stone", "cloud")]
    requests = [
        GenerationRequest((Message("user", p),), SamplingParams(0.0, 12, 0), "utterance", "Alex", 1) for p in prompts
    ]
    completions = llamacpp.generate(requests)
    assert len(completions) == 4 and all(c.completion_tokens > 0 for c in completions)
    assert all(c.prompt_tokens > 0 for c in completions)


def test_an_openai_backend_on_a_dead_port_says_so():
    with pytest.raises(BackendError, match="no OpenAI-compatible server answers"):
        OpenAIBackend("http://127.0.0.1:9/v1", retries=1)


def test_the_web_apps_llamacpp_choice_runs_a_debate_and_stops_its_server():
    from ui.session import EMBEDDED_LLAMACPP, LiveSession, backend_for

    config = small_config({"utterance_max_new_tokens": 20}, token_budget=30, condition="fixed")
    backend = backend_for(EMBEDDED_LLAMACPP, config)
    assert isinstance(backend, LlamaCppBackend) and backend.owns_server
    assert not backend.started  # the session starts it, saying so (#30's defect 11), not the page's Start handler
    declared = backend.capabilities  # what the debate checks its protocol against, before the server runs
    session = LiveSession(config, backend, pace_s=0)
    statuses: list[str] = []
    bump = session._bump
    session._bump = lambda: (statuses.append(session.status), bump())  # type: ignore[method-assign]
    session.start()
    session._thread.join(timeout=600)  # bounded by the debate's 30 tokens; the bound only guards a hang
    assert session.status.startswith("ended"), (session.status, session.error)
    assert statuses[0] == "starting llama.cpp's server and loading SmolLM2-135M-Instruct (embedded GGUF) into it"
    assert "running" in statuses and backend.started and backend.capabilities == declared
    assert session.view.ended is not None and session.view.ended.error is None
    assert backend.server.process.poll() is not None  # the server went with the debate


def test_a_study_cell_runs_on_a_server_and_its_report_names_the_backend(llamacpp, tmp_path):
    from experiments.cli import main as experiments_main
    from storage import Store

    db = tmp_path / "study.sqlite3"
    argv = ["compare", "--experiment", "served", "--systems", "parliament/cot", "--mmlu", "1", "--strategyqa", "0"]
    argv += ["--backend", "openai", "--base-url", llamacpp.base_url, "--model", llamacpp.model]
    argv += ["--max-new-tokens", "96", "--db", str(db), "--no-progress"]
    assert experiments_main(argv) == 0
    store = Store(db)
    try:
        record = store.experiments.get("served")
        assert record is not None and record.spec["model"] == "openai:local"
        [run] = store.experiments.runs("served")
        assert store.debate(run.debate_id).status == "finished"
        events = store.events(run.debate_id)
        assert isinstance(events[-1], DebateEnded) and events[-1].error is None
    finally:
        store.close()
    assert experiments_main(["report", "served", "--db", str(db), "--out", str(tmp_path / "r"), "--no-png"]) == 0
    assert "(llamacpp)" in (tmp_path / "r" / "report.md").read_text()  # the model as the debates recorded it


def test_a_backend_that_starts_later_starts_nothing_until_loaded_and_closes_clean_before():
    backend = LlamaCppBackend(None, start="later")
    assert not backend.started and backend.model_id == "SmolLM2-135M-Instruct (embedded GGUF) on llama.cpp"
    backend.close()  # nothing to stop
    with pytest.raises(BackendError, match="closed before it started"):
        backend.generate([])
    with pytest.raises(ConfigError, match="start is one of now, later"):
        LlamaCppBackend(None, start="soon")
