"""Listener decisions: after a disclosed unit, does a listener interrupt (or raise a point) now?

What it does: a ``Decision`` is a yes/no with an optional payload (the text of
a point of information). ``decision_form`` builds the request kind that asks
a seat for one (a model answers "Yes"/"No", "INTERRUPT: <point>"/"NO", or
the JSON of ``decision_schema`` when the form constrains it; a person ticks a
box and may type the point), and an ``InterruptPolicy`` decides
for a group of listeners at once (model listeners in one batch):

* ``NeverPolicy``: never interrupts (non-interruptible baselines);
* ``RandomPolicy``: per utterance, each listener picks one unit boundary at
  random (seeded by the debate seed, the listener and the utterance) and
  interrupts there; ``allow_none`` adds "no interruption" as one more choice;
* ``PromptedPolicy``: asks the listener's seat the decision form (a person in
  that seat answers the same form; a fine-tuned listener is a prompted
  policy on the listener's own backend, see ``backends.router``);
* ``ThresholdPolicy``: asks the form for the probability of its first choice
  ("Yes") and interrupts iff it reaches ``tau`` (needs ``CHOICE_PROBS``);
* ``ForcedPolicy``: fixed decisions at given points, another policy elsewhere
  (for tree-sampled training data).

What it does not do: emit events or act on a decision (``Table.decide`` records
decisions; the protocol decides what an interruption leads to). A policy reads
the table only through ``state.TableState`` (the seed, the fork salt, ``ask``).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from debate_core.backends.base import Capability, Message, Signals
from debate_core.config import DebateConfig
from debate_core.events.records import Source
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid, FormResult
from debate_core.kernel.replies import load_object
from debate_core.kernel.state import TableState

_YES_WORDS = ("yes", "interrupt", "y")
_NO_WORDS = ("no", "n", "listen", "continue")


@dataclass(frozen=True, slots=True)
class Decision:
    """Interrupt now or not, with an optional payload (a point of information)."""

    interrupt: bool
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Decided:
    """One listener's decision as a policy reached it: the probability when known, the seat's reply."""

    decision: Decision
    p_interrupt: float | None = None
    reply: FormResult[Decision] | None = None
    policy: str | None = None


def parse_decision(raw: str, with_text: bool) -> Decision:
    """``Yes``/``No`` (first word), ``INTERRUPT: <text>`` / ``NO`` with a payload, or the JSON object
    ``{"interrupt": true|false, "point": "..."}`` of ``decision_schema``; raises ``FormInvalid``."""
    text = raw.strip()
    if text.startswith("{"):
        data, _ = load_object(text)
        interrupt, point = data.get("interrupt"), data.get("point")
        if not isinstance(interrupt, bool):
            raise FormInvalid('the JSON decision has no "interrupt": true or false')
        payload = point.strip() if isinstance(point, str) and any(ch.isalnum() for ch in point) else None
        if interrupt and with_text and payload is None:
            raise FormInvalid("an interruption without its point")
        return Decision(interrupt, payload if interrupt else None)
    head, sep, rest = text.partition(":")
    words = (head if sep else text).split(maxsplit=1)  # empty when the reply is blank or starts with ":"
    word = words[0].strip(" .,!*\"'`").casefold() if words else ""
    if word in _NO_WORDS:
        return Decision(False)
    if word in _YES_WORDS:
        payload = rest.strip() if sep else (words[1].strip() if len(words) > 1 else "")
        if with_text and not payload:
            raise FormInvalid("an interruption without its point")
        return Decision(True, payload or None)
    raise FormInvalid(f"expected yes or no, got {text[:40]!r}")


def decision_schema(with_text: bool, max_chars: int = 300) -> dict[str, Any]:
    """A JSON schema for a decision (and its point): what constrained decoding holds a model to."""
    properties: dict[str, Any] = {"interrupt": {"type": "boolean"}}
    if with_text:
        properties["point"] = {"type": "string", "maxLength": max_chars}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def decision_form(
    kind: str,
    description: str,
    render: Callable[[Any], tuple[Message, ...]],
    *,
    describe: Callable[[Any], str] = lambda view: "",
    with_text: bool = False,
    choices: tuple[str, str] = ("Yes", "No"),
    probabilities: bool = False,
    text_tokens: int = 96,
    template: str = "",
    schema: Mapping[str, Any] | None = None,
) -> Form[Any, Decision]:
    """A yes/no request kind (with a payload when ``with_text``); the fallback is not to interrupt."""

    def parse(raw: str, view: Any) -> tuple[Decision, str | None]:
        return parse_decision(raw, with_text), None

    def fields(view: Any) -> tuple[FieldSpec, ...]:
        box = FieldSpec("interrupt", "boolean", "Interrupt now?", required=False, default=False)
        if not with_text:
            return (box,)
        point = FieldSpec(
            "text", "text", "Your point (if you interrupt)", required=False, max_chars=1_000, noun="point"
        )
        return (box, point)

    def from_human(values: Mapping[str, Any], view: Any) -> Decision:
        interrupt = bool(values.get("interrupt"))
        text = values.get("text") or None
        if interrupt and with_text and not text:
            raise FormInvalid("say what your point is, or do not interrupt")
        return Decision(interrupt, text if interrupt else None)

    def human_raw(decision: Decision) -> str:
        return (
            f"yes: {decision.text}" if decision.interrupt and decision.text else ("yes" if decision.interrupt else "no")
        )

    def cap(config: DebateConfig) -> int:
        return min(config.max_new_tokens, text_tokens) if with_text else 1

    def from_stance(stance: Mapping[str, Any], view: Any) -> Decision:
        """A seated person's live controls: interrupt when armed (with the point they typed, where a point
        belongs; the channel has cleaned and bounded it)."""
        point = stance.get("point") if with_text and isinstance(stance.get("point"), str) else None
        armed = stance.get("intent") == "interrupt" and (point or not with_text)
        return Decision(True, point) if armed else Decision(False)

    return Form(
        kind=kind,
        description=description,
        render=render,
        parse=parse,
        fallback=lambda view: Decision(False),
        fields=fields,
        from_human=from_human,
        human_raw=human_raw,
        describe=describe,
        signals=Signals(choices=choices) if probabilities else Signals(),
        token_cap=cap,
        from_stance=from_stance,
        template=template,
        schema=lambda view: schema,
    )


class InterruptPolicy(ABC):
    """Decides, after a disclosed unit, whether each listener interrupts."""

    name: str = "policy"

    def requirements(self) -> frozenset[Capability]:
        return frozenset()

    @abstractmethod
    def decide(
        self, table: TableState, listeners: Sequence[str], floor: Floor, view: Callable[[str], Any]
    ) -> dict[str, Decided]: ...


class NeverPolicy(InterruptPolicy):
    name = "never"

    def decide(
        self, table: TableState, listeners: Sequence[str], floor: Floor, view: Callable[[str], Any]
    ) -> dict[str, Decided]:
        return {name: Decided(Decision(False), 0.0) for name in listeners}


class RandomPolicy(InterruptPolicy):
    """One random interruption point per listener and utterance (seeded)."""

    name = "random"

    def __init__(self, allow_none: bool = False) -> None:
        self.allow_none = allow_none

    def decide(
        self, table: TableState, listeners: Sequence[str], floor: Floor, view: Callable[[str], Any]
    ) -> dict[str, Decided]:
        unit = floor.disclosed - 1
        boundaries = max(0, len(floor.units) - 1)  # after the last unit there is nothing to cut
        options = boundaries + (1 if self.allow_none else 0)
        decided = {}
        for name in listeners:
            if options == 0:
                decided[name] = Decided(Decision(False), 0.0)
                continue
            salt = f"/{table.salt}" if table.salt else ""  # a rollout after a fork draws afresh
            rng = random.Random(f"{table.config.seed}/random/{name}/{floor.utterance_id}{salt}")
            point = rng.randrange(options)
            hit = point == unit and unit < boundaries
            left = options - unit
            decided[name] = Decided(Decision(hit), 1.0 / left if unit < boundaries and left > 0 else 0.0)
        return decided


class PromptedPolicy(InterruptPolicy):
    """Each listener's seat answers the decision form (one batch for the model seats)."""

    name = "prompted"

    def __init__(self, form: Form[Any, Decision]) -> None:
        self.form = form

    def requirements(self) -> frozenset[Capability]:
        return self.form.signals.needs()

    def decide(
        self, table: TableState, listeners: Sequence[str], floor: Floor, view: Callable[[str], Any]
    ) -> dict[str, Decided]:
        replies = table.ask(self.form, listeners, view, nonce=floor.disclosed)
        return {name: Decided(r.value, self._p(r), r) for name, r in replies.items()}

    def _p(self, reply: FormResult[Decision]) -> float | None:
        probs = reply.completion.choice_probs if reply.completion is not None else None
        if probs and self.form.signals.choices:
            return float(probs.get(self.form.signals.choices[0], 0.0))
        return None


class ThresholdPolicy(PromptedPolicy):
    """Interrupt iff P(first choice) >= ``tau``; a person's own answer stands."""

    name = "threshold"

    def __init__(self, form: Form[Any, Decision], tau: float) -> None:
        if not form.signals.choices:
            raise ValueError("a threshold policy needs a decision form that asks for choice probabilities")
        super().__init__(form)
        self.tau = tau

    def requirements(self) -> frozenset[Capability]:
        return frozenset({Capability.CHOICE_PROBS})

    def decide(
        self, table: TableState, listeners: Sequence[str], floor: Floor, view: Callable[[str], Any]
    ) -> dict[str, Decided]:
        decided = super().decide(table, listeners, floor, view)
        for name, item in decided.items():
            if item.reply is not None and item.reply.source is Source.MODEL and item.p_interrupt is not None:
                decision = Decision(item.p_interrupt >= self.tau, item.decision.text)
                decided[name] = Decided(decision, item.p_interrupt, item.reply)
        return decided


class ForcedPolicy(InterruptPolicy):
    """Fixed decisions at ``(listener, utterance_id, unit_index)`` points; ``otherwise`` elsewhere."""

    name = "forced"

    def __init__(self, at: Mapping[tuple[str, int, int], bool], otherwise: InterruptPolicy) -> None:
        self.at = dict(at)
        self.otherwise = otherwise

    def requirements(self) -> frozenset[Capability]:
        return self.otherwise.requirements()

    def decide(
        self, table: TableState, listeners: Sequence[str], floor: Floor, view: Callable[[str], Any]
    ) -> dict[str, Decided]:
        unit = floor.disclosed - 1
        free = [name for name in listeners if (name, floor.utterance_id, unit) not in self.at]
        decided = self.otherwise.decide(table, free, floor, view) if free else {}
        for name in listeners:
            key = (name, floor.utterance_id, unit)
            if key in self.at:
                decided[name] = Decided(Decision(self.at[key]), 1.0 if self.at[key] else 0.0, policy=self.name)
        return {name: decided[name] for name in listeners}
