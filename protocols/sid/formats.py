r"""SID's answer formats: each data set's system prompt, output instruction and answer reader (App. C.2).

What it does: ``format_for(prompts, dataset, question)`` picks the
``AnswerFormat`` a debate's prompts and reader follow:

* ``prompts=paper`` (the default): the paper's Table 4 system prompt and
  Table 5 output instruction of the question's data set, as printed
  (``<system prompt> + <question content> + <output instruction>``), for
  MMLU-Pro (``mmlu_pro``; ``mmlu`` too, as the authors' code maps it), MATH
  (``math`` and its subsets ``math_<subset>``), GPQA, ScienceQA and MMStar.
  The paper's quotation marks are written as the code's ASCII ones, and its
  ``\\boxed`` (a string escape of its source) as ``\boxed``. A data set the
  paper gives no prompt for, a question of another shape than its format
  (a free-form question under a letter format), or no data set at all
  (``dataset`` unset: a debate outside a study) takes the single rule below;
* ``prompts=one``: the single rule for every data set: SID's own system
  prompt (``prompts/system.txt``) and the instruction to end with a line
  "The answer is" and an option's letter in parentheses, or the free-form
  answer alone (worded without a placeholder, which a small model copies).

``read(text, fmt, question)`` reads the answer a reply names under its
format: the last answer line ("The answer is ...", "The correct answer is
...", "Answer: ..."); under a letter format, else the last option letter in
parentheses anywhere (the authors' code's ``\((\w)\)``, upper-case letters
of the question's options only, so an enumeration's "(a)" is not an
answer); under MATH's, first the last ``\boxed{...}`` (braces matched), then
an answer line. A free-form answer in parentheses keeps them unless the
whole answer is one group without a comma: ``(3, \infty)`` is an interval,
``(42)`` is 42.

What it does not do: render templates (``prompting``), parse a reply into a
``Reply`` (``forms``), or score anything (the report).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from debate_core.config import Question
from debate_core.kernel.answers import normalize_answer

Reader = Literal["line", "label", "boxed"]


@dataclass(frozen=True, slots=True)
class AnswerFormat:
    """A data set's prompts and reader: ``system`` and ``instruction`` None for the single rule's own."""

    name: str
    system: str | None
    instruction: str | None
    reader: Reader
    multiple_choice: bool | None  # the questions it is for: lettered (True), free-form (False), any (None)


_TRIVIA = (
    "You are a trivia expert who knows everything. You are tasked to answer the following question. "
    "Give your final answer in the format of (X), e.g., (A)."
)
# Table 4 (system prompts) and Table 5 (output instructions), as printed
PAPER = {
    "mmlu_pro": AnswerFormat("mmlu_pro", _TRIVIA, "Give your final answer in the format of '(X)'", "label", True),
    "math": AnswerFormat(
        "math",
        "You are a math expert. You are tasked to determine the answer to the following question. Give your final "
        "answer in the form of \\boxed{answer} in the last sentence of your response, e.g., \\boxed{[1, 3]}.",
        "Give your final answer in the form of \\boxed{answer} at the end of your response, e.g., \\boxed{[1, 3]}.",
        "boxed",
        False,
    ),
    "gpqa": AnswerFormat(
        "gpqa",
        "You are an expert in graduate-level science and mathematics. You will be presented with challenging "
        'questions designed to test your reasoning abilities. Your last sentence should be "The correct answer is '
        '(insert answer here)."',
        "Your last sentence should be 'The correct answer is (insert answer here).' e.g., The correct answer is (A).",
        "label",
        True,
    ),
    "scienceqa": AnswerFormat(
        "scienceqa",
        _TRIVIA,
        "Give your final answer in the format of '(X)'. You should only give one answer. For example, the answer is "
        "(A).",
        "label",
        True,
    ),
    "mmstar": AnswerFormat(
        "mmstar",
        "You are an expert in multimodal task understanding, and your task is to answer the following questions. "
        "Give your final answer in the format of (X), e.g., (A)",
        "Give your final answer in the format of '(X)'. You should only give one answer.",
        "label",
        True,
    ),
}
ONE = AnswerFormat("one", None, None, "line", None)
FORMATS = {**PAPER, "one": ONE}
ALIASES = {"mmlu": "mmlu_pro"}  # the authors' code's get_prompt_provider: mmlu and mmlupro share a provider


def paper_format(dataset: str | None) -> AnswerFormat | None:
    """The paper's format of ``dataset`` (``math_<subset>`` is MATH's), or None where the paper gives none."""
    if not dataset:
        return None
    name = ALIASES.get(dataset, dataset)
    if name.startswith("math_"):
        name = "math"
    return PAPER.get(name)


def format_for(prompts: str, dataset: str | None, question: Question) -> AnswerFormat:
    """The format a debate follows (see the module docstring)."""
    found = paper_format(dataset) if prompts == "paper" else None
    if found is None or (found.multiple_choice is not None and found.multiple_choice != bool(question.labels)):
        return ONE
    return found


_LINE = re.compile(
    r"(?:the\s+(?:correct\s+|final\s+)?answer\s+is|^\s*(?:final\s+)?answer\s*[:：])\s*(?P<value>[^\n]+)", re.I | re.M
)
_LABEL = re.compile(r"\(([A-Z])\)")
_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_ONE_GROUP = re.compile(r"\((?P<inner>[^(),]*)\)")


def last_boxed(text: str) -> str | None:
    """What the last ``\\boxed{...}`` of ``text`` holds, its braces matched (None without one, or unclosed)."""
    found = list(_BOX.finditer(text))
    if not found:
        return None
    depth, start = 1, found[-1].end()
    for at in range(start, len(text)):
        char = text[at]
        if char == "\\":
            continue
        if char == "{" and text[at - 1] != "\\":
            depth += 1
        elif char == "}" and text[at - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start:at].strip()
    return None


def cleaned(said: str, question: Question) -> str:
    """An answer line's value without its final period, emphasis and, where they only wrap it, parentheses."""
    value = said.strip().rstrip(".").strip().strip("*").strip()
    if question.labels:
        if value.startswith("(") and ")" in value:
            return value[1 : value.index(")")]
        return value
    whole = _ONE_GROUP.fullmatch(value)
    return whole.group("inner").strip() if whole else value


def read_line(text: str, question: Question) -> str | None:
    """The answer the last answer line of ``text`` names that names one, or None."""
    for said in reversed([m.group("value") for m in _LINE.finditer(text)]):
        value = cleaned(said, question)
        boxed = last_boxed(value)
        answer = normalize_answer(boxed if boxed is not None else value, question)
        if answer is not None:
            return answer
    return None


def read(text: str, fmt: AnswerFormat, question: Question) -> str | None:
    """The answer ``text`` names under ``fmt`` (see the module docstring), or None."""
    if fmt.reader == "boxed":
        boxed = last_boxed(text)
        answer = normalize_answer(boxed, question) if boxed is not None else None
        if answer is not None:
            return answer
    answer = read_line(text, question)
    if answer is None and fmt.reader == "label":
        labels = [m.group(1) for m in _LABEL.finditer(text) if m.group(1) in question.labels]
        return labels[-1] if labels else None
    return answer
