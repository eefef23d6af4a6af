"""ACE's run state: the ``Circle``, one debate's debaters, observer and last public replies.

What it does: a ``Circle`` (the run state the loops take) knows one
debate's debaters and observer, keeps each debater's last public reply
(``Stance``) and the comments addressed to it, and the round; builds every
request's ``AceView``; knows the last round a debate may run and why it
would end there (``round_limit``: the cap, or the safety net); keeps every
published round's replies (the parallel baseline's conversation on Du et
al.'s prompts); asks seats one request kind (the round as nonce);
and publishes a round's replies: the kernel's ``say`` (one unit per line:
each explanation item, the comment, the answer line; the reply's structure,
with how it was read when that needed a note, on the utterance), their
disclosure in that round's turn, and the debaters' answers updated.

What it does not do: decide the order of a debate (Analyze, Compose,
Execute, the final answer: ``loop``), parse or word anything (``forms``,
``prompts/``) or make a kernel move on its own account (the ``Table`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from debate_core.events.codec import Event
from debate_core.events.records import AgentAnswer, EndReason
from debate_core.kernel.chunkers import LineChunker
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.table import Replies, Table
from protocols.ace.forms import AceForms
from protocols.ace.library import ActLibrary
from protocols.ace.params import AceParams
from protocols.ace.prompting import stance_text
from protocols.ace.views import AceView, Stance

LINES = LineChunker()


def round_limit(params: AceParams, variant: str) -> tuple[int, EndReason]:
    """The last round a debate may run and the end reason when it gets there.

    ``parallel``: ``rounds``. ``no_analyze`` (no observer to end it): ``max_rounds``, else ``rounds``.
    The others: ``max_rounds`` when set (ending ``rounds``); otherwise the paper's observer alone ends the
    debate, and ``guard_rounds`` is the safety net (ending ``max_turns``, a stall guard's reason).
    """
    if variant == "parallel":
        return params.rounds, EndReason.ROUNDS
    if params.max_rounds is not None:
        return params.max_rounds, EndReason.ROUNDS
    if variant == "no_analyze":
        return params.rounds, EndReason.ROUNDS
    return params.guard_rounds, EndReason.MAX_TURNS


class Circle:
    """The run state: one debate's seats, last replies and repeated moves (see the module docstring)."""

    def __init__(self, table: Table, params: AceParams, variant: str, forms: AceForms, library: ActLibrary) -> None:
        self.table, self.params, self.variant, self.forms, self.library = table, params, variant, forms, library
        self.debaters = table.with_role("debater")
        observers = table.with_role("observer")
        self.observer = observers[0] if observers else None
        self.stances: dict[str, Stance] = {name: Stance(name, None) for name in self.debaters}
        self.comments: dict[str, tuple[tuple[str, str], ...]] = {name: () for name in self.debaters}
        self.history: list[tuple[Stance, ...]] = []  # each published round's replies, seat order
        self.round = 1
        self.limit, self.limit_reason = round_limit(params, variant)

    @property
    def cap(self) -> int | None:
        """The round cap a debater is told of: None when only the observer ends the debate (the paper)."""
        return None if self.limit_reason == EndReason.MAX_TURNS else self.limit

    def view(self, agent: str, **fields: Any) -> AceView:
        spec = self.table.config.agent(agent)
        role = self.table.role_of(agent) or "debater"
        values: dict[str, Any] = {
            "agent": agent,
            "role": role,
            "question": self.table.config.question,
            "persona": spec.persona,
            "brief": spec.brief,
            "round": self.round,
            "max_rounds": self.cap,
            "items": self.params.items,
            "item_chars": self.params.item_chars,
            "token_cap": self.table.config.max_new_tokens,
            "library": self.library,
        }
        if role == "observer":
            values["peers"] = tuple(self.stances[name] for name in self.debaters)
        else:
            values["own"] = self.stances[agent]
            values["peers"] = tuple(self.stances[name] for name in self.debaters if name != agent)
            values["comments"] = self.comments[agent]
            values["history"] = tuple(self.history)
        values.update(fields)
        return AceView(**values)

    def ask(self, form: Form[AceView, Any], who: list[str], view: Callable[[str], AceView]) -> Replies[Any]:
        return self.table.ask(form, who, view, nonce=self.round)

    def publish(self, replies: Mapping[str, FormResult[Stance]], kind: str) -> Iterator[Event]:
        """Say and disclose every debater's reply (seat order), then update their answers."""
        table = self.table
        for name in self.debaters:
            reply = replies[name]
            stance = reply.value
            text = reply.map(stance_text)
            structured = stance.structured()
            if reply.note:  # how the reply was read (not JSON, an answer naming no option, ...): kept on the event
                structured["note"] = reply.note
            yield table.say(name, text, chunker=LINES, kind=kind, role="debater", structured=structured)
            yield from table.disclose_rest(table.holder)
            self.stances[name] = stance
        self.history.append(tuple(self.stances[name] for name in self.debaters))
        self.comments = {
            name: tuple((other, self.stances[other].comments) for other in self.debaters if other != name)
            for name in self.debaters
        }
        yield table.update_answers({name: self.stances[name].answer for name in self.debaters}, f"round {self.round}")

    def debater_answers(self) -> tuple[AgentAnswer, ...]:
        return tuple(a for a in self.table.answer_list() if a.agent in self.debaters)
