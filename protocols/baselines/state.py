"""The baselines' run state: the ``Desk``, one solver's (or the debaters') work on one question, and its moves.

What it does: a ``Desk`` (the run state the variant loops take) knows who holds the solver's seat
(or, in parallel debate, the debaters'; in TAR, every seat), builds a seat's view (the question,
its context, persona, brief and the pieces of the method at hand), asks one seat (or every
debater, in one batch) one request kind, and voices what a seat wrote: the kernel's ``say``
followed by one ``disclose`` per turn (the table's sentence segmenter cuts it), the seat's answer
updated from its ``Final Answer`` line (in a debate's round, under the cause ``round N``).

What it does not do: decide the order of a baseline (the variant loops in ``loop``) or make a
kernel move on its own account: everything goes through the ``Table``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from debate_core.events.codec import Event
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.table import Replies, Table
from protocols.baselines.forms import Solved
from protocols.baselines.params import BaselinesParams
from protocols.baselines.views import SolverView


class Desk:
    """The run state: one solver's seat, its views and the moves it repeats (see the module docstring)."""

    def __init__(
        self, table: Table, params: BaselinesParams, variant: str, forms: dict[str, Form[Any, Any]], role: str
    ) -> None:
        self.table, self.params, self.variant, self.forms = table, params, variant, forms
        self.agents = table.with_role(role) if role else table.names  # the solver, the debaters, or everyone
        self.solver = self.agents[0]
        self.last: Any = None  # the value of the solver's last reply (a loop reads it for the next step)

    def view(self, agent: str | None = None, **fields: Any) -> SolverView:
        config = self.table.config
        agent = agent or self.solver
        spec = config.agent(agent)
        values: dict[str, Any] = {
            "agent": agent,
            "question": config.question,
            "persona": spec.persona,
            "brief": spec.brief,
            "context": config.question.context,
            "sentences": self.params.reasoning_sentences,
            "current_answer": self.table.answers.get(agent),
        }
        values.update(fields)
        return SolverView(**values)

    def ask(self, kind: str, *, agent: str | None = None, nonce: int = 0, **fields: Any) -> FormResult[Any]:
        """One seat's (by default the solver's) reply to the request ``kind``, shown a view with ``fields``."""
        agent = agent or self.solver
        view = self.view(agent, **fields)
        return self.table.ask(self.forms[kind], [agent], lambda _: view, nonce=nonce)[agent]

    def ask_all(self, kind: str, view: Callable[[str], SolverView]) -> Replies[Any]:
        """Every agent's reply to the request ``kind`` (one backend batch; people in parallel)."""
        return self.table.ask(self.forms[kind], list(self.agents), view)

    def voice(
        self, reply: FormResult[Any], *, kind: str, agent: str | None = None, round: int | None = None
    ) -> Iterator[Event]:
        """Say ``reply`` (a ``Solved`` or a note) and disclose it one unit per turn; update the answer it names (a
        solution that names none says why in its ``structured`` problem). A debate's step gives its ``round``: the
        update's cause is then ``round N`` (the web app's answers-per-round table keeps each round's latest
        answers), else the request kind."""
        table, agent = self.table, agent or self.solver
        value = reply.value
        solved = value if isinstance(value, Solved) else None
        text = reply.map(lambda v: v.text if isinstance(v, Solved) else "\n".join(v) if isinstance(v, tuple) else v)
        read = (
            {"answer": solved.answer, "problem": solved.problem, "confidence": solved.confidence}
            if solved is not None
            else {}
        )
        structured = {key: value for key, value in read.items() if value is not None} or None
        yield table.say(
            agent, text, chunker=table.sentences, kind=kind, role=table.role_of(agent), structured=structured
        )
        yield from table.disclose_rest(table.holder, one_per_turn=True)
        if solved is not None and solved.answer is not None:
            yield table.update_answers({agent: solved.answer}, cause=kind if round is None else f"round {round}")
