"""SID's prompts: the template files in ``prompts/`` filled from a ``SidView``.

What it does: ``render(template, view)`` fills ``prompts/<template>.txt``
with ``string.Template`` (``${field}``), so what agents and people wrote is
inserted verbatim, never interpreted; ``###`` in their words is shortened to
``#``, so nobody's text can forge the markers that delimit the attention
probe's spans (``FOCUS`` and ``OTHERS``). The view's answer format
(``formats``) gives the system prompt and the output instruction: the
paper's Table 4 and Table 5 for the question's data set, or the single
rule: SID's own system prompt (``system.txt``) and a final line "The answer
is" and an option's letter in parentheses, or the free-form answer alone
(worded without a placeholder such as ``(X)``, which a small model copies). The other agents' answers are shown by
name, each between rules; the attention probe (``focus``) puts the focus
instruction before them, so that each of their tokens can be scored by its
attention to the instruction.

What it does not do: decide who is asked what (``loop``) or read replies (``forms``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from debate_core.backends.base import AttentionQuery, Message
from protocols.sid.views import SidView

FOCUS = ("### FOCUS INSTRUCTION ###", "### END FOCUS ###")
OTHERS = ("### OTHER AGENTS ANSWERS ###", "### END OTHER AGENTS ###")


def attention_query(layer: int, all_layers: bool = False) -> AttentionQuery:
    """The probe's query: the others' answers scored by their attention to the focus instruction (in ``layer``,
    or the maximum over every layer)."""
    return AttentionQuery(rows=OTHERS, cols=FOCUS, layer=layer, all_layers=all_layers)


@cache
def template(name: str) -> Template:
    folder = resources.files("protocols.sid") / "prompts"
    return Template((folder / f"{name}.txt").read_text(encoding="utf-8").strip())


def unmarked(text: str) -> str:
    """``text`` with no ``###`` (which could forge a marker)."""
    while "###" in text:
        text = text.replace("###", "#")
    return text


def others_text(others: tuple[tuple[str, str], ...]) -> str:
    """The other agents' answers as the revise prompt and the probe show them: name, then the answer."""
    return "\n".join(f"{name}: {unmarked(' '.join(text.split()))}" for name, text in others) or "(none)"


def answer_rule(view: SidView) -> str:
    """How the reply must end: the format's output instruction, or the single rule's (worded so that a small
    model does not copy a placeholder)."""
    if view.answer_format.instruction is not None:
        return view.answer_format.instruction
    if view.question.labels:
        return 'Then write your final line as "The answer is" followed by the letter of one option in parentheses.'
    return 'Then write your final line as "The answer is" followed by your final answer alone.'


def fields(view: SidView) -> dict[str, str]:
    return {
        "agent": view.agent,
        "persona": f" {view.persona.strip()}" if view.persona.strip() else "",
        "brief": f"\nYour notes (private):\n{view.brief.strip()}" if view.brief.strip() else "",
        "question": unmarked(view.question.render()),
        "answer_rule": answer_rule(view),
        "own": unmarked(view.own.strip()) or "(none)",
        "others": others_text(view.others),
        "kept": unmarked(view.kept or "") or "(nothing)",
    }


def system_prompt(view: SidView, values: dict[str, str]) -> str:
    """The format's system prompt (Table 4's, the agent's persona and notes after it), or SID's own."""
    if view.answer_format.system is None:
        return template("system").substitute(values)
    return f"{view.answer_format.system}{values['persona']}{values['brief']}"


def render(name: str, view: SidView) -> tuple[Message, ...]:
    values = fields(view)
    return (Message("system", system_prompt(view, values)), Message("user", template(name).substitute(values)))
