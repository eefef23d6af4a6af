"""The study report's account of the rules a study ran under, and of how its debates ended.

What it does: ``segmentation`` names the sentence segmenter the interruptible debates recorded (against the
paper's spaCy), ``ending_rule`` says what ends a debate (the budget alone in paper mode, or the stall guards),
and ``endings_section`` counts per cell the debates ended by the budget and lists the others; ``markdown_table`` is
the report's markdown table.

What it does not do: load a study (``analysis``) or write the rest of the report (``report``).
"""

from __future__ import annotations

from collections import Counter

from debate_core.config import Condition
from debate_core.events.records import EndReason
from protocols.kimura.study.analysis import StudyData
from protocols.kimura.study.figures import CONDITION_NAMES, SETTING_NAMES


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def segmentation(data: StudyData) -> str:
    """Which segmenter split the interruptible debates' utterances (the name each debate recorded)."""
    used = sorted({d.started.segmenter for d in data.debates if d.condition is Condition.INTERRUPTIBLE})
    requested = f"segmenter `{data.spec.segmenter}`"
    paper = "the paper: spaCy" if data.spec.segmenter != "spacy" else "as the paper"
    if not used:
        return f"{requested} ({paper}); no finished interruptible debate recorded the one it resolved to"
    names = ", ".join(f"`{name}`" for name in used)
    return f"the interruptible condition's utterances split into sentences by {names} ({requested}; {paper})"


def ending_rule(data: StudyData) -> str:
    spec = data.spec
    if spec.paper_mode:
        return "the public-token budget alone ends a debate, as in the paper (no stall guard)"
    guards = []
    if spec.max_silent_turns is not None:
        guards.append(f"{spec.max_silent_turns} silent turn{'s' * (spec.max_silent_turns != 1)} in a row")
    if spec.max_turns is not None:
        guards.append(f"{spec.max_turns} turn{'s' * (spec.max_turns != 1)}")
    return f"the budget, or a stall guard: {' or '.join(guards)} (beyond the paper, which has none)"


MAX_LISTED = 20


def endings_section(data: StudyData) -> list[str]:
    """How the debates ended, per cell; each debate that did not end by its budget is listed."""
    parts = ["## How the debates ended", ""]
    rows, listed = [], []
    for setting in data.settings:
        for condition in data.conditions:
            cell = data.cells(setting, condition)
            others = [d for d in cell if d.ended.reason is not EndReason.BUDGET]
            reasons = Counter(d.ended.reason.value for d in others)
            label = f"{CONDITION_NAMES[condition]}, {SETTING_NAMES[setting]}"
            rows.append(
                [
                    label,
                    str(len(cell)),
                    str(len(cell) - len(others)),
                    ", ".join(f"{r} {n}" for r, n in sorted(reasons.items())) or "-",
                ]
            )
            for d in others[:MAX_LISTED]:
                listed.append(
                    f"- {label}: `{d.run.debate_id}` ended by {d.ended.reason.value} at turn {d.ended.turn}, "
                    f"{d.ended.public_tokens} of {data.spec.token_budget} public tokens"
                )
            if len(others) > MAX_LISTED:
                listed.append(f"- {label}: and {len(others) - MAX_LISTED} more (`debates.csv`, column `end_reason`)")
    parts += [markdown_table(["Cell", "debates", "by the budget", "otherwise"], rows), ""]
    if listed:
        parts += ["Debates that ended for a reason other than the budget (the paper's debates all end by it):", ""]
        parts += [*listed, ""]
    else:
        parts += ["Every finished debate ended by its budget, as in the paper.", ""]
    return parts
