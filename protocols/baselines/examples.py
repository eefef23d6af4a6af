"""Worked examples a prompt quotes: CoT's and Step-Back's exemplars, ReConcile's convincing samples.

What it does: reads the two kinds of example from JSON-lines files (one object a line; blank
lines and lines starting with ``#`` skipped), each refused with the file and line that is wrong:

* an exemplar (``read_exemplars``): ``{"question", "reasoning", "answer"}`` and, for Step-Back's
  abstraction, ``"step_back"`` (the step-back question and its principles); the question as a
  model sees it (an option per line, ``A) ...``), the answer as the reply's ``Final Answer`` line
  would give it. The built-in sets (``exemplars=builtin``, ``prompts/exemplars_<shape>.txt``) are
  this project's own, three per question shape (``shape_of``): ``choice`` (MMLU-style options),
  ``yes_no`` (StrategyQA's Yes/No options) and ``short`` (a free-form answer);
* a convincing sample (``read_convincing``): ``{"question", "explanation", "answer"}`` and
  optionally ``"agent"``, the agent the explanation corrected: ReConcile shows an agent the
  samples that convinced the others, so a sample naming an agent is not shown to that agent.

``with_examples(forms, exemplars, convincing)`` wraps the request kinds that quote them: the
exemplars go before the question of CoT's ``reasoning``, Self-Consistency's ``sample`` and
Step-Back's ``step_back`` and ``step_back_reasoning`` (each shown the parts of an exemplar its
step writes; an exemplar without ``step_back`` is left out of Step-Back's); the convincing samples
before RTC's ``rtc_revise``, ReConcile's discussion prompt. Nothing else of a prompt changes.

What it does not do: choose the defaults (``params``: zero-shot, no samples) or word the rest of
a prompt (``prompts/``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from debate_core.backends.base import Message
from debate_core.config import Question
from debate_core.kernel.forms import Form
from protocols.baselines.views import SolverView

EXEMPLAR_KINDS = ("reasoning", "sample", "step_back", "step_back_reasoning")
CONVINCING_KINDS = ("rtc_revise",)
MAX_EXAMPLES = 50
MAX_FILE_BYTES = 200_000


@dataclass(frozen=True, slots=True)
class Exemplar:
    """One worked example: a question, its reasoning and answer, and (for Step-Back) its abstraction."""

    question: str
    reasoning: str
    answer: str
    step_back: str = ""


@dataclass(frozen=True, slots=True)
class Convincing:
    """One explanation that corrected an agent's answer (ReConcile's convincing sample)."""

    question: str
    explanation: str
    answer: str
    agent: str = ""


def _objects(text: str, where: str, required: tuple[str, ...], optional: tuple[str, ...]) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            row: Any = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{where}, line {number}: not JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{where}, line {number}: not a JSON object")
        missing = [k for k in required if not isinstance(row.get(k), str) or not row[k].strip()]
        if missing:
            raise ValueError(f"{where}, line {number}: no {', '.join(missing)} (text)")
        stray = sorted(set(row) - set(required) - set(optional))
        if stray:
            raise ValueError(f"{where}, line {number}: unknown field(s) {', '.join(stray)}")
        rows.append({k: str(row.get(k) or "").strip() for k in (*required, *optional)})
    if not rows:
        raise ValueError(f"{where}: no examples")
    if len(rows) > MAX_EXAMPLES:
        raise ValueError(f"{where}: {len(rows)} examples, at most {MAX_EXAMPLES}")
    return rows


def _read(path: str) -> str:
    file = Path(path).expanduser()
    if not file.is_file():
        raise ValueError(f"{path}: no such file")
    if file.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes")
    return file.read_text(encoding="utf-8")


def read_exemplars(path: str) -> tuple[Exemplar, ...]:
    """The exemplars of a JSON-lines file (``ValueError`` naming the line that is wrong)."""
    rows = _objects(_read(path), path, ("question", "reasoning", "answer"), ("step_back",))
    return tuple(Exemplar(**row) for row in rows)


def read_convincing(path: str) -> tuple[Convincing, ...]:
    """The convincing samples of a JSON-lines file (``ValueError`` naming the line that is wrong)."""
    rows = _objects(_read(path), path, ("question", "explanation", "answer"), ("agent",))
    return tuple(Convincing(**row) for row in rows)


@cache
def builtin(shape: str) -> tuple[Exemplar, ...]:
    """This project's exemplars for a question shape (``choice``, ``yes_no`` or ``short``)."""
    text = (resources.files("protocols.baselines") / "prompts" / f"exemplars_{shape}.txt").read_text(encoding="utf-8")
    rows = _objects(text, f"exemplars_{shape}", ("question", "reasoning", "answer"), ("step_back",))
    return tuple(Exemplar(**row) for row in rows)


def shape_of(question: Question) -> str:
    """``yes_no`` for Yes/No options (StrategyQA's), ``choice`` for other options, ``short`` without."""
    if not question.options:
        return "short"
    return "yes_no" if tuple(o.lower().rstrip(".") for o in question.options) == ("yes", "no") else "choice"


def exemplar_block(kind: str, exemplars: tuple[Exemplar, ...]) -> str:
    """The worked examples as request ``kind`` quotes them (empty without any)."""
    parts = []
    for example in exemplars:
        head = f"Question:\n{example.question}\n"
        answer = f"Final Answer: {example.answer}"
        if kind == "step_back":
            if example.step_back:
                parts.append(f"{head}{example.step_back}")
        elif kind == "step_back_reasoning":
            if example.step_back:
                parts.append(f"{head}{example.step_back}\nReasoning: {example.reasoning}\n{answer}")
        else:
            parts.append(f"{head}Reasoning: {example.reasoning}\n{answer}")
    if not parts:
        return ""
    return "Worked examples of the steps asked for:\n\n" + "\n\n".join(parts) + "\n\nNow your question.\n\n"


def convincing_block(samples: tuple[Convincing, ...], agent: str) -> str:
    """The samples shown to ``agent`` (all but those that corrected it), as the discussion prompt quotes them."""
    shown = [s for s in samples if s.agent != agent]
    if not shown:
        return ""
    quoted = "\n\n".join(
        f"Question:\n{s.question}\nExplanation: {s.explanation}\nCorrect answer: {s.answer}" for s in shown
    )
    return (
        "Explanations like these have convinced agents to correct a wrong answer on other questions; "
        "use them as a guide to what a convincing explanation is:\n\n" + quoted + "\n\n"
    )


def _prefixed(form: Form[Any, Any], block: Any) -> Form[Any, Any]:
    """``form`` with ``block(view)`` before its last (user) message."""
    render = form.render

    def prefixed(view: SolverView) -> tuple[Message, ...]:
        messages = render(view)
        text = block(view)
        if not text:
            return messages
        last = messages[-1]
        return (*messages[:-1], Message(last.role, text + last.content))

    return dataclasses.replace(form, render=prefixed)


def with_examples(forms: Mapping[str, Form[Any, Any]], exemplars: str, convincing: str) -> dict[str, Form[Any, Any]]:
    """The request kinds, those that quote exemplars or convincing samples wrapped to quote them (a file is read
    once, here)."""
    wrapped = dict(forms)
    if exemplars != "none":
        given = None if exemplars == "builtin" else read_exemplars(exemplars)
        for kind in EXEMPLAR_KINDS:
            wrapped[kind] = _prefixed(
                forms[kind],
                lambda view, kind=kind: exemplar_block(kind, given or builtin(shape_of(view.question))),
            )
    if convincing != "none":
        samples = read_convincing(convincing)
        for kind in CONVINCING_KINDS:
            wrapped[kind] = _prefixed(forms[kind], lambda view: convincing_block(samples, view.agent))
    return wrapped
