"""Two set-up fields that follow the chosen protocol: its demo question, and the models per role.

What it does: ``demo_fill(name)`` is what the question, options and answer
boxes hold for protocol ``name``: its own demo question
(``Protocol.demo_question()``: Meeting Scheduling's first committed case,
whose task statement is the question) or the page's shared demo question.
``wire_question`` makes choosing a protocol fill them with that protocol's
demo question when they still hold a demo question (any protocol's, as
filled), and leave them alone once the person has edited them.
``question_context(name, text)`` is the context a question typed as
``text`` carries: the demo question's own (the scheduling case's JSON)
when ``text`` is that question, else none. The context never reaches the
page: it is looked up on the server when the debate starts, and a
protocol shows each seat only its own briefing of it.

``models_box()`` is the optional "Models per role" field (one
``WHO=SPEC`` a line, as the terminal's ``--model-for``); what it may name
is checked by ``backend_choice.page_models`` when the debate starts.

What it does not do: lay out the rest of the form or build the config
(``setup_panel``), or build backends (``backend_choice``).
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from debate_core.config import Question
from debate_core.protocols.registry import available, protocol_class
from ui import web_plugins
from ui.backend_choice import MAX_MODEL_LINE, MAX_MODEL_LINES, PAGE_KINDS

MODELS_LABEL = "Models per role, one per line as WHO=SPEC (optional; WHO an agent or a role)"
MODELS_INFO = (
    "SPEC: a Hugging Face model id (org/name), transformers or llamacpp (the embedded model), "
    "openai:NAME (a model on the server the Model field names), scripted:NAME (the scripted demo). "
    f"At most {MAX_MODEL_LINES} lines of {MAX_MODEL_LINE} characters; kinds: {', '.join(PAGE_KINDS)}."
)
MODELS_PLACEHOLDER = "moderator=HuggingFaceTB/SmolLM2-360M-Instruct\nAlex=scripted:speaker"


def _demo_question(name: str) -> Question:
    """Protocol ``name``'s own demo question, else the page's shared one (for "" too)."""
    own = protocol_class(name).demo_question() if name in available() else None
    return own if own is not None else web_plugins.demo_config().question


def demo_fill(name: str) -> tuple[str, str, str]:
    """The question, options (one per line) and answer boxes for protocol ``name``'s demo question."""
    question = _demo_question(name)
    return question.text, "\n".join(question.options), question.answer or ""


def _fills() -> frozenset[tuple[str, str, str]]:
    """Every demo question as the boxes hold it (the shared one and each protocol's own)."""
    return frozenset({demo_fill(name) for name in available()} | {demo_fill("")})


def _held(question: str, options: str, answer: str) -> tuple[str, str, str]:
    lines = "\n".join(line.strip() for line in (options or "").splitlines() if line.strip())
    return (question or "").strip(), lines, (answer or "").strip()


def question_for_protocol(name: str, question: str, options: str, answer: str) -> list[Any]:
    """The boxes for a newly chosen protocol: its demo question, unless the person has edited them."""
    if _held(question, options, answer) not in _fills():
        return [gr.skip(), gr.skip(), gr.skip()]
    return list(demo_fill(name))


def wire_question(protocol: Any, question: Any, options: Any, answer: Any) -> None:
    """Choosing a protocol fills the question boxes with its demo question (``question_for_protocol``)."""
    boxes = [question, options, answer]
    protocol.change(question_for_protocol, inputs=[protocol, *boxes], outputs=boxes)


def question_context(name: str, text: str) -> str:
    """The context of a question typed as ``text`` for protocol ``name``: its demo question's, if it is that one."""
    demo = _demo_question(name)
    return demo.context if demo.context and (text or "").strip() == demo.text else ""


def models_box() -> Any:
    """The optional "Models per role" field (checked when the debate starts)."""
    return gr.Textbox(
        label=MODELS_LABEL,
        info=MODELS_INFO,
        placeholder=MODELS_PLACEHOLDER,
        lines=2,
        max_lines=MAX_MODEL_LINES,
        max_length=100_000,  # far above the limits, which are checked with a message (never a silent cut)
        elem_id="models-per-role",
    )
