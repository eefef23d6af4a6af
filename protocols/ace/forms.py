"""ACE's request kinds: answers, the observer's analysis and pick, composed acts, executed actions.

What it does: builds the ``Form`` kinds the debate asks, each rendering its
template from ``prompts/``, whose prompt asks for JSON (as the paper's do);
with ``constrained`` on (this project's option) each also carries its JSON
schema, which a backend with constrained decoding enforces:

* ``answer`` (round 1, and the parallel baseline's first answer) and
  ``revise`` (the parallel baseline's later rounds; both on Du et al.'s
  prompts and read as prose in the baseline by default, ``du``): ``{"answer",
  "explanation": [items]}``; ``execute``: the same plus ``"comments"`` to the
  other debater. The answer is an option label (an enum in the schema) or a
  short free-form answer; the items are capped in number (``items``) and
  length (so that the JSON closes within the token cap). A reply that is not
  JSON is read by its ``Answer:`` line, its numbered or bulleted lines and a
  ``Comment:`` line. Execute's prompt is the paper's, followed by the action
  (``execute_input=paper``), or the richer input (``rich``). Fallbacks: an answer naming no option keeps the
  debater's previous answer (noted); no usable reply at all keeps the
  previous reply (in round 1: no answer);
* ``analyze`` (the observer): ``{"answers_agree", "explanations_similar",
  "similar": [[i, j]], "dissimilar": [[i, j]], "stop", "reason"}``; item pairs
  that point at items that do not exist are dropped (noted). Fallback (no
  usable JSON): the answers compared directly, the explanations taken as
  different, no item pairs, and **no stop**: a broken analysis never ends a
  debate;
* ``compose``: ``{"self_act", "peer_act", "action"}`` with the acts as enums
  from the library; a reply that is not JSON is read by the first act names
  it mentions. An unknown act is replaced by ``retain`` / ``withhold`` (or
  the library's first act of that orientation), noted. Fallback: retain and
  withhold, "keep my answer";
* ``compose_execute`` (the ``no_execute`` ablation): the acts and the answer
  in one reply; fallback: retain, withhold and the previous reply;
* ``pick`` (the observer, when the debaters still disagree at the end):
  ``{"answer"}``, one of the debaters' answers. Fallback: none (the loop then
  draws one of them with the debate's seeded generator, and says so).

A person fills the same forms: an answer, explanation items one per line and
an optional comment; the acts from two lists and the action; as the
observer, yes/no for agreement, similarity and stop, item pairs written as
``1-2, 3-1``, and a reason; the pick from the debaters' answers.

What it does not do: decide who is asked when (``loop``) or word prompts
(``prompts/``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from debate_core.kernel.answers import MAX_FREE_ANSWER, normalize_answer
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from protocols.ace.du import du_form
from protocols.ace.params import AceParams
from protocols.ace.prompting import render
from protocols.ace.replies import (
    CHARS_PER_TOKEN,
    MAX_ACTION_CHARS,
    MAX_REASON_CHARS,
    PAIR,
    Analysis,
    Composition,
    answer_schema,
    compared,
    composition_parser,
    item_chars,
    item_counts,
    items_schema,
    json_object,
    kept,
    parse_analysis,
    parse_pick,
    pick_choices,
    read_stance,
)
from protocols.ace.views import AceView, PairFindings, Stance

__all__ = ["AceForms", "Analysis", "Composition", "ace_forms"]

# -- a person's values ---------------------------------------------------------------------------


def _answer_field(view: AceView) -> FieldSpec:
    if view.question.labels:
        return FieldSpec("answer", "choice", "Your answer", choices=view.question.labels, noun="answer")
    label = "Your answer (a few words)"
    return FieldSpec("answer", "text", label, max_chars=MAX_FREE_ANSWER, noun="answer", words=True)


def _stance_fields(view: AceView, *, comments: bool) -> tuple[FieldSpec, ...]:
    explanation = FieldSpec(
        "explanation",
        "text",
        f"Your explanation: at most {view.items} items, one per line",
        max_chars=view.items * (view.item_chars + 8),
        words=True,
        noun="explanation",
    )
    comment = FieldSpec(
        "comments", "text", "Your comment to the other debater", required=False, max_chars=view.item_chars
    )
    return (_answer_field(view), explanation, *((comment,) if comments else ()))


def _stance_from_human(values: Mapping[str, Any], view: AceView) -> Stance:
    items = [line.strip(" -*•").strip() for line in str(values.get("explanation") or "").splitlines()]
    numbered = [re.sub(r"^\d+[.)]\s*", "", item) for item in items if item]
    answer = normalize_answer(values.get("answer"), view.question)
    return Stance(view.agent, answer, tuple(numbered[: view.items]), str(values.get("comments") or ""))


# -- the forms -------------------------------------------------------------------------------------


def stance_form(kind: str, description: str, template: str, cap: int, *, comments: bool) -> Form[AceView, Stance]:
    """A debater's reply: answer and items (``comments`` adds the comment to the other debater)."""

    def schema(view: AceView) -> dict[str, Any]:
        chars = item_chars(view, cap, 2 if comments else 1)
        properties = {"answer": answer_schema(view), "explanation": items_schema(view, chars)}
        if comments:
            properties["comments"] = {"type": "string", "maxLength": chars}
        return json_object(properties)

    return Form(
        kind=kind,
        description=description,
        render=lambda view: render(template, view),
        parse=lambda raw, view: read_stance(raw, view, item_chars(view, cap, 2), comments=comments),
        fallback=kept,
        fields=lambda view: _stance_fields(view, comments=comments),
        from_human=_stance_from_human,
        human_raw=lambda stance: "\n".join(stance.explanation) + f"\nAnswer: {stance.answer}",
        describe=lambda view: f"Carry out your action ({' + '.join(view.acts)})" if view.acts else description,
        schema=schema,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template,
    )


def _pairs_check(sizes: Callable[[], tuple[int, int]]) -> Callable[[Any], Any]:
    def check(value: Any) -> tuple[tuple[int, int], ...]:
        text = str(value or "").strip()
        pairs: list[tuple[int, int]] = []
        for part in filter(None, (p.strip() for p in re.split(r"[;\n]|,(?=\s*\d+\s*[-/:])", text))):
            match = PAIR.match(part)
            if match is None:
                shape = "write item pairs as 1-2, 3-1 (the first debater's item, then the second's)"
                raise FormInvalid(f"{shape}: {part!r}")
            i, j = int(match.group(1)), int(match.group(2))
            first, second = sizes()
            if not (1 <= i <= first and 1 <= j <= second):
                raise FormInvalid(f"there is no item pair {i}-{j}: the debaters have {first} and {second} items")
            pairs.append((i, j))
        return tuple(pairs)

    return check


def analyze_form(cap: int) -> Form[AceView, Analysis]:
    """The observer's analysis of the pair of debaters (see the module docstring)."""

    def schema(view: AceView) -> dict[str, Any]:
        most = max(1, view.items)
        pair = {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": most},
            "minItems": 2,
            "maxItems": 2,
        }
        pairs = {"type": "array", "items": pair, "maxItems": most}
        reason = {"type": "string", "maxLength": max(40, min(MAX_REASON_CHARS, CHARS_PER_TOKEN * cap - 200))}
        return json_object(
            {
                "answers_agree": {"type": "boolean"},
                "explanations_similar": {"type": "boolean"},
                "similar": pairs,
                "dissimilar": pairs,
                "stop": {"type": "boolean"},
                "reason": reason,
            }
        )

    def fields(view: AceView) -> tuple[FieldSpec, ...]:
        sizes = lambda: item_counts(view)  # noqa: E731
        pair_help = f"pairs of item numbers, {view.peers[0].agent}'s first: 1-2, 3-1"
        similar = FieldSpec(
            "similar", "text", "Matching items", required=False, help=pair_help, check=_pairs_check(sizes)
        )
        differing = FieldSpec(
            "dissimilar", "text", "Differing items", required=False, help=pair_help, check=_pairs_check(sizes)
        )
        return (
            FieldSpec("answers_agree", "boolean", "Do the answers agree?", default=compared(view).answers_agree),
            FieldSpec("explanations_similar", "boolean", "Are the explanations similar overall?", default=False),
            similar,
            differing,
            FieldSpec("stop", "boolean", "Stop the debate now?", default=False),
            FieldSpec("reason", "text", "Why (one sentence)", required=False, max_chars=MAX_REASON_CHARS),
        )

    def from_human(values: Mapping[str, Any], view: AceView) -> Analysis:
        first, second = view.peers[0].agent, view.peers[1].agent
        findings = PairFindings(
            first,
            second,
            bool(values["answers_agree"]),
            bool(values["explanations_similar"]),
            tuple(values.get("similar") or ()),
            tuple(values.get("dissimilar") or ()),
        )
        return Analysis(findings, bool(values["stop"]), str(values.get("reason") or ""))

    return Form(
        kind="analyze",
        description="the observer's analysis of the debaters' replies",
        render=lambda view: render("analyze", view),
        parse=parse_analysis,
        fallback=lambda view: Analysis(compared(view), False, "no usable analysis: the debate goes on"),
        fields=fields,
        from_human=from_human,
        human_raw=lambda analysis: f"stop={analysis.stop} {analysis.reason}",
        describe=lambda view: "Compare the debaters' answers and explanations; say whether to stop",
        schema=schema,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template="analyze",
    )


def _act_fields(view: AceView) -> tuple[FieldSpec, FieldSpec]:
    library = view.library
    own = FieldSpec("self_act", "choice", "Your own answer: act", choices=library.names("self"))
    peer = FieldSpec("peer_act", "choice", "The other's answer: act", choices=library.names("peer"))
    return (
        dataclasses.replace(own, help=library.describe("self")),
        dataclasses.replace(peer, help=library.describe("peer")),
    )


def compose_form(cap: int, *, with_answer: bool = False) -> Form[AceView, Composition]:
    """The acts and the action (``with_answer``: the ``no_execute`` ablation's one-step reply)."""
    kind = "compose_execute" if with_answer else "compose"

    def chars(view: AceView) -> int:
        return item_chars(view, cap, 3)

    def schema(view: AceView) -> dict[str, Any]:
        properties: dict[str, Any] = {
            "self_act": {"type": "string", "enum": list(view.library.names("self"))},
            "peer_act": {"type": "string", "enum": list(view.library.names("peer"))},
        }
        if with_answer:
            properties["answer"] = answer_schema(view)
            properties["explanation"] = items_schema(view, chars(view))
            properties["comments"] = {"type": "string", "maxLength": chars(view)}
        else:
            limit = max(40, min(MAX_ACTION_CHARS, CHARS_PER_TOKEN * min(view.token_cap, cap) - 80))
            properties["action"] = {"type": "string", "minLength": 1, "maxLength": limit}
        return json_object(properties)

    def fields(view: AceView) -> tuple[FieldSpec, ...]:
        if with_answer:
            return (*_act_fields(view), *_stance_fields(view, comments=True))
        action = FieldSpec("action", "text", "What you will do", max_chars=MAX_ACTION_CHARS, words=True, noun="action")
        return (*_act_fields(view), action)

    def from_human(values: Mapping[str, Any], view: AceView) -> Composition:
        stance = _stance_from_human(values, view) if with_answer else None
        action = str(values.get("action") or f"{values['self_act']}, {values['peer_act']}")
        return Composition(values["self_act"], values["peer_act"], action, stance)

    def fallback(view: AceView) -> Composition:
        names = view.library
        self_act = "retain" if "retain" in names.names("self") else names.names("self")[0]
        peer_act = "withhold" if "withhold" in names.names("peer") else names.names("peer")[0]
        return Composition(self_act, peer_act, "Keep my answer.", kept(view) if with_answer else None)

    return Form(
        kind=kind,
        description="the discussion acts chosen for this round" + (" and the new answer" if with_answer else ""),
        render=lambda view: render(kind, view),
        parse=composition_parser(chars if with_answer else None),
        fallback=fallback,
        fields=fields,
        from_human=from_human,
        human_raw=lambda c: f"{c.self_act} + {c.peer_act}: {c.action}",
        describe=lambda view: "Choose your acts for this round" + (" and give your answer" if with_answer else ""),
        schema=schema,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=kind,
    )


def _pick_fields(view: AceView) -> tuple[FieldSpec, ...]:
    return (FieldSpec("answer", "choice", "The debate's answer", choices=pick_choices(view), noun="pick"),)


def pick_form(cap: int) -> Form[AceView, str | None]:
    """The observer picks one of the debaters' answers when they still disagree at the end."""
    return Form(
        kind="pick",
        description="the observer's pick among the debaters' answers",
        render=lambda view: render("pick", view),
        parse=parse_pick,
        fallback=lambda view: None,
        fields=lambda view: _pick_fields(view),
        from_human=lambda values, view: str(values["answer"]),
        human_raw=lambda answer: str(answer),
        describe=lambda view: "The debaters disagree: pick the debate's answer",
        schema=lambda view: json_object({"answer": {"type": "string", "enum": list(pick_choices(view))}}),
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template="pick",
    )


@dataclass(frozen=True)
class AceForms:
    """Every request kind of ACE and its baseline, built for one set of parameters."""

    answer: Form[AceView, Stance]
    revise: Form[AceView, Stance]
    execute: Form[AceView, Stance]
    analyze: Form[AceView, Analysis]
    compose: Form[AceView, Composition]
    compose_execute: Form[AceView, Composition]
    pick: Form[AceView, str | None]

    def by_kind(self) -> dict[str, Form[AceView, Any]]:
        forms = (self.answer, self.revise, self.execute, self.analyze, self.compose, self.compose_execute, self.pick)
        return {form.kind: form for form in forms}


def _unconstrained(view: AceView) -> None:
    return None


def ace_forms(params: AceParams, variant: str = "ace") -> AceForms:
    """Every form for ``params`` and ``variant``; with ``constrained`` off (the default, the paper) no form sends
    its schema (the prompts ask for JSON either way). Execute renders the paper's prompt and the action
    (``execute_input=paper``) or the richer input (``rich``); the parallel baseline asks on Du et al.'s prompts
    (``par_prompts=du``, ``du``) or on ACE's own (``ace``)."""
    answer_cap = params.answer_tokens
    execute = "execute" if params.execute_input == "paper" else "execute_rich"
    answer = stance_form("answer", "a first answer with its explanation", "answer", answer_cap, comments=False)
    revise = stance_form("revise", "an answer revised after the others'", "revise", answer_cap, comments=False)
    if variant == "parallel" and params.par_prompts == "du":
        answer, revise = du_form(answer), du_form(revise)
    forms = AceForms(
        answer=answer,
        revise=revise,
        execute=stance_form("execute", "the composed action, carried out", execute, answer_cap, comments=True),
        analyze=analyze_form(params.analyze_tokens),
        compose=compose_form(params.compose_tokens),
        compose_execute=compose_form(params.compose_tokens + answer_cap, with_answer=True),
        pick=pick_form(params.pick_tokens),
    )
    if params.constrained:
        return forms
    plain = {
        f.name: dataclasses.replace(getattr(forms, f.name), schema=_unconstrained) for f in dataclasses.fields(forms)
    }
    return AceForms(**plain)
