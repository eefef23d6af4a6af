"""Renders agent views into chat messages using the template files in ``prompts/``.

What it does: loads ``plan.txt`` (the paper's Algorithm 1), ``utterance.txt``,
``initial_answer.txt``, ``persona.txt`` and the small pieces in
``fragments.toml`` once, and fills them with ``string.Template`` (``${field}``),
so JSON braces in templates need no escaping and text from agents is inserted
verbatim, never interpreted. A persona, when set, becomes the system message.

What it does not do: decide what an agent may see (``views`` does) or call a
model. The prompt text itself lives in the template files, not here.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from debate_core.backends.base import Message
from debate_core.config import PromptLayout
from debate_core.events.records import Action
from debate_core.kernel.history import HistoryLine, LineKind
from protocols.kimura.views import AgentView, UtteranceView


@dataclass(frozen=True)
class Templates:
    plan: Template
    utterance: Template
    initial_answer: Template
    persona: Template
    fragments: dict[str, dict[str, Template]]

    def fragment(self, section: str, key: str, **fields: Any) -> str:
        return self.fragments[section][key].substitute(fields)


@cache
def load_templates(layout: PromptLayout = PromptLayout.PAPER) -> Templates:
    """Read the template files shipped in the package (cached per process)."""
    folder = resources.files("protocols.kimura") / "prompts"

    def read(name: str) -> Template:
        return Template((folder / name).read_text(encoding="utf-8").strip())

    raw = tomllib.loads((folder / "fragments.toml").read_text(encoding="utf-8"))
    fragments = {section: {key: Template(text) for key, text in entries.items()} for section, entries in raw.items()}
    suffix = "" if layout is PromptLayout.PAPER else f"_{layout.value}"
    return Templates(
        plan=read(f"plan{suffix}.txt"),
        utterance=read(f"utterance{suffix}.txt"),
        initial_answer=read("initial_answer.txt"),
        persona=read("persona.txt"),
        fragments=fragments,
    )


class PromptBuilder:
    """Turns views into the messages sent to a model.

    One builder serves one debate. It remembers rendered history lines and the
    last rendered blocks (by identity of the tuples it was given), because all
    agents of a turn share the same turn log and initial answers: rendering
    them once per turn instead of once per agent keeps the engine's own cost
    per turn well under a millisecond.
    """

    def __init__(self, layout: PromptLayout = PromptLayout.PAPER, whole_messages: bool = False):
        self.layout = layout
        self.whole_messages = whole_messages
        self.templates = load_templates(layout)
        self._disclosure = self.templates.fragment("disclosure", "messages" if whole_messages else "sentences")
        self._lines: dict[HistoryLine, str] = {}
        self._thought_lines: dict[tuple[int, str], str] = {}
        self._blocks: dict[str, tuple[object, str]] = {}

    def _memo(self, slot: str, key: object, render: Callable[[], str]) -> str:
        cached = self._blocks.get(slot)
        if cached is not None and cached[0] is key:
            return cached[1]
        text = render()
        self._blocks[slot] = (key, text)
        return text

    # -- public -----------------------------------------------------------
    def plan_messages(self, view: AgentView) -> tuple[Message, ...]:
        t = self.templates
        held = view.floor_holder is not None
        body = t.plan.substitute(
            name=view.agent,
            others=self.others(view),
            log=self.log_block(view.turn_log, view.previous_thoughts),
            question=view.question.render(),
            token_budget=view.token_budget,
            tokens_left=view.tokens_left,
            disclosure_rule=self._disclosure,
            initial_answers=self.initial_answers_block(view),
            turn_log=self.history_block(view.turn_log),
            previous_thoughts=self.memory_block(view.previous_thoughts),
            last_event=self.event_line(view.last_event),
            turn=view.turn,
            actions=self.actions_block(view.allowed, held),
            action_hint=t.fragment("action_hint", "floor_held" if held else "floor_free"),
            action_choices=self.action_choices(view.allowed),
            answer_choices=self.answer_choices(view),
        )
        return self._with_persona(view, body)

    def utterance_messages(self, uview: UtteranceView) -> tuple[Message, ...]:
        view = uview.base
        t = self.templates
        if uview.interrupting:
            situation = t.fragment("situation", "interrupting", target=uview.interrupting, text=uview.interrupted_text)
        else:
            situation = t.fragment("situation", "floor")
        body = t.utterance.substitute(
            name=view.agent,
            others=self.others(view),
            log=self.log_block(uview.history, view.previous_thoughts),
            turn=view.turn,
            question=view.question.render(),
            initial_answers=self.initial_answers_block(view),
            turn_log=self.history_block(uview.history),
            previous_thoughts=self.memory_block(view.previous_thoughts),
            thought=uview.plan.thought or "-",
            purpose=uview.plan.purpose or "-",
            answer=uview.plan.answer or t.fragment("initial", "no_answer"),
            situation=situation,
            tokens_left=view.tokens_left,
            token_budget=view.token_budget,
            disclosure_rule=self._disclosure,
        )
        return self._with_persona(view, body)

    def initial_answer_messages(self, view: AgentView) -> tuple[Message, ...]:
        body = self.templates.initial_answer.substitute(
            name=view.agent,
            others=self.others(view),
            question=view.question.render(),
            answer_choices=self.answer_choices(view),
        )
        return self._with_persona(view, body)

    # -- blocks -----------------------------------------------------------
    @staticmethod
    def others(view: AgentView) -> str:
        return ", ".join(m for m in view.members if m != view.agent)

    def log_block(self, lines: tuple[HistoryLine, ...], thoughts: tuple[tuple[int, str], ...]) -> str:
        """History with the agent's own thoughts after each turn (the append-only layout).

        A thought made at turn k follows the line of turn k; a thought made at
        turn 0 comes first. Nothing stands in for an empty log, so the first
        line only appends. Rendered lines are remembered, so each turn only
        renders what is new.
        """
        by_turn: dict[int, list[str]] = {}
        for turn, thought in thoughts:
            by_turn.setdefault(turn, []).append(self._interleaved(turn, thought))
        parts = list(by_turn.pop(0, [])) if not lines or lines[0].turn <= 1 else []
        for line in lines:
            if line.kind is LineKind.START:
                continue
            parts.append(self.history_line(line))
            parts.extend(by_turn.pop(line.turn, []))
        return "".join(f"{part}\n" for part in parts)

    def _interleaved(self, turn: int, thought: str) -> str:
        key = (-1 - turn, thought)  # distinct from the memory block's keys
        text = self._thought_lines.get(key)
        if text is None:
            text = self._thought_lines[key] = self.templates.fragment("memory", "interleaved", thought=thought)
        return text

    def history_block(self, lines: tuple[HistoryLine, ...]) -> str:
        def render() -> str:
            rendered = [self.history_line(line) for line in lines if line.kind is not LineKind.START]
            return "\n".join(rendered) if rendered else self.templates.fragment("history", "empty")

        return self._memo("history", lines, render)

    def history_line(self, line: HistoryLine) -> str:
        text = self._lines.get(line)
        if text is None:
            text = self._lines[line] = self._render_line(line)
        return text

    def _render_line(self, line: HistoryLine) -> str:
        t = self.templates
        if line.kind is LineKind.SILENCE:
            return t.fragment("history", "silence", turn=line.turn)
        if line.kind is LineKind.START:
            return t.fragment("event", "start")
        if line.interrupting:
            text = t.fragment(
                "history",
                "interruption",
                turn=line.turn,
                speaker=line.speaker,
                target=line.interrupting,
                text=line.text,
            )
        else:
            text = t.fragment("history", "speech", turn=line.turn, speaker=line.speaker, text=line.text)
        if line.finished:
            text += t.fragment("history", "finished", speaker=line.speaker)
        return text

    def event_line(self, line: HistoryLine) -> str:
        if line.kind is LineKind.START:
            return self.templates.fragment("event", "start")
        if line.kind is LineKind.SILENCE:
            return self.templates.fragment("event", "silence")
        return self.history_line(line)

    def memory_block(self, thoughts: tuple[tuple[int, str], ...]) -> str:
        if not thoughts:
            return self.templates.fragment("memory", "empty")
        lines = []
        for item in thoughts:
            text = self._thought_lines.get(item)
            if text is None:
                text = self.templates.fragment("memory", "line", turn=item[0], thought=item[1])
                self._thought_lines[item] = text
            lines.append(text)
        return "\n".join(lines)

    def initial_answers_block(self, view: AgentView) -> str:
        none = self.templates.fragment("initial", "no_answer")
        return self._memo(
            "initial",
            view.initial_answers,
            lambda: "\n".join(
                self.templates.fragment(
                    "initial", "line", agent=item.agent, answer=item.answer or none, reason=item.reason
                )
                for item in view.initial_answers
            ),
        )

    def actions_block(self, allowed: tuple[Action, ...], floor_held: bool) -> str:
        keys = {
            Action.LISTEN: "listen" if floor_held else "listen_floor_free",
            Action.SPEAK: "speak",
            Action.INTERRUPT: "interrupt",
        }
        return "\n".join(self.templates.fragment("actions", keys[action]) for action in allowed)

    @staticmethod
    def action_choices(allowed: tuple[Action, ...]) -> str:
        """The allowed actions for the output-format line, the floor-taking one first.

        Small models copy the first choice they are shown; listing ``listen``
        first made SmolLM2-135M never take the floor. The Actions block keeps
        Algorithm 1's order.
        """
        ordered = sorted(allowed, key=lambda action: action is Action.LISTEN)
        return _choices(action.value for action in ordered)

    def answer_choices(self, view: AgentView) -> str:
        labels = view.question.labels
        if labels:
            return self.templates.fragment("answers", "options", labels=_choices(labels))
        return self.templates.fragment("answers", "free")

    def _with_persona(self, view: AgentView, body: str) -> tuple[Message, ...]:
        if not view.persona.strip():
            return (Message("user", body),)
        system = self.templates.persona.substitute(name=view.agent, persona=view.persona.strip())
        return (Message("system", system), Message("user", body))


def _choices(values: Any) -> str:
    return " | ".join(f'"{value}"' for value in values)
