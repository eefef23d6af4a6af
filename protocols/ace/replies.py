"""Reading ACE's replies: a debater's answer and items, the observer's analysis and pick, composed acts.

What it does: the values ACE's request kinds produce (``Analysis``,
``Composition``; a debater's reply is a ``views.Stance``) and the functions
that read a model's raw output into them, raising ``FormInvalid`` with what is
wrong so that the form's documented fallback applies (``forms`` lists them):
``read_stance`` (JSON, or text with an ``Answer:`` line, numbered or bulleted
items and a ``Comment:`` line; items capped in number and length, an answer
naming no option keeping the previous one; a reply read as text is noted
as not JSON), ``parse_analysis`` (item pairs
naming missing items dropped and noted), ``composition_parser`` (unknown acts
replaced by the library's defaults, noted) and ``parse_pick``. It also holds
the limits and schema pieces the forms share (``item_chars``: the longest
item a constrained model may write so that its JSON closes within the cap).

What it does not do: build forms, fields for people, or prompts (``forms``,
``prompting``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from debate_core.kernel.answers import MAX_FREE_ANSWER, normalize_answer
from debate_core.kernel.forms import FormInvalid
from debate_core.kernel.replies import load_object
from protocols.ace.views import AceView, PairFindings, Stance

CHARS_PER_TOKEN = 3  # a conservative bound (English runs near 4): constrained text closes before the cap
MAX_ACTION_CHARS = 600
MAX_REASON_CHARS = 400
ANSWER_LINE = re.compile(r"^[\s>*_#-]*(?:final\s+)?answer[\s*_]*[:：][\s*_]*(?P<value>.+?)[\s*_]*$", re.I | re.M)
_COMMENT_LINE = re.compile(r"^[\s>*_#-]*comments?[\s*_]*[:：][\s*_]*(?P<value>.+?)\s*$", re.I | re.M)
_ITEM_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(?P<value>\S.*?)\s*$", re.M)
PAIR = re.compile(r"^\s*(\d+)\s*[-/:,]\s*(\d+)\s*$")
# A reply read as text because it holds no JSON object: a mistake of the format the prompt asked for, noted on its
# event (with ``constrained`` off, the paper's way, a model may answer in prose)
NOT_JSON = "not JSON: "


@dataclass(frozen=True, slots=True)
class Analysis:
    """The observer's analysis of one pair of debaters, and its verdict on stopping."""

    findings: PairFindings
    stop: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Composition:
    """The acts a debater chose and the action it composed (with its answer, in ``no_execute``)."""

    self_act: str
    peer_act: str
    action: str
    stance: Stance | None = None

    @property
    def acts(self) -> tuple[str, str]:
        return (self.self_act, self.peer_act)


# -- limits -----------------------------------------------------------------------------------


def item_chars(view: AceView, cap: int, extra_fields: int = 1) -> int:
    """The longest item a constrained model may write, so that its JSON closes within the cap."""
    budget = CHARS_PER_TOKEN * min(view.token_cap, cap) - 80
    return max(24, min(view.item_chars, budget // (view.items + extra_fields)))


def answer_schema(view: AceView) -> dict[str, Any]:
    if view.question.labels:
        return {"type": "string", "enum": list(view.question.labels)}
    return {"type": "string", "minLength": 1, "maxLength": min(MAX_FREE_ANSWER, 80)}


def items_schema(view: AceView, chars: int) -> dict[str, Any]:
    item = {"type": "string", "minLength": 1, "maxLength": chars}
    return {"type": "array", "items": item, "minItems": 1, "maxItems": view.items}


def json_object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


# -- reading a reply ---------------------------------------------------------------------------


def _clip(items: list[str], view: AceView, chars: int, notes: list[str]) -> tuple[str, ...]:
    kept = [" ".join(item.split()) for item in items if any(ch.isalnum() for ch in item)]
    if len(kept) > view.items:
        notes.append(f"{len(kept)} explanation items: kept the first {view.items}")
        kept = kept[: view.items]
    if any(len(item) > chars for item in kept):
        notes.append(f"explanation items cut to {chars} characters")
        kept = [item[:chars] for item in kept]
    return tuple(kept)


def answer_of(said: object, view: AceView, notes: list[str]) -> str | None:
    previous = view.own.answer if view.own is not None else None
    answer = normalize_answer(said if isinstance(said, str) else None, view.question)
    if answer is None:
        wanted = f" naming one of {', '.join(view.question.labels)}" if view.question.labels else ""
        shown = f" {said[:60]!r}" if isinstance(said, str) and said.strip() else ""
        notes.append(f"no answer{wanted}{shown}: the answer stays as it was")
        return previous
    return answer


def json_in(raw: str, *keys: str) -> tuple[dict[str, Any], str | None] | None:
    """The JSON object in ``raw`` (bare, fenced or after a sentence) when it has one of ``keys``; else None.

    A reply that starts with ``{`` but is no usable object raises ``FormInvalid`` (it meant to be JSON);
    one that merely mentions a brace is read as text.
    """
    if "{" not in raw:
        return None
    try:
        data, note = load_object(raw)
    except FormInvalid:
        if raw.lstrip().startswith("{"):
            raise
        return None
    return (data, note) if any(key in data for key in keys) else None


def read_stance(raw: str, view: AceView, chars: int, *, comments: bool) -> tuple[Stance, str | None]:
    """A debater's reply (JSON, or text with an ``Answer:`` line and numbered items); raises ``FormInvalid``."""
    notes: list[str] = []
    found_json = json_in(raw, "answer", "explanation")
    if found_json is not None:
        data, note = found_json
        notes.extend([note] if note else [])
        said, found = data.get("answer"), data.get("explanation")
        items = [str(x) for x in found] if isinstance(found, list) else str(found or "").splitlines()
        comment = data.get("comments") if isinstance(data.get("comments"), str) else ""
    else:
        notes.append(NOT_JSON + "read by its Answer line and items")
        lines = ANSWER_LINE.findall(raw)
        said = lines[-1] if lines else None
        items = _ITEM_LINE.findall(raw)
        if not items:
            rest = _COMMENT_LINE.sub("", ANSWER_LINE.sub("", raw)).strip()
            items = [rest] if rest else []
        found_comment = _COMMENT_LINE.findall(raw)
        comment = found_comment[-1] if found_comment else ""
    explanation = _clip(items, view, chars, notes)
    if said is None and not explanation:
        raise FormInvalid("no answer and no explanation in the output")
    answer = answer_of(said, view, notes)
    comment = " ".join(str(comment).split())[:chars] if comments else ""
    return Stance(view.agent, answer, explanation, comment), "; ".join(notes) or None


def kept(view: AceView) -> Stance:
    return view.own if view.own is not None else Stance(view.agent, None)


def _flag(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().casefold() in {"true", "yes", "false", "no"}:
        return value.strip().casefold() in {"true", "yes"}
    return None


def _item_pairs(found: object, sizes: tuple[int, int], notes: list[str], what: str) -> tuple[tuple[int, int], ...]:
    pairs: list[tuple[int, int]] = []
    dropped = 0
    for pair in found if isinstance(found, list) else []:
        ok = isinstance(pair, list | tuple) and len(pair) == 2 and all(isinstance(x, int) for x in pair)
        if ok and 1 <= pair[0] <= sizes[0] and 1 <= pair[1] <= sizes[1]:
            if (pair[0], pair[1]) not in pairs:
                pairs.append((pair[0], pair[1]))
        else:
            dropped += 1
    if dropped:
        notes.append(f"{dropped} {what} pair(s) naming no existing items dropped")
    return tuple(pairs)


def item_counts(view: AceView) -> tuple[int, int]:
    first, second = view.peers[0], view.peers[1]
    return (len(first.explanation), len(second.explanation))


def compared(view: AceView) -> PairFindings:
    first, second = view.peers[0], view.peers[1]
    agree = first.answer is not None and first.answer == second.answer
    return PairFindings(first.agent, second.agent, agree, False)


def parse_analysis(raw: str, view: AceView) -> tuple[Analysis, str | None]:
    data, note = load_object(raw)
    notes = [note] if note else []
    agree, similar, stop = (_flag(data.get(key)) for key in ("answers_agree", "explanations_similar", "stop"))
    if agree is None or stop is None:
        raise FormInvalid("the analysis has no answers_agree or no stop (true or false)")
    sizes = item_counts(view)
    first, second = view.peers[0].agent, view.peers[1].agent
    findings = PairFindings(
        first,
        second,
        agree,
        bool(similar),
        _item_pairs(data.get("similar"), sizes, notes, "similar"),
        _item_pairs(data.get("dissimilar"), sizes, notes, "dissimilar"),
    )
    reason = " ".join(str(data.get("reason") or "").split())[:MAX_REASON_CHARS]
    return Analysis(findings, stop, reason), "; ".join(notes) or None


def _act_or_default(name: object, view: AceView, orientation: str, notes: list[str]) -> str:
    names = view.library.names(orientation)  # type: ignore[arg-type]
    wanted = str(name or "").strip().casefold()
    if wanted in names:
        return wanted
    default = {"self": "retain", "peer": "withhold"}[orientation]
    chosen = default if default in names else names[0]
    notes.append(f"{orientation} act {str(name)[:40]!r} is not in the library: {chosen}")
    return chosen


def _mentioned(text: str, names: tuple[str, ...]) -> str | None:
    found = [(m.start(), name) for name in names if (m := re.search(rf"\b{re.escape(name)}\b", text, re.I))]
    return min(found)[1] if found else None


def composition_parser(stance_chars: Callable[[AceView], int] | None) -> Callable[[str, AceView], Any]:
    def parse(raw: str, view: AceView) -> tuple[Composition, str | None]:
        notes: list[str] = []
        found_json = json_in(raw, "self_act", "peer_act")
        if found_json is not None:
            data, note = found_json
            notes.extend([note] if note else [])
            self_act = _act_or_default(data.get("self_act"), view, "self", notes)
            peer_act = _act_or_default(data.get("peer_act"), view, "peer", notes)
            action = " ".join(str(data.get("action") or "").split())[:MAX_ACTION_CHARS]
        else:
            found_self = _mentioned(raw, view.library.names("self"))
            found_peer = _mentioned(raw, view.library.names("peer"))
            if found_self is None and found_peer is None:
                raise FormInvalid("no act of the library named in the output")
            notes.append(NOT_JSON + "the acts read by the names it mentions")
            self_act = _act_or_default(found_self, view, "self", notes)
            peer_act = _act_or_default(found_peer, view, "peer", notes)
            action = " ".join(ANSWER_LINE.sub("", raw).split())[:MAX_ACTION_CHARS]
        stance = None
        if stance_chars is not None:
            stance, note = read_stance(raw, view, stance_chars(view), comments=True)
            notes.extend([note] if note else [])
        return Composition(self_act, peer_act, action or f"{self_act}, {peer_act}", stance), "; ".join(notes) or None

    return parse


def pick_choices(view: AceView) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.answer for s in view.peers if s.answer is not None))


def parse_pick(raw: str, view: AceView) -> tuple[str | None, str | None]:
    note: str | None = NOT_JSON + "the answer read from the text"
    said: object = raw.strip()
    found_json = json_in(raw, "answer")
    if found_json is not None:
        data, note = found_json
        said = data.get("answer")
    answer = normalize_answer(said if isinstance(said, str) else None, view.question)
    choices = pick_choices(view)
    if answer is None and isinstance(said, str):
        answer = next((c for c in choices if c.casefold() == said.strip().casefold()), None)
    if answer not in choices:
        raise FormInvalid(f"the pick names none of the debaters' answers ({', '.join(choices)})")
    return answer, note
