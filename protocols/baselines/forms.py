"""The baselines' request kinds: an answer, a reasoning with its answer line, a note, a list of perspectives.

What it does: builds the ``Form`` kinds the variants ask, each rendering its template from
``prompts/``:

* solutions (``answer`` for IO; ``reasoning`` for CoT; ``sample`` for a Self-Consistency
  sample; ``step_back_reasoning``; ``perspective`` and ``reconcile`` for Self-Contrast;
  ``first_answer`` and ``revise`` for a debater of parallel debate; ``affirmative``, ``negative``
  and the judge's ``judge_final`` in TAR; ``method_answer`` and ``method_revise`` for a DMAD
  debater, worded by its way of reasoning; ``rpd_turn`` for a role-played debater): plain
  text ending with ``Final Answer: ...`` (a direct answer may be the answer alone). The answer
  is read from the last such line (``final_answer``), normalised by the kernel's
  ``normalize_answer`` (an option label, or a short free-form answer). Fallbacks: a reply that
  names no answer keeps its text and leaves the answer where it was (noted on the reply); an
  empty reply says nothing;
* notes (``step_back``: the step-back question and its principles; ``contrast``: the checklist
  of the perspectives' differences): plain text; fallback: nothing written;
* ``perspectives``: one perspective per line (bullets and numbers stripped), at most the number
  asked; fallback (and lines missing): ``DEFAULT_PERSPECTIVES``.

A person in the solver's seat fills the same forms: the reasoning and a choice among the options
(the answer alone for IO), the note, the perspectives one per line; ``asked`` is what they are
asked at each step (the form's prompt: the sample, the perspective, the round, the way of
reasoning or the role the model's prompt would state).

What it does not do: decide who is asked when (``loop``), word anything (``prompts/``) or read
TAR's judge's call after a round (``judge``; ``protocol`` adds it to these; what a person in the
judge's seat is asked is here, in ``ASKED``, with RPD's summarizer's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from debate_core.kernel.answers import MAX_FREE_ANSWER, answer_choices, normalize_answer
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from protocols.baselines.params import BaselinesParams
from protocols.baselines.prompting import METHOD_NAMES, render
from protocols.baselines.views import SolverView

MAX_TEXT_CHARS = 4_000
DEFAULT_PERSPECTIVES = (
    "Work it out from first principles, one step at a time.",
    "Take the view of an expert in the field the question belongs to.",
    "Work backwards: test each option against what the question states.",
    "Look for the trap: which tempting answer is wrong, and why?",
    "Estimate or recall a concrete example, then generalise.",
    "Eliminate the options that cannot be right, then compare the rest.",
    "Explain the question to a beginner, then answer it.",
    "Check each claim the question rests on before answering.",
)
_LINE = re.compile(r"^[\s>*_#-]*final answer[\s*_]*[:：][\s*_]*(?P<value>.*?)[\s*_]*$", re.IGNORECASE | re.MULTILINE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\(?\d+[.):])\s*")


@dataclass(frozen=True, slots=True)
class Solved:
    """What a solution says: its text (with its answer line) and the answer read from it."""

    text: str
    answer: str | None = None
    problem: str | None = None
    confidence: float | None = None  # RTC's stated confidence


def final_answer(text: str, view: SolverView, *, bare: bool = False) -> str | None:
    """The answer the last ``Final Answer:`` line of ``text`` names (with ``bare``, a reply that is the answer
    alone too); None when it names none."""
    found = [m.group("value") for m in _LINE.finditer(text)]
    if found:
        return normalize_answer(found[-1], view.question)
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return normalize_answer(lines[-1], view.question) if bare and lines else None


def _answer_field(view: SolverView) -> FieldSpec:
    choices = answer_choices(view.question)
    if choices:
        return FieldSpec("answer", "choice", "Your answer", choices=choices, noun="answer")
    return FieldSpec("answer", "text", "Your answer (a few words)", max_chars=MAX_FREE_ANSWER, noun="answer")


def _problem(view: SolverView) -> str:
    labels = view.question.labels
    wanted = f" naming one of {', '.join(labels)}" if labels else ""
    return f"no Final Answer line{wanted}: the answer stays as it was"


def _round(view: SolverView) -> str:
    return f"Round {view.round}: "


def _method_name(view: SolverView) -> str:
    return METHOD_NAMES.get(view.method, view.method)


ASKED: dict[str, Callable[[SolverView], str]] = {
    "answer": lambda v: "Answer the question directly: choose your answer.",
    "reasoning": lambda v: f"Reason step by step (at most {v.sentences} sentences), then choose your answer.",
    "sample": lambda v: (
        f"Sample {v.sample} of {v.samples}: reason step by step (at most {v.sentences} sentences), then choose "
        "your answer. The samples' majority is the answer."
    ),
    "step_back": lambda v: (
        "Step back: name the more general question behind this one and the principles that answer it. "
        "Do not answer the question itself yet."
    ),
    "step_back_reasoning": lambda v: "Reason from your principles to the answer, then choose it.",
    "perspectives": lambda v: f"Name {v.count} distinct perspectives to solve the question from, one per line.",
    "perspective": lambda v: f"Solve the question from this perspective: *{v.perspective}* Then choose your answer.",
    "contrast": lambda v: (
        f"Contrast the {len(v.solutions)} solutions above: where and why do they differ? "
        "Write a checklist, one item per line."
    ),
    "reconcile": lambda v: "Check each item of your checklist against the solutions, then give one reconciled answer.",
    "first_answer": lambda v: "Round 1: answer the question on your own and explain why.",
    "revise": lambda v: (
        f"{_round(v)}read the others' last answers above, examine them step by step and give your updated answer."
    ),
    "affirmative": lambda v: (
        f"{_round(v)}as the affirmative side, "
        + ("state your answer and your reasons." if v.round == 1 else "defend your answer against the negative side.")
    ),
    "negative": lambda v: (
        f"{_round(v)}as the negative side, disagree with the affirmative side's answer: answer its arguments point "
        "by point and give your own answer."
    ),
    "method_answer": lambda v: f"Round 1: answer the question by your way of reasoning, {_method_name(v)}.",
    "method_revise": lambda v: (
        f"{_round(v)}read the others' last answers above and give your updated answer, keeping to your way of "
        f"reasoning, {_method_name(v)}."
    ),
    "rpd_turn": lambda v: f"{_round(v)}your turn in the discussion, in your role. {v.persona}".strip(),
    "rpd_summary": lambda v: (
        f"{_round(v)}as the summarizer, summarize the round's messages above for the debaters' next round (at most "
        f"{v.sentences} sentences): each one's answer and main reasons, where they agree and where they differ. "
        "Take no side."
    ),
    "judge_check": lambda v: (
        "Both sides have made their case this round: weigh their arguments and say whether one side is clearly right."
    ),
    "judge_final": lambda v: (
        f"After {v.rounds} round(s) no side was clearly right: weigh both sides and give your verdict, the "
        "debate's answer."
    ),
    "rtc_first": lambda v: "Round 1 at the round table: answer, explain why and say how confident you are.",
    "rtc_revise": lambda v: (
        f"{_round(v)}read every answer above, grouped with its explanations and confidences, then give your "
        "revised answer and how confident you are."
    ),
}
"""What a person in the seat is asked at each step (the form's prompt), by request kind; the request's view
supplies what the model's prompt would (the sample, the perspective, the round, the way of reasoning, the role)."""


def asked(kind: str, description: str, view: SolverView) -> str:
    """A person's prompt for a step of ``kind`` (its description, capitalised, for a kind not listed)."""
    found = ASKED.get(kind)
    return found(view) if found is not None else description[:1].upper() + description[1:]


def solution_form(
    kind: str, description: str, template: str | Callable[[SolverView], str], cap: int, *, reasoned: bool = True
) -> Form[Any, Solved]:
    """A solution ending with its ``Final Answer:`` line (``reasoned=False``: the answer alone, IO's); ``template``
    may depend on the view (a DMAD debater's way of reasoning)."""
    chosen: Callable[[SolverView], str] = template if callable(template) else lambda view: template

    def parse(raw: str, view: SolverView) -> tuple[Solved, str | None]:
        if not any(ch.isalnum() for ch in raw):
            raise FormInvalid("an empty reply")
        answer = final_answer(raw, view, bare=not reasoned)
        problem = None if answer is not None else _problem(view)
        return Solved(raw.strip(), answer, problem), problem

    def fields(view: SolverView) -> tuple[FieldSpec, ...]:
        reasoning = FieldSpec(
            "reasoning", "text", "Your reasoning", max_chars=MAX_TEXT_CHARS, words=True, noun="reasoning"
        )
        return (reasoning, _answer_field(view)) if reasoned else (_answer_field(view),)

    def from_human(values: Mapping[str, Any], view: SolverView) -> Solved:
        answer = normalize_answer(values.get("answer"), view.question)
        said = f"Final Answer: {answer}" if answer else ""
        text = "\n".join(part for part in (str(values.get("reasoning") or "").strip(), said) if part)
        return Solved(text, answer)

    return Form(
        kind=kind,
        description=description,
        render=lambda view: render(chosen(view), view),
        parse=parse,
        fallback=lambda view: Solved("", None, "no reply"),
        fields=fields,
        from_human=from_human,
        human_raw=lambda solved: solved.text,
        describe=lambda view: asked(kind, description, view),
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template if isinstance(template, str) else kind,
    )


def note_form(kind: str, description: str, template: str, label: str, cap: int) -> Form[Any, str]:
    """A plain text that names no answer (the step-back principles, the contrast's checklist)."""

    def parse(raw: str, view: SolverView) -> tuple[str, str | None]:
        if not any(ch.isalnum() for ch in raw):
            raise FormInvalid("an empty reply")
        return raw.strip(), None

    return Form(
        kind=kind,
        description=description,
        render=lambda view: render(template, view),
        parse=parse,
        fallback=lambda view: "",
        fields=lambda view: (FieldSpec("text", "text", label, max_chars=MAX_TEXT_CHARS, words=True, noun="text"),),
        from_human=lambda values, view: str(values["text"]).strip(),
        human_raw=lambda text: text,
        describe=lambda view: asked(kind, description, view),
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template,
    )


def read_perspectives(text: str, count: int) -> tuple[str, ...]:
    """At most ``count`` perspectives, one per non-empty line of ``text`` (bullets and numbers stripped), the
    missing ones filled from ``DEFAULT_PERSPECTIVES``."""
    found: list[str] = []
    for line in text.splitlines():
        item = _BULLET.sub("", line).strip()
        if any(ch.isalnum() for ch in item) and item not in found:
            found.append(item)
    rest = [p for p in DEFAULT_PERSPECTIVES if p not in found]
    return tuple((found + rest)[:count])


def perspectives_form(cap: int) -> Form[Any, tuple[str, ...]]:
    """Self-Contrast's solving perspectives, one per line."""
    description = "the perspectives to solve the question from, one per line"

    def parse(raw: str, view: SolverView) -> tuple[tuple[str, ...], str | None]:
        if not any(ch.isalnum() for ch in raw):
            raise FormInvalid("no perspective")
        named = len([line for line in raw.splitlines() if any(ch.isalnum() for ch in line)])
        note = (
            f"{named} perspective(s) named of {view.count}: the rest are the defaults" if named < view.count else None
        )
        return read_perspectives(raw, view.count), note

    return Form(
        kind="perspectives",
        description=description,
        render=lambda view: render("perspectives", view),
        parse=parse,
        fallback=lambda view: DEFAULT_PERSPECTIVES[: view.count],
        fields=lambda view: (
            FieldSpec("text", "text", f"{view.count} perspectives, one per line", max_chars=MAX_TEXT_CHARS, words=True),
        ),
        from_human=lambda values, view: read_perspectives(str(values["text"]), view.count),
        human_raw=lambda items: "\n".join(items),
        describe=lambda view: asked("perspectives", description, view),
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template="perspectives",
    )


def _method(view: SolverView) -> str:
    return f"dmad_{view.method}"


def baseline_forms(params: BaselinesParams) -> dict[str, Form[Any, Any]]:
    """Every request kind of the family, by kind."""
    think, short = params.reasoning_tokens, params.answer_tokens
    forms: list[Form[Any, Any]] = [
        solution_form("answer", "the answer, directly", "io", short, reasoned=False),
        solution_form("reasoning", "step-by-step reasoning and an answer", "cot", think),
        solution_form("sample", "one sampled chain of thought and its answer", "cot", think),
        note_form(
            "step_back",
            "the step-back question and the principles that answer it",
            "step_back",
            "Your step-back question and the principles behind the question",
            think,
        ),
        solution_form(
            "step_back_reasoning", "reasoning from the principles to an answer", "step_back_reasoning", think
        ),
        perspectives_form(think),
        solution_form("perspective", "a solution from one perspective", "perspective", think),
        note_form(
            "contrast",
            "a checklist of the solutions' differences",
            "contrast",
            "Your checklist of the differences, one item per line",
            think,
        ),
        solution_form("reconcile", "the reconciled solution and its answer", "reconcile", think),
        solution_form("first_answer", "a debater's first answer, explained", "debate_first", think),
        solution_form("revise", "an updated answer after reading the others'", "debate_revise", think),
        solution_form("affirmative", "the affirmative side's answer and reasons", "tar_affirmative", think),
        solution_form(
            "negative", "the negative side's answer and reasons, against the affirmative", "tar_negative", think
        ),
        solution_form("method_answer", "a debater's first answer, by its own way of reasoning", _method, think),
        solution_form("method_revise", "an updated answer, by its own way of reasoning", "dmad_revise", think),
        solution_form("rpd_turn", "a role-played turn of the discussion and an answer", "rpd_turn", think),
        solution_form("judge_final", "the judge's verdict after the last round", "tar_final", think),
    ]
    return {form.kind: form for form in forms}
