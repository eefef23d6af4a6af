"""SID's run state: the ``Council``, one debate's agents, last published answers and measured signals.

What it does: a ``Council`` (the run state the loop takes) knows one
debate's agents, keeps each one's last published answer, the round and the
signals measured, builds every request's ``SidView``, publishes a round's
answers (the kernel's ``say``, each reply one unit, all disclosed in the
round's turn, then the answers updated) and, in the gated variants,
measures each reply's token statistics against the gate
(``SignalsMeasured``), and keeps who has left the debate (``exited``, under
``exits=each``). ``GATED``, ``COMPRESSING`` and ``SUMMARIZING`` name the
variants that gate on confidence, that compress the others' answers and
that summarize them.

What it does not do: decide the order of a debate, exit early or compress
anything (``loop``), word or read anything (``prompting``, ``forms``),
judge confidence (``gate``) or make a kernel move on its own account (the
``Table`` does).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from debate_core.config import SeatKind
from debate_core.errors import ConfigError
from debate_core.events.acts import SignalsMeasured
from debate_core.events.codec import Event
from debate_core.kernel.chunkers import WholeMessage
from debate_core.kernel.forms import FormResult
from debate_core.kernel.signals import token_stats
from debate_core.kernel.table import Table
from protocols.sid import gate
from protocols.sid.formats import format_for
from protocols.sid.forms import SidForms
from protocols.sid.params import SidParams
from protocols.sid.views import Reply, SidView

GATED = frozenset({"exit", "sid", "sid_c", "no_expand"})
COMPRESSING = frozenset({"compress", "sid", "sid_c", "no_expand"})
SUMMARIZING = frozenset({"summary"})  # the others' answers summarized by the recipient's own model
WHOLE = WholeMessage()


class Council:
    """The run state: one debate's agents, last answers and repeated moves (see the module docstring)."""

    def __init__(
        self, table: Table, params: SidParams, variant: str, forms: SidForms, model: gate.GateModel | None
    ) -> None:
        self.table, self.params, self.variant, self.forms, self.model = table, params, variant, forms, model
        self.agents = table.names
        self.replies: dict[str, Reply] = {name: Reply("", None) for name in self.agents}
        self.round = 1
        self.measured: dict[str, SignalsMeasured] = {}
        self.exited: set[str] = set()  # confident agents that left the debate (exits=each)
        self.answer_format = format_for(params.prompts, params.dataset, table.config.question)

    def view(self, agent: str, **fields: Any) -> SidView:
        spec = self.table.config.agent(agent)
        values: dict[str, Any] = {
            "agent": agent,
            "question": self.table.config.question,
            "persona": spec.persona,
            "brief": spec.brief,
            "round": self.round,
            "max_rounds": self.params.rounds,
            "own": self.replies[agent].text,
            "others": tuple((n, self.replies[n].text) for n in self.agents if n != agent and self.replies[n].text),
            "current_answer": self.replies[agent].answer,
            "answer_format": self.answer_format,
        }
        values.update(fields)
        return SidView(**values)

    def is_person(self, agent: str) -> bool:
        return self.table.seats[agent].kind is SeatKind.HUMAN

    def publish(self, results: Mapping[str, FormResult[Reply]], kind: str) -> Iterator[Event]:
        table = self.table
        for name in self.agents:
            if name not in results:
                continue
            result = results[name]
            reply = result.value
            yield table.say(
                name, result.with_value(reply.text), chunker=WHOLE, kind=kind, structured={"answer": reply.answer}
            )
            yield from table.disclose_rest(table.holder)
            self.replies[name] = reply
            if self.variant in GATED:
                measured = self.measure(name, result)
                if measured is not None:
                    self.measured[name] = measured
                    yield measured
        yield table.update_answers(
            {n: results[n].value.answer for n in self.agents if n in results}, f"round {self.round}"
        )

    def measure(self, agent: str, result: FormResult[Reply]) -> SignalsMeasured | None:
        """The reply's confidence against the gate (None: a person, or a reply with no tokens)."""
        completion = result.completion
        if completion is None or completion.token_nll is None:
            return None
        stats = token_stats(completion)
        if stats is None:
            return None
        params = self.params
        if self.variant == "sid_c":
            verdict = gate.check(stats, "calibrated", model=self.model, tau=params.tau)
        else:
            vocab = self.table.router.backend_for(agent, self.table.role_of(agent)).vocab_size
            if params.gate == "alpha" and not vocab:
                raise ConfigError(f"{agent}'s backend does not say its vocabulary size: use the parameter gate=fixed")
            verdict = gate.check(stats, params.gate, alpha=params.alpha, vocab_size=vocab)
        return self.table.emit(
            SignalsMeasured,
            agent=agent,
            stats=stats,
            score=verdict.score,
            threshold=verdict.threshold,
            rule=verdict.rule,
            passed=verdict.passed,
        )
