"""The running state of one debate, and the views built from it.

What it does: ``DebateState`` holds what the engine must remember between
turns (the turn number, the public token count, the public history, each
agent's thoughts and current answer, and the ``Floor``: the current speaker's
queued units) and builds each agent's ``AgentView`` from it. The turn log is
windowed and built once per turn, then shared by every agent's view.

What it does not do: decide anything or emit events (``engine`` does). It never
exposes queued units in a view: views are built from the public history only.
"""

from __future__ import annotations

from dataclasses import dataclass

from debate_core.config import DebateConfig, PromptLayout
from debate_core.events import AgentAnswer
from debate_core.plans import Action, ActionPlan
from debate_core.views import AgentView, HistoryLine, InitialAnswerView, LineKind

START_LINE = HistoryLine(turn=0, kind=LineKind.START)


@dataclass(slots=True)
class Floor:
    """The current speaker's utterance and how much of it is public."""

    speaker: str
    utterance_id: int
    units: tuple[str, ...]
    interrupting: str | None
    disclosed: int = 0

    @property
    def held(self) -> bool:
        return self.disclosed < len(self.units)

    @property
    def remaining(self) -> tuple[str, ...]:
        return self.units[self.disclosed :]

    @property
    def said(self) -> str:
        return " ".join(self.units[: self.disclosed])


class DebateState:
    """Everything public about a debate so far, plus the floor."""

    def __init__(self, config: DebateConfig) -> None:
        self.config = config
        self.names = config.agent_names
        self.turn = 0
        self.public_tokens = 0
        self.floor: Floor | None = None
        self.last_speaker: str | None = None
        self.history: list[HistoryLine] = []
        self.thoughts: dict[str, list[tuple[int, str]]] = {name: [] for name in self.names}
        self.answers: dict[str, str | None] = {name: None for name in self.names}
        self.latest_plan: dict[str, ActionPlan] = {}
        self.turn_plans: dict[str, ActionPlan] = {}
        self.initial: tuple[InitialAnswerView, ...] = ()
        self.silent_streak = 0
        self._personas = {agent.name: agent.persona for agent in config.agents}
        self._log_key: tuple[int, int] = (-1, -1)
        self._log: tuple[HistoryLine, ...] = ()

    @property
    def holder(self) -> Floor | None:
        """The floor while its speaker still has queued units, else None."""
        return self.floor if self.floor is not None and self.floor.held else None

    @property
    def last_line(self) -> HistoryLine:
        return self.history[-1] if self.history else START_LINE

    def record_plan(self, agent: str, plan: ActionPlan) -> None:
        self.turn_plans[agent] = self.latest_plan[agent] = plan
        self.answers[agent] = plan.answer
        if plan.thought:
            self.thoughts[agent].append((self.turn, plan.thought))

    def window_start(self, end: int) -> int:
        """First history index shown when the log ends at ``end``.

        The paper layout slides the window by one line per turn. The cached
        layout moves it in steps of half a window, so consecutive prompts
        share their prefix between steps (the log then holds between one and
        one and a half windows of lines).
        """
        window = self.config.history_window
        if not window or end <= window:
            return 0
        start = end - window
        if self.config.prompt_layout is PromptLayout.CACHED:
            step = max(1, window // 2)
            start = start // step * step
        return start

    def turn_log(self) -> tuple[HistoryLine, ...]:
        """History up to the previous turn, windowed; built once per turn and shared."""
        key = (len(self.history), self.turn)
        if self._log_key != key:
            end = len(self.history)
            if self.history and self.history[-1].turn == self.turn and self.turn > 0:
                end -= 1
            self._log_key, self._log = key, tuple(self.history[self.window_start(end) : end])
        return self._log

    def recent_history(self) -> tuple[HistoryLine, ...]:
        """History including this turn's event, windowed (what a new speaker sees)."""
        return tuple(self.history[self.window_start(len(self.history)) :])

    def visible_thoughts(self, agent: str, log: tuple[HistoryLine, ...]) -> tuple[tuple[int, str], ...]:
        """The agent's own previous thoughts shown with ``log``.

        Paper layout: the last ``history_window`` thoughts. Cached layout: every
        thought from the first turn in the log on, so thoughts and lines leave
        the window together.
        """
        thoughts = self.thoughts[agent]
        window = self.config.history_window
        if self.config.prompt_layout is PromptLayout.CACHED:
            if log and self.history and log[0] is not self.history[0]:
                first = log[0].turn
                return tuple(item for item in thoughts if item[0] >= first)
            return tuple(thoughts)
        return tuple(thoughts[-window:] if window else thoughts)

    def view(self, agent: str, event_line: HistoryLine, allowed: tuple[Action, ...]) -> AgentView:
        holder = self.holder
        log = self.turn_log()
        return AgentView(
            agent=agent,
            persona=self._personas[agent],
            members=self.names,
            question=self.config.question,
            turn=self.turn,
            token_budget=self.config.token_budget,
            tokens_left=max(0, self.config.token_budget - self.public_tokens),
            initial_answers=self.initial,
            turn_log=log,
            previous_thoughts=self.visible_thoughts(agent, log),
            last_event=event_line,
            allowed=allowed,
            floor_holder=holder.speaker if holder else None,
            current_answer=self.answers[agent],
        )

    def answer_list(self) -> tuple[AgentAnswer, ...]:
        """Every agent's current answer; ``carried`` if it did not plan this turn."""
        return tuple(
            AgentAnswer(agent=name, answer=self.answers[name], carried=name not in self.turn_plans)
            for name in self.names
        )
