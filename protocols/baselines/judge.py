"""TAR's judge: its call after each round of the debate (Liang et al.'s moderator, discriminative mode).

What it does: ``judge_form`` is the request ``judge_check``: after both sides have spoken in a
round, the judge says whether one side's answer is clearly correct. Asked for a JSON object
``{"preference": "yes"|"no", "side", "answer", "reason"}``, as Liang et al.'s moderator answers
(a schema constrains it where the backend can); plain lines (``Preference: yes``, ``Side:
affirmative``, ``Final Answer: B``) are read too. Its value is a ``Judged``: whether the debate
stops, the side, the answer (an option label; when the judge names a side and no answer, that
side's answer) and the reason. Fallbacks: a reply that cannot be read, or a preference that names
no answer, lets the debate go on (noted on the reply).

A person as the judge fills the same form: yes or no, the side and the answer (either is enough
to stop), and a reason.

What it does not do: end the debate (the loop does, with the kernel's ``verdict``) or the judge's
final, extractive verdict when no round stops the debate (``forms``' ``judge_final``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from debate_core.kernel.answers import answer_choices, normalize_answer
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from debate_core.kernel.replies import load_object
from protocols.baselines.forms import asked, final_answer
from protocols.baselines.prompting import render
from protocols.baselines.views import SolverView

SIDES = ("affirmative", "negative")
_FIELD = re.compile(r"^[\s*_#-]*(?P<key>preference|side|reason)[\s*_]*[:：][\s*_]*(?P<value>.*?)\s*$", re.I | re.M)


@dataclass(frozen=True, slots=True)
class Judged:
    """The judge's call after a round: whether the debate stops, for which side and answer, and why."""

    stop: bool
    side: str | None = None
    answer: str | None = None
    reason: str = ""

    @property
    def text(self) -> str:
        if not self.stop:
            return " ".join(part for part in ("No side is clearly right yet; the debate goes on.", self.reason) if part)
        side = f"The {self.side} side is right. " if self.side else ""
        return f"{side}{self.reason}\nFinal Answer: {self.answer}".strip()


def _side(value: object) -> str | None:
    text = str(value or "").strip().casefold()
    return next((side for side in SIDES if text.startswith(side[:3])), None)


def decide(preference: object, side: object, answer: object, reason: object, view: SolverView) -> Judged:
    """The call the judge's words make: a stop needs an answer, named or the chosen side's."""
    named = _side(side)
    said = normalize_answer(str(answer), view.question) if isinstance(answer, str) else None
    if said is None and named is not None:
        said = view.sides[SIDES.index(named)]
    stop = str(preference).strip().casefold() in ("yes", "true", "y")
    why = str(reason or "").strip()
    if stop and said is None:
        return Judged(False, named, None, why)
    return Judged(stop, named if stop else None, said if stop else None, why)


def _parse(raw: str, view: SolverView) -> tuple[Judged, str | None]:
    if "{" in raw:
        data, note = load_object(raw)
        preference, side, answer, reason = (data.get(k) for k in ("preference", "side", "answer", "reason"))
    else:
        found = {m.group("key").casefold(): m.group("value") for m in _FIELD.finditer(raw)}
        if "preference" not in found:
            raise FormInvalid("no preference: yes or no")
        preference, side, reason, note = found["preference"], found.get("side"), found.get("reason"), None
        answer = final_answer(raw, view)
    judged = decide(preference, side, answer, reason, view)
    if str(preference).strip().casefold() in ("yes", "true", "y") and not judged.stop:
        note = "; ".join(n for n in (note, "a preference that names no answer: the debate goes on") if n)
    return judged, note


def _schema(view: SolverView) -> dict[str, Any]:
    labels = answer_choices(view.question)
    answer: dict[str, Any] = {"type": "string", "enum": list(labels)} if labels else {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "preference": {"type": "string", "enum": ["yes", "no"]},
            "side": {"type": "string", "enum": list(SIDES)},
            "answer": answer,
            "reason": {"type": "string", "maxLength": 400},
        },
        "required": ["preference", "side", "answer", "reason"],
        "additionalProperties": False,
    }


def _fields(view: SolverView) -> tuple[FieldSpec, ...]:
    labels = answer_choices(view.question)
    answer = (
        FieldSpec("answer", "choice", "The answer (if it ends)", choices=labels, required=False)
        if labels
        else FieldSpec("answer", "text", "The answer (if it ends)", max_chars=200, required=False)
    )
    return (
        FieldSpec("preference", "choice", "Is one side clearly right? (yes ends the debate)", choices=("no", "yes")),
        FieldSpec("side", "choice", "Which side", choices=SIDES, required=False),
        answer,
        FieldSpec("reason", "text", "Why", max_chars=400, required=False),
    )


def _from_human(values: Mapping[str, Any], view: SolverView) -> Judged:
    return decide(values.get("preference"), values.get("side"), values.get("answer"), values.get("reason"), view)


def judge_form(cap: int) -> Form[Any, Judged]:
    description = "the judge's call after a round: is one side clearly right?"
    return Form(
        kind="judge_check",
        description=description,
        render=lambda view: render("tar_judge", view),
        parse=_parse,
        fallback=lambda view: Judged(False),
        fields=_fields,
        from_human=_from_human,
        human_raw=lambda judged: judged.text,
        describe=lambda view: asked("judge_check", description, view),
        schema=_schema,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template="tar_judge",
    )
