"""Smoke tests of the real vLLM server with plain HTTP: what the OpenAI-compatible backend relies on.

The backend's own tests against this server belong here too (fixture: ``vllm_server``).
"""

from __future__ import annotations

import json
import math

import httpx

from tests.servers import RunningServer
from tests.vllm.conftest import SERVED_MODEL

PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["speak", "listen", "interrupt"]},
        "answer": {"type": "string", "enum": ["A", "B", "C", "D"]},
    },
    "required": ["action", "answer"],
    "additionalProperties": False,
}
QUESTION = (
    "Which option names the second letter of the Greek alphabet? A) Alpha B) Beta C) Gamma D) Delta. "
    "Do you speak, listen or interrupt, and what is your answer?"
)


def test_models_lists_the_served_model(vllm_server: RunningServer) -> None:
    response = httpx.get(f"{vllm_server.v1_url}/models", timeout=30)
    assert response.status_code == 200, response.text
    models = response.json()["data"]
    assert [model["id"] for model in models] == [SERVED_MODEL]
    assert models[0]["max_model_len"] == 2048


def test_json_schema_output_matches_the_enums_and_carries_logprobs(vllm_server: RunningServer) -> None:
    body = {
        "model": SERVED_MODEL,
        "messages": [{"role": "user", "content": QUESTION}],
        "max_tokens": 40,
        "temperature": 1.0,
        "seed": 1,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "plan", "schema": PLAN_SCHEMA, "strict": True},
        },
        "logprobs": True,
        "top_logprobs": 5,
    }
    response = httpx.post(f"{vllm_server.v1_url}/chat/completions", json=body, timeout=120)
    assert response.status_code == 200, response.text
    choice = response.json()["choices"][0]
    assert choice["finish_reason"] == "stop", choice

    plan = json.loads(choice["message"]["content"])
    assert set(plan) == {"action", "answer"}
    assert plan["action"] in PLAN_SCHEMA["properties"]["action"]["enum"]
    assert plan["answer"] in PLAN_SCHEMA["properties"]["answer"]["enum"]

    steps = choice["logprobs"]["content"]
    assert steps, choice["logprobs"]
    # One entry per generated token, the end-of-turn token included (the text leaves it out).
    assert "".join(step["token"] for step in steps).startswith(choice["message"]["content"])
    for step in steps:
        assert step["logprob"] <= 0.0
        assert 1 <= len(step["top_logprobs"]) <= 5
        # The sampled token always leads its top_logprobs, whatever its rank.
        assert step["top_logprobs"][0]["token"] == step["token"]
    # Under the grammar the distribution is masked and renormalised: where JSON forces the next
    # token (the opening quote of the first key), it has probability 1.
    assert any(math.isclose(step["logprob"], 0.0, abs_tol=1e-6) for step in steps)
