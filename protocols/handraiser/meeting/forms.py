"""Meeting Scheduling's request kinds: a seat's turn (a message to someone, or the schedule) and the check.

What it does: builds the ``Form`` kinds the chat asks:

* ``traveler_turn`` and ``planner_turn`` (the seat holding the floor): a
  ``Turn``, read by ``parse_turn``. A message is a first line ``To: <name>``
  (a name, a title such as "Planner A", a role, or "the traveler") and the
  message after it; the traveler's reply that does not begin with a ``To:``
  line and holds a ``SCHEDULE`` line, a ``MEET`` line, ``NO MEETINGS`` or a
  JSON schedule is its **submission**, read by the package's
  ``parse_schedule``. Fallbacks, each recorded on the event: a schedule that
  cannot be read, or an empty reply, is an invalid reply (its raw text and
  the parser's message are kept) and nothing is said (the loop asks the
  traveler again, with the message; a planner's floor goes to the
  traveler); a message with no ``To:`` line, or one naming nobody it can
  talk to, is said, with a note, to the default addressee (``state``). A
  person picks whom to write to (``to``: a name, or ``schedule`` for the
  traveler) and types one text: the message, or the schedule's MEET lines
  (separated by new lines or ``;``); a schedule that cannot be read is
  refused with the parser's message, so they type it again. A person's
  request shows their briefing under what it asks.
* ``listen`` (a listener, after each chunk but the last): one token, ``Yes``
  or ``No`` (``kernel.policies.decision_form``, with the choice
  probabilities the ``threshold`` policy reads); fallback: no interruption.
  A person's Interrupt button answers it at the next chunk.

What it does not do: decide when each is asked (``loop``), check a schedule
(``scheduling.check``) or word prompts (``prompts/``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from debate_core.kernel.policies import Decision, decision_form
from protocols.handraiser.meeting.params import SchedulingParams
from protocols.handraiser.meeting.prompting import render
from protocols.handraiser.meeting.views import SCHEDULE, MeetingView
from protocols.handraiser.scheduling import ParseError, Schedule, parse_schedule, render_schedule

MAX_MESSAGE_CHARS = 4_000
TEXT_LABEL = "Your message; or, to submit, the schedule: one MEET line a meeting (or separated by ;)"
_TO = re.compile(r"^\W*to\s*:\s*(.*)$", re.IGNORECASE)
_SUBMITS = re.compile(r"^\W*(schedule\b|meet\s|no\s+meetings\b)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Turn:
    """A seat's turn: a message ``text`` to ``to`` (None: not named), or a ``schedule`` (its text as said)."""

    to: str | None
    text: str
    schedule: Schedule | None = None

    @property
    def submitted(self) -> bool:
        return self.schedule is not None


def key(words: str) -> str:
    """Words as compared when naming someone: case, punctuation, underscores and a leading "the" aside."""
    folded = " ".join(re.sub(r"[^\w]+|_", " ", words.casefold()).split())
    return folded.removeprefix("the ").strip()


def addressee(words: str, view: MeetingView) -> str | None:
    """The agent that ``words`` (what follows ``To:``) names among those the seat may talk to, or None."""
    said = key(words)
    for alias, name in sorted(view.addresses, key=lambda pair: -len(pair[0])):
        if said == alias or said.startswith(alias + " "):
            return name
    return None


def _submits(text: str) -> bool:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")) or ("```" in text and '"meetings"' in text):
        return True
    return any(_SUBMITS.match(line) for line in text.splitlines())


def _schedule(text: str) -> Turn:
    parsed = parse_schedule(text)
    if isinstance(parsed, ParseError):
        raise FormInvalid(f"an unreadable schedule: {parsed}")
    return Turn(None, render_schedule(parsed), parsed)


def parse_turn(raw: str, view: MeetingView) -> tuple[Turn, str | None]:
    """A message or (the traveler's) schedule from a reply, and a note when no addressee was understood."""
    lines = [line for line in raw.strip().splitlines() if line.strip()]
    if not lines:
        raise FormInvalid("an empty reply")
    named = _TO.match(lines[0])
    if named is None and view.can_submit and _submits(raw):
        return _schedule(raw), None
    body = lines[1:] if named is not None else lines
    text = " ".join(" ".join(body).split())
    if not any(ch.isalnum() for ch in text):
        raise FormInvalid("an empty message")
    if named is None:
        return Turn(None, text), "no 'To:' line: the message goes to the default addressee"
    to = addressee(named.group(1), view)
    if to is None:
        return Turn(None, text), f"'To: {named.group(1)[:60]}' names nobody this seat talks to: the default addressee"
    return Turn(to, text), None


def _from_person(values: Mapping[str, Any], view: MeetingView) -> Turn:
    text = str(values.get("text") or "")
    if values["to"] == SCHEDULE:
        return _schedule(text.replace(";", "\n"))
    said = " ".join(text.split())
    if not any(ch.isalnum() for ch in said):
        raise FormInvalid("write a message (or choose schedule to submit one)")
    return Turn(str(values["to"]), said)


def _fields(view: MeetingView) -> tuple[FieldSpec, ...]:
    return (
        FieldSpec("to", "choice", "Whom you write to" + (", or schedule" if view.can_submit else ""),
                  choices=view.choices, noun="addressee"),
        FieldSpec("text", "text", TEXT_LABEL if view.can_submit else "Your message", max_chars=MAX_MESSAGE_CHARS,
                  words=True, noun="message"),
    )  # fmt: skip


def _describe(view: MeetingView) -> str:
    """What a person is asked, then their briefing (what only they know: a person needs it as a model does)."""
    who = "; ".join(view.contacts)
    if view.can_submit:
        asked = (
            f"Round {view.round} of {view.max_rounds}: write to a planner ({who}), or choose {SCHEDULE} and give "
            "the final schedule, one 'MEET <person> AT <location> FROM <start> TO <end>' a meeting"
        )
    else:
        asked = f"Round {view.round} of {view.max_rounds}: write to {who}"
    note = f"\n\n{view.note}" if view.note else ""
    return f"{asked}{note}\n\n{view.briefing}" if view.briefing else asked + note


def turn_form(kind: str, cap: int) -> Form[MeetingView, Turn]:
    return Form(
        kind=kind,
        description="the traveler's message or schedule" if kind == "traveler_turn" else "a planner's message",
        render=lambda view: render(kind, view),
        parse=parse_turn,
        fallback=lambda view: Turn(None, ""),
        fields=_fields,
        from_human=_from_person,
        human_raw=lambda turn: turn.text,
        describe=_describe,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=kind,
    )


@dataclass(frozen=True)
class MeetingForms:
    traveler: Form[MeetingView, Turn]
    planner: Form[MeetingView, Turn]
    listen: Form[MeetingView, Decision]

    def by_kind(self) -> dict[str, Form[Any, Any]]:
        return {form.kind: form for form in vars(self).values()}


def meeting_forms(params: SchedulingParams) -> MeetingForms:
    """Every request kind of the chat, with the token caps of ``params``."""
    return MeetingForms(
        traveler=turn_form("traveler_turn", params.message_tokens),
        planner=turn_form("planner_turn", params.message_tokens),
        listen=decision_form(
            "listen",
            "interrupt the speaker and take the floor now?",
            lambda view: render("listen", view),
            probabilities=True,
            template="listen",
            describe=lambda view: f"Interrupt {view.speaker} now",
        ),
    )
