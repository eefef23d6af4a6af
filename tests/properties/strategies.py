"""What the outside world may send: model completions, a person's submissions, transcript mutations.

Strategies lean towards the inputs that broke things before: lone surrogates (as characters
and as JSON escapes), JSON nested thousands of levels deep, integers of thousands of digits,
near-valid plans with fields of the wrong type or out of range, huge and empty texts.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

ANY_CHARACTER = st.characters(codec=None, exclude_categories=())  # surrogates and controls included
TEXT = st.text(ANY_CHARACTER, max_size=200)
NASTY_TEXT = st.one_of(
    TEXT,
    st.sampled_from(["", " ", "\x00", "\udcff", "bad \udcff byte?", "<script>x</script>", "…", "\n\n\n", "A."]),
    st.integers(1, 30_000).map(lambda n: "word. " * n),
)
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXT)
JSON_VALUE = st.recursive(
    JSON_LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12
)
DEEP_JSON = st.integers(500, 6_000).map(lambda n: "[" * n + "]" * n)
HUGE_INTEGER = st.integers(4_301, 9_000).map(lambda n: "9" * n)
ACTION = st.one_of(st.sampled_from(["listen", "speak", "interrupt", "shout", "LISTEN"]), JSON_LEAF)
URGENCY = st.one_of(st.integers(-5, 15), st.floats(allow_nan=False), st.sampled_from(["7", True, None]))


@st.composite
def plan_like(draw: Any) -> str:
    plan = {
        "thought": draw(st.one_of(TEXT, JSON_VALUE)),
        "action": draw(ACTION),
        "urgency": draw(URGENCY),
        "purpose": draw(st.one_of(TEXT, JSON_VALUE)),
        "answer": draw(st.one_of(st.sampled_from(["A", "B", "(c)", "E", ""]), JSON_LEAF)),
    }
    keys = draw(st.lists(st.sampled_from(list(plan)), unique=True, min_size=3))
    text = json.dumps({key: plan[key] for key in keys})
    if draw(st.booleans()):
        text = f"```json\n{text}\n```"
    return text


MODEL_OUTPUT = st.one_of(
    NASTY_TEXT,
    JSON_VALUE.map(json.dumps),
    plan_like(),
    DEEP_JSON,
    HUGE_INTEGER.map(lambda digits: '{"urgency": ' + digits + "}"),
    st.sampled_from(
        [
            '{"thought": "half \\ud83d emoji", "action": "speak", "urgency": 5, "purpose": "\\udfff", "answer": "B"}',
            '{"reason": "\\ud800", "answer": "B"}',
            '{"answer": "B", "final": true}',
            "INTERRUPT: is that so?",
            "NO",
            "Yes",
        ]
    ),
)

SUBMITTED_VALUE = st.one_of(NASTY_TEXT, JSON_LEAF, st.binary(max_size=20), st.lists(JSON_LEAF, max_size=3), URGENCY)
SUBMISSION = st.dictionaries(
    st.one_of(st.sampled_from(["action", "urgency", "answer", "purpose", "thought", "text", "reason", "final"]), TEXT),
    SUBMITTED_VALUE,
    max_size=6,
)
