"""ACE's prompts: the template files in ``prompts/`` filled from an ``AceView``.

What it does: ``render(template, view)`` reads ``prompts/<template>.txt`` once
(cached) and fills it with ``string.Template`` (``${field}``), so JSON braces
need no escaping and what debaters and people wrote is inserted verbatim.
Replies are shown as an answer line and numbered items (``stance_text``);
the observer's analysis is shown to a debater from its own side (its items
first). The answer format names the option labels, or asks for the exact
short answer of a free-form task (BIG-Bench's generation tasks: a number, a
word list, a closing bracket sequence), which is the task-type
format-constraining prompt the paper mentions. The Execute step's default
template (``execute``) is the paper's printed Execute prompt followed by the
composed action (its acts and its words); ``execute_rich`` is the richer
input of ``execute_input=rich``. A debater is told the round it is in, and
of how many only where a cap is set (``round_of``).

What it does not do: choose who is asked or what a view holds (``loop``),
or parse replies (``forms``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from debate_core.backends.base import Message
from protocols.ace.views import AceView, PairFindings, Stance

MULTIPLE_CHOICE_HINT = "Answer with the letter of one option."
FREE_FORM_HINT = "The answer field holds the exact answer only (a number, a word or a short phrase), nothing else."


@cache
def template(name: str) -> Template:
    folder = resources.files("protocols.ace") / "prompts"
    return Template((folder / f"{name}.txt").read_text(encoding="utf-8").strip())


def stance_text(stance: Stance, *, comments: bool = True) -> str:
    """A reply as prompts and the transcript show it: the items, the comment, the answer line."""
    lines = [f"{i}. {item}" for i, item in enumerate(stance.explanation, 1)]
    if comments and stance.comments.strip():
        lines.append(f"Comment: {stance.comments.strip()}")
    lines.append(f"Answer: {stance.answer if stance.answer is not None else '(none)'}")
    return "\n".join(lines)


def _indented(stance: Stance) -> str:
    return "\n".join(f"  {line}" for line in stance_text(stance).splitlines())


def _pairs(pairs: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"your {i} / their {j}" for i, j in pairs) or "none"


def analysis_text(findings: PairFindings) -> str:
    """The observer's findings as the debater ``findings.first`` reads them."""
    agree = "agree" if findings.answers_agree else "disagree"
    similar = "similar" if findings.explanations_similar else "different"
    return (
        f"\nThe observer's analysis: your answers {agree}; your explanations are {similar} overall.\n"
        f"Matching items: {_pairs(findings.similar)}.\n"
        f"Differing items: {_pairs(findings.dissimilar)}.\n"
    )


def answer_format(view: AceView) -> str:
    labels = view.question.labels
    return " or ".join(f'"{label}"' for label in labels) if labels else '"<the exact answer>"'


def fields(view: AceView) -> dict[str, str]:
    """Every ``${field}`` a template may use, from the view."""
    debaters = [s.agent for s in view.peers] if view.role == "observer" else [view.agent, *view.peer_names]
    pick = tuple(dict.fromkeys(s.answer for s in view.peers if s.answer is not None))
    peers = "".join(f"\n{s.agent}'s last reply:\n{_indented(s)}\n" for s in view.peers if view.role != "observer")
    comments = "".join(f"\n{who} commented on your reply: {text}\n" for who, text in view.comments if text.strip())
    library = view.library
    return {
        "agent": view.agent,
        "debaters": ", ".join(debaters) if view.role == "observer" else str(len(debaters)),
        "persona": f" {view.persona.strip()}" if view.persona.strip() else "",
        "brief": f"\nYour notes (private):\n{view.brief.strip()}" if view.brief.strip() else "",
        "question": view.question.render(),
        "format_hint": MULTIPLE_CHOICE_HINT if view.question.labels else FREE_FORM_HINT,
        "items": str(view.items),
        "round": str(view.round),
        "max_rounds": str(view.max_rounds) if view.max_rounds is not None else "",
        "round_of": f"{view.round} of {view.max_rounds}" if view.max_rounds is not None else str(view.round),
        "answer_format": answer_format(view),
        "own": _indented(view.own) if view.own is not None else "  (none)",
        "peers": peers,
        "comments": comments,
        "analysis": analysis_text(view.findings) if view.findings is not None else "",
        "stances": "\n\n".join(f"{s.agent}:\n{_indented(s)}" for s in view.peers),
        "first": debaters[0] if debaters else "",
        "second": debaters[1] if len(debaters) > 1 else "",
        "self_acts": library.describe("self"),
        "peer_acts": library.describe("peer"),
        "self_names": " or ".join(f'"{n}"' for n in library.names("self")),
        "peer_names": " or ".join(f'"{n}"' for n in library.names("peer")),
        "action_acts": " + ".join(view.acts),
        "action": view.action or "(none)",
        "composed": f"{' + '.join(view.acts)}: {view.action}" if view.acts else view.action or "(none)",
        "pick_names": ", ".join(pick) or "(none)",
        "pick_format": " or ".join(f'"{a}"' for a in pick) or '"<an answer>"',
    }


def render(name: str, view: AceView) -> tuple[Message, ...]:
    """The system message and the filled template ``name`` for ``view``."""
    values = fields(view)
    system = "system_observer" if view.role == "observer" else "system"
    return (
        Message("system", template(system).substitute(values)),
        Message("user", template(name).substitute(values)),
    )
