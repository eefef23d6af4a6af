"""Kimura's three request kinds: an initial answer, an action plan, an utterance.

What it does: ``kimura_forms(prompts)`` builds the three ``Form``\\ s of the
protocol around one debate's ``PromptBuilder``:

* ``initial_answer``: a reason and an answer before the debate (JSON);
  fallback: no answer;
* ``plan``: Table II's action plan (JSON, constrained to the actions allowed
  now and the options); fallback: listen, urgency 0, keep the current answer;
* ``utterance``: what the speaker says (free text, a leading ``Name:`` and
  wrapping quotes removed); fallback: nothing, the floor is given back.

A person fills the same forms: an answer and a reason; an action, an urgency
0-9, an answer (blank keeps the current one) and optional purpose and
thought; or the words said. In a live seat the plan comes from the person's
standing stance instead (``plan_from_stance``): an armed interrupt
interrupts a speaker (or takes a free floor), a raised hand speaks when the
floor is free, and otherwise the person listens; the answer is the one they
currently chose.

What it does not do: decide who is asked (``protocol``) or render prompts
(``prompting``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from debate_core.config import DebateConfig
from debate_core.events.records import Action, ActionPlan
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from protocols.kimura.plans import (
    MAX_FREE_ANSWER_CHARS,
    MAX_PURPOSE_CHARS,
    MAX_REASON_CHARS,
    MAX_THOUGHT_CHARS,
    MAX_URGENCY,
    MIN_URGENCY,
    fallback_plan,
    initial_answer_json_schema,
    parse_initial_answer,
    parse_plan_text,
    plan_json_schema,
    validate_answer,
)
from protocols.kimura.prompting import PromptBuilder
from protocols.kimura.views import AgentView, UtteranceView

InitialValue = tuple[str | None, str]


@dataclass(frozen=True)
class KimuraForms:
    initial: Form[AgentView, InitialValue]
    plan: Form[AgentView, ActionPlan]
    utterance: Form[UtteranceView, str]

    def by_kind(self) -> dict[str, Form[Any, Any]]:
        return {form.kind: form for form in (self.initial, self.plan, self.utterance)}


def clean_utterance(raw: str, name: str) -> str:
    """Strip whitespace, wrapping quotes and a leading ``Name:`` the model may add."""
    text = raw.strip()
    for prefix in (f"{name}:", f"**{name}:**", f"{name} :"):
        if text.lower().startswith(prefix.lower()):
            text = text[len(prefix) :].strip()
            break
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text.count(text[0]) == 2:
        text = text[1:-1].strip()
    return text


def _answer_field(view: AgentView, *, required: bool) -> FieldSpec:
    labels = view.question.labels

    def check(value: Any) -> str | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise FormInvalid("choose an answer first")
            return view.current_answer
        return validate_answer(value, labels)

    if labels:
        return FieldSpec(
            "answer",
            "choice",
            "Your answer",
            choices=labels,
            required=required,
            default=view.current_answer,
            check=check,
        )
    return FieldSpec("answer", "text", "Your answer", max_chars=MAX_FREE_ANSWER_CHARS, required=required, check=check)


def _action_check(view: AgentView) -> Any:
    def check(value: Any) -> Action:
        if value is None or (isinstance(value, str) and not value.strip()):
            return Action.LISTEN
        try:
            chosen = Action(str(value).strip().lower())
        except ValueError:
            raise FormInvalid(f"unknown action {value!r}") from None
        if chosen not in view.allowed:
            raise FormInvalid(f"you can only {' or '.join(a.value for a in view.allowed)} right now")
        return chosen

    return check


def kimura_forms(prompts: PromptBuilder, utterance_max_new_tokens: int | None = None) -> KimuraForms:
    """The protocol's three request kinds, rendering prompts with ``prompts``; utterances are capped at
    ``utterance_max_new_tokens`` when it is set and below the configuration's ``max_new_tokens``."""
    unit = "message" if prompts.whole_messages else "sentence"

    def initial_fields(view: AgentView) -> tuple[FieldSpec, ...]:
        reason = FieldSpec("reason", "text", "Your reason", max_chars=MAX_REASON_CHARS, required=False)
        return (_answer_field(view, required=True), reason)

    def initial_from_human(values: Mapping[str, Any], view: AgentView) -> InitialValue:
        return values["answer"], values["reason"]

    initial: Form[AgentView, InitialValue] = Form(
        kind="initial_answer",
        description="an answer and a short reason, before the debate",
        render=prompts.initial_answer_messages,
        parse=lambda raw, view: _initial(raw, view),
        fallback=lambda view: (None, ""),
        fields=initial_fields,
        from_human=initial_from_human,
        human_raw=lambda value: f"answer={value[0]!r} reason={value[1]!r}",
        describe=lambda view: (
            f"### Before the debate, {view.agent}\nGive your initial answer and, if you like, a reason."
        ),
        schema=lambda view: initial_answer_json_schema(view.question.labels),
        seed_salt=0,
        cacheable=False,
        template="initial_answer.txt",
    )

    def plan_fields(view: AgentView) -> tuple[FieldSpec, ...]:
        actions = tuple(a.value for a in view.allowed)
        return (
            FieldSpec("action", "choice", "Action", choices=actions, required=False, check=_action_check(view)),
            FieldSpec(
                "urgency", "integer", "Urgency", minimum=MIN_URGENCY, maximum=MAX_URGENCY, required=False, default=0
            ),
            _answer_field(view, required=False),
            FieldSpec("purpose", "text", "Purpose", max_chars=MAX_PURPOSE_CHARS, required=False),
            FieldSpec("thought", "text", "Private thought", max_chars=MAX_THOUGHT_CHARS, required=False),
        )

    def plan_from_human(values: Mapping[str, Any], view: AgentView) -> ActionPlan:
        return ActionPlan(
            thought=values["thought"],
            action=values["action"],
            urgency=values["urgency"],
            purpose=values["purpose"],
            answer=values["answer"],
        )

    def plan_from_stance(stance: Mapping[str, Any], view: AgentView) -> ActionPlan:
        """What a seated person's live controls say: interrupt (armed), raise a hand, or listen."""
        intent = stance.get("intent", "listen")
        urgency = stance.get("urgency", MAX_URGENCY)
        if isinstance(urgency, bool) or not isinstance(urgency, int) or not MIN_URGENCY <= urgency <= MAX_URGENCY:
            urgency = MAX_URGENCY
        try:
            answer = validate_answer(stance["answer"], view.question.labels) if stance.get("answer") else None
        except FormInvalid:
            answer = None
        action = Action.LISTEN
        if intent == "interrupt" and Action.INTERRUPT in view.allowed:
            action = Action.INTERRUPT
        elif intent in ("interrupt", "raise") and Action.SPEAK in view.allowed:
            action = Action.SPEAK
        return ActionPlan(
            thought="",
            action=action,
            urgency=urgency if action is not Action.LISTEN else MIN_URGENCY,
            purpose="",
            answer=answer or view.current_answer,
        )

    def describe_plan(view: AgentView) -> str:
        holder = f"{view.floor_holder} holds the floor" if view.floor_holder else "nobody holds the floor"
        return (
            f"### Turn {view.turn}: your move, {view.agent}\n{holder}; {view.tokens_left} tokens left. "
            "Choose an action and urgency (interrupt takes effect at the next turn)."
        )

    plan: Form[AgentView, ActionPlan] = Form(
        kind="plan",
        description="an action plan: thought, urgency 0-9, action, purpose and answer (Algorithm 1's order)",
        render=prompts.plan_messages,
        parse=lambda raw, view: parse_plan_text(raw, view.allowed, view.question.labels),
        fallback=lambda view: fallback_plan(view.current_answer),
        fields=plan_fields,
        from_human=plan_from_human,
        human_raw=lambda value: value.model_dump_json(),
        describe=describe_plan,
        schema=lambda view: plan_json_schema(view.allowed, view.question.labels),
        from_stance=plan_from_stance,
        seed_salt=1,
        template="plan.txt" if prompts.layout.value == "paper" else "plan_cached.txt",
    )

    def utterance_parse(raw: str, view: UtteranceView) -> tuple[str, str | None]:
        text = clean_utterance(raw, view.base.agent)
        if not text:
            raise FormInvalid("the model produced an empty utterance")
        return text, None

    def utterance_cap(config: DebateConfig) -> int:
        if utterance_max_new_tokens is None:
            return config.max_new_tokens
        return min(config.max_new_tokens, utterance_max_new_tokens)

    utterance: Form[UtteranceView, str] = Form(
        kind="utterance",
        description="the speaker's next words",
        render=prompts.utterance_messages,
        parse=utterance_parse,
        fallback=lambda view: "",
        fields=lambda view: (
            FieldSpec(
                "text",
                "text",
                "What you say",
                noun="message",
                empty_message="say something first: the message is empty",
                words=True,
            ),
        ),
        from_human=lambda values, view: values["text"],
        describe=lambda view: (
            f"### You have the floor, {view.base.agent}\nType what you say; it is disclosed one {unit} per "
            "turn, and the others may interrupt you."
        ),
        token_cap=utterance_cap,
        seed_salt=2,
        template="utterance.txt" if prompts.layout.value == "paper" else "utterance_cached.txt",
    )
    return KimuraForms(initial, plan, utterance)


def _initial(raw: str, view: AgentView) -> tuple[InitialValue, str | None]:
    answer, reason, note = parse_initial_answer(raw, view.question.labels)
    return (answer, reason), note
