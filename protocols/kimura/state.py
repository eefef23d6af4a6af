"""Kimura's run state: what the protocol remembers between turns, and the views it builds from the table.

What it does: ``KimuraState`` (the run state) keeps what only this protocol needs (each
agent's thoughts, latest plan and this turn's plans, the initial answers as
shown to agents, who spoke last) and builds each agent's ``AgentView``
(Table I of the paper) from it and from the kernel's public history. The turn
log is windowed and built once per turn, then shared by every agent's view.

What it does not do: decide anything or emit events (``loop`` does). It
never exposes queued units in a view: views are built from the public
history only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from debate_core.config import DEFAULT_HISTORY_WINDOW, DebateConfig, PromptLayout
from debate_core.events.records import Action, ActionPlan, AgentAnswer
from debate_core.kernel.history import START_LINE, HistoryLine
from protocols.kimura.views import AgentView, InitialAnswerView

if TYPE_CHECKING:
    from debate_core.kernel.table import Table


class KimuraState:
    """Thoughts, plans and views of one Kimura debate, over the kernel's table."""

    def __init__(
        self,
        table: Table,
        history_window: int | None = DEFAULT_HISTORY_WINDOW,
        layout: PromptLayout = PromptLayout.PAPER,
    ) -> None:
        self.table = table
        self.history_window, self.layout = history_window, layout
        self.config = table.config
        self.names = table.names
        self.last_speaker: str | None = None
        self.thoughts: dict[str, list[tuple[int, str]]] = {name: [] for name in self.names}
        self.latest_plan: dict[str, ActionPlan] = {}
        self.turn_plans: dict[str, ActionPlan] = {}
        self.initial: tuple[InitialAnswerView, ...] = ()
        self._personas = {agent.name: agent.persona for agent in self.config.agents}
        self._log_key: tuple[int, int] = (-1, -1)
        self._log: tuple[HistoryLine, ...] = ()

    @property
    def last_line(self) -> HistoryLine:
        return self.table.last_line or START_LINE

    def record_plan(self, agent: str, plan: ActionPlan) -> None:
        self.turn_plans[agent] = self.latest_plan[agent] = plan
        self.table.answers[agent] = plan.answer
        if plan.thought:
            self.thoughts[agent].append((self.table.turn, plan.thought))

    def window_start(self, end: int) -> int:
        """First history index shown when the log ends at ``end``.

        The paper layout slides the window by one line per turn. The cached
        layout moves it in steps of half a window, so consecutive prompts
        share their prefix between steps (the log then holds between one and
        one and a half windows of lines).
        """
        window = self.history_window
        if not window or end <= window:
            return 0
        start = end - window
        if self.layout is PromptLayout.CACHED:
            step = max(1, window // 2)
            start = start // step * step
        return start

    def turn_log(self) -> tuple[HistoryLine, ...]:
        """History up to the previous turn, windowed; built once per turn and shared."""
        history, turn = self.table.history, self.table.turn
        key = (len(history), turn)
        if self._log_key != key:
            end = len(history)
            if history and history[-1].turn == turn and turn > 0:
                end -= 1
            self._log_key, self._log = key, tuple(history[self.window_start(end) : end])
        return self._log

    def recent_history(self) -> tuple[HistoryLine, ...]:
        """History including this turn's event, windowed (what a new speaker sees)."""
        history = self.table.history
        return tuple(history[self.window_start(len(history)) :])

    def visible_thoughts(self, agent: str, log: tuple[HistoryLine, ...]) -> tuple[tuple[int, str], ...]:
        """The agent's own previous thoughts shown with ``log``.

        Paper layout: the last ``history_window`` thoughts (a Kimura parameter). Cached layout: every
        thought from the first turn in the log on, so thoughts and lines leave
        the window together.
        """
        thoughts = self.thoughts[agent]
        window = self.history_window
        if self.layout is PromptLayout.CACHED:
            history = self.table.history
            if log and history and log[0] is not history[0]:
                first = log[0].turn
                return tuple(item for item in thoughts if item[0] >= first)
            return tuple(thoughts)
        return tuple(thoughts[-window:] if window else thoughts)

    def view(self, agent: str, event_line: HistoryLine, allowed: tuple[Action, ...]) -> AgentView:
        table = self.table
        holder = table.holder
        log = self.turn_log()
        return AgentView(
            agent=agent,
            persona=self._personas[agent],
            members=self.names,
            question=self.config.question,
            turn=table.turn,
            token_budget=self.config.token_budget,
            tokens_left=max(0, self.config.token_budget - table.public_tokens),
            initial_answers=self.initial,
            turn_log=log,
            previous_thoughts=self.visible_thoughts(agent, log),
            last_event=event_line,
            allowed=allowed,
            floor_holder=holder.speaker if holder else None,
            current_answer=table.answers[agent],
        )

    def answer_list(self) -> tuple[AgentAnswer, ...]:
        """Every agent's current answer; ``carried`` if it did not plan this turn."""
        return self.table.answer_list(carried=[n for n in self.names if n not in self.turn_plans])


def initial_view(config: DebateConfig, agent: str) -> AgentView:
    """The view an agent answers the question on before any debate (what the initial stage asks with)."""
    return AgentView(
        agent=agent,
        persona=config.agent(agent).persona,
        members=config.agent_names,
        question=config.question,
        turn=0,
        token_budget=config.token_budget,
        tokens_left=config.token_budget,
        initial_answers=(),
        turn_log=(),
        previous_thoughts=(),
        last_event=START_LINE,
        allowed=(),
        floor_holder=None,
        current_answer=None,
    )
