"""The baselines' run state: the ``Desk``, one solver's work on one question, and the moves the variants repeat.

What it does: a ``Desk`` (the run state the variant loops take) knows who holds the solver's seat
(and, later, the seats of the multi-agent baselines), builds the solver's view (the question, its
context, persona, brief and the pieces of the method at hand), asks it one request kind, and
voices what it wrote: the kernel's ``say`` followed by one ``disclose`` per turn (the table's
sentence segmenter cuts it), the solver's answer updated from its ``Final Answer`` line.

What it does not do: decide the order of a baseline (the variant loops in ``loop``) or make a
kernel move on its own account: everything goes through the ``Table``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from debate_core.events.codec import Event
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.table import Table
from protocols.baselines.forms import Solved
from protocols.baselines.params import BaselinesParams
from protocols.baselines.views import SolverView


class Desk:
    """The run state: one solver's seat, its views and the moves it repeats (see the module docstring)."""

    def __init__(self, table: Table, params: BaselinesParams, variant: str, forms: dict[str, Form[Any, Any]]) -> None:
        self.table, self.params, self.variant, self.forms = table, params, variant, forms
        (self.solver,) = table.with_role("solver")
        self.last: Any = None  # the value of the solver's last reply (a loop reads it for the next step)

    def view(self, **fields: Any) -> SolverView:
        config = self.table.config
        spec = config.agent(self.solver)
        values: dict[str, Any] = {
            "agent": self.solver,
            "question": config.question,
            "persona": spec.persona,
            "brief": spec.brief,
            "context": config.question.context,
            "sentences": self.params.reasoning_sentences,
            "current_answer": self.table.answers.get(self.solver),
        }
        values.update(fields)
        return SolverView(**values)

    def ask(self, kind: str, *, nonce: int = 0, **fields: Any) -> FormResult[Any]:
        """The solver's reply to the request ``kind``, shown a view with ``fields``."""
        view = self.view(**fields)
        return self.table.ask(self.forms[kind], [self.solver], lambda _: view, nonce=nonce)[self.solver]

    def voice(self, reply: FormResult[Any], *, kind: str) -> Iterator[Event]:
        """Say ``reply`` (a ``Solved`` or a note) and disclose it one unit per turn; update the answer it names (a
        solution that names none says why in its ``structured`` problem)."""
        table = self.table
        value = reply.value
        solved = value if isinstance(value, Solved) else None
        text = reply.map(lambda v: v.text if isinstance(v, Solved) else "\n".join(v) if isinstance(v, tuple) else v)
        read = {"answer": solved.answer, "problem": solved.problem} if solved is not None else {}
        structured = {key: value for key, value in read.items() if value is not None} or None
        yield table.say(self.solver, text, chunker=table.sentences, kind=kind, role="solver", structured=structured)
        yield from table.disclose_rest(table.holder, one_per_turn=True)
        if solved is not None and solved.answer is not None:
            yield table.update_answers({self.solver: solved.answer}, cause=kind)
