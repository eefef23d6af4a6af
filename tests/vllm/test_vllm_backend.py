"""The OpenAI-compatible backend against real vLLM (CPU build) serving the embedded SmolLM2.

This is the server GPU users run: a debate, a study cell and the plan schema must work against it.
Bounded by tokens and turns. Run by ``make test-vllm`` (and ``.ci/run``).
"""

from __future__ import annotations

import json
import threading

from debate_core import AgentSpec, Debate, DebateConfig, Question
from debate_core.backends.base import CancelToken, Capability, GenerationRequest, Message, SamplingParams, Signals
from debate_core.backends.openai import OpenAIBackend
from debate_core.events import DebateEnded, PlansMade
from tests.vllm.conftest import SERVED_MODEL

PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["listen", "speak"]},
        "urgency": {"type": "integer", "minimum": 0, "maximum": 9},
        "answer": {"type": "string", "enum": ["A", "B", "C", "D"]},
    },
    "required": ["action", "urgency", "answer"],
    "additionalProperties": False,
}
QUESTION = Question(
    text="Which of the following is the body cavity that contains the pituitary gland?",
    options=("Abdominal", "Cranial", "Pleural", "Spinal"),
    answer="B",
)


def backend_for(server) -> OpenAIBackend:
    return OpenAIBackend(server.v1_url, SERVED_MODEL, api_key_env="")


def ask(text: str, cap: int = 16, **fields) -> GenerationRequest:
    return GenerationRequest((Message("user", text),), SamplingParams(0.0, cap, 0), "plan", "Alex", 1, **fields)


def test_the_backend_recognises_vllm_and_declares_what_it_can_serve(vllm_server):
    backend = backend_for(vllm_server)
    assert backend.dialect.name == "vllm"
    assert Capability.ATTENTION not in backend.capabilities
    assert {Capability.CONTINUATION, Capability.TOKENIZER, Capability.CANCELLATION} <= backend.capabilities
    assert backend.count_tokens("Nitrogen is about 78 percent of dry air.") > 5


def test_a_plan_under_the_schema_is_compact_valid_json(vllm_server):
    backend = backend_for(vllm_server)
    completions = backend.generate(
        [ask(f"Plan {i}: reply with a JSON plan.", cap=40, json_schema=PLAN_SCHEMA) for i in range(3)]
    )
    for completion in completions:
        plan = json.loads(completion.text)
        assert plan["action"] in ("listen", "speak") and 0 <= plan["urgency"] <= 9
        assert "\n" not in completion.text


def test_token_statistics_and_choice_probabilities_come_from_the_servers_logprobs(vllm_server):
    backend = backend_for(vllm_server)
    stats, choices = backend.generate(
        [
            ask("Say one short sentence about the colour red.", signals=Signals(token_stats=True)),
            ask("Which is a colour? A) red B) seven. Answer with one letter.", signals=Signals(choices=("A", "B"))),
        ]
    )
    assert stats.token_nll is not None and stats.token_entropy is not None
    assert len(stats.token_nll) == len(stats.token_entropy) > 0
    assert stats.entropy_top_k == 20 and all(n >= 0 for n in stats.token_nll)
    assert choices.choice_probs is not None and 0 < sum(choices.choice_probs.values()) <= 1 + 1e-6


def test_continuation_gives_the_rest_of_the_reply(vllm_server):
    backend = backend_for(vllm_server)
    first = backend.generate([ask("Say one short sentence about the colour red.", cap=20)])[0]
    words = first.text.split(" ")
    prefix = " ".join(words[:3])
    rest = backend.generate([ask("Say one short sentence about the colour red.", cap=20, assistant_prefix=prefix)])[0]
    assert not rest.text.startswith(prefix)
    assert (prefix + rest.text).startswith(first.text[: len(prefix) + 3])


def test_cancelling_closes_the_request_promptly(vllm_server):
    backend = backend_for(vllm_server)
    cancel = CancelToken()
    timer = threading.Timer(1.0, cancel.cancel)
    timer.start()
    completion = backend.generate([ask("Count from 1 to 1000: 1, 2, 3,", cap=1500, cancel=cancel)])[0]
    assert completion.finish_reason == "cancelled"
    assert 0 < cancel.tokens < 1500  # the stream was closed mid-generation, not read to its cap


def test_a_debate_runs_on_vllm_with_every_plan_valid(vllm_server):
    config = DebateConfig(
        question=QUESTION,
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny")),
        condition="interruptible",
        token_budget=60,
        seed=3,
        params={"utterance_max_new_tokens": 30, "prompt_layout": "cached"},
        max_new_tokens=128,
    )
    events = Debate(config, backend_for(vllm_server)).run()
    end = events[-1]
    assert isinstance(end, DebateEnded) and end.error is None
    plans = [r for e in events if isinstance(e, PlansMade) for r in e.plans]
    assert plans and all(r.valid for r in plans), [r.error for r in plans if not r.valid]
    assert end.stats.prompt_tokens > 0 and end.stats.generated_tokens > 0


def test_a_study_cell_runs_on_vllm(vllm_server, tmp_path):
    from experiments.cli import main as experiments_main
    from storage import Store

    db = tmp_path / "study.sqlite3"
    argv = ["compare", "--experiment", "vllm-cell", "--systems", "parliament/cot", "--mmlu", "1", "--strategyqa", "0"]
    argv += ["--backend", "openai", "--base-url", vllm_server.v1_url, "--model", SERVED_MODEL]
    argv += ["--max-new-tokens", "96", "--db", str(db), "--no-progress"]
    assert experiments_main(argv) == 0
    store = Store(db)
    try:
        [run] = store.experiments.runs("vllm-cell")
        assert store.debate(run.debate_id).status == "finished"
        end = store.events(run.debate_id)[-1]
        assert isinstance(end, DebateEnded) and end.error is None and end.stats.generated_tokens > 0
    finally:
        store.close()


def test_choice_probabilities_on_vllm_are_the_choices_own_even_outside_the_top(vllm_server):
    """The backend asks for the choices' own token ids; a plain top-20 request agrees where it lists them."""
    import math

    import httpx

    backend = backend_for(vllm_server)
    question = "Which is a colour? A) red B) seven. Answer with one letter."
    choices = ("A", "B", " zebra")  # " zebra" is far outside the top 20 at the first position
    [completion] = backend.generate([ask(question, cap=1, signals=Signals(choices=choices))])
    probs = completion.choice_probs
    assert probs is not None and all(p > 0 for p in probs.values())  # none counted as 0
    body = {
        "model": SERVED_MODEL,
        "messages": [{"role": "user", "content": question}],
        "max_tokens": 1,
        "temperature": 0,
        "logprobs": True,
        "top_logprobs": 20,
    }
    direct = httpx.post(vllm_server.v1_url + "/chat/completions", json=body, timeout=60).json()
    top = {e["token"]: math.exp(e["logprob"]) for e in direct["choices"][0]["logprobs"]["content"][0]["top_logprobs"]}
    assert "A" in top and abs(probs["A"] - top["A"]) < 1e-4
    assert probs[" zebra"] < min(top.values())  # below everything the top 20 lists
