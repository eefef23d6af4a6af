"""What a Kimura stream can hold beyond the kernel's rules: turns, urgency selection, the budget and the guards.

What it does: ``KimuraRules`` follows a recorded stream of the interruptible
debate and names what its loop cannot have done:

* initial answers and plans; no phases, answer updates, decisions,
  interventions, resumptions, revisions or reflection (``EMITS``);
* every turn after the first begins with one disclosure or one silent turn
  (never both, never a second): a disclosure only of the utterance holding
  the floor, a silent turn only when nobody holds it;
* a turn begins only while the debate had no reason to end: public tokens
  under the budget, fewer silent turns in a row than ``max_silent_turns``,
  fewer turns than ``max_turns`` (each guard when set); and it ends for one of those reasons only
  when it holds (the budget first, as ``first_of`` checks);
* an utterance is generated only by the agent just selected, interrupting
  whom the selection names; a selection cuts off exactly the agent holding
  the floor (and the cut is the selected agent's); in ``fixed`` and
  ``dynamic`` an utterance is one whole message and nobody is cut off.

What it does not do: recompute who should have been selected (that needs the
seeded generator's draws), or judge plans.
"""

from __future__ import annotations

from debate_core.config import DebateConfig
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.events.types import (
    DebateEnded,
    Interrupted,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceGenerated,
)
from debate_core.kernel.consistency import StreamRules, StreamState

EMITS = frozenset(
    {
        "initial_answers",
        "plans_made",
        "speaker_selected",
        "utterance_generated",
        "unit_disclosed",
        "utterance_completed",
        "silent_turn",
        "interrupted",
        "signals_measured",
        "debate_ended",
    }
)


class KimuraRules(StreamRules):
    """Kimura's loop as rules over its stream (see the module docstring)."""

    def __init__(self, variant: str, config: DebateConfig) -> None:
        self.whole_messages = variant != "interruptible"
        self.config = config
        self.selected: SpeakerSelected | None = None
        self.opened = 0  # the last turn whose opening disclosure or silent turn has been seen

    def check(self, event: Event, stream: StreamState) -> str | None:
        why = self._why(event, stream)
        if why is None:
            self._take(event)
        return why

    def _why(self, event: Event, stream: StreamState) -> str | None:
        if event.type not in EMITS:
            return f"kimura never emits {event.type}"
        previous = stream.previous
        if event.turn > previous.turn:
            if event.turn != previous.turn + 1 or not isinstance(event, UnitDisclosed | SilentTurn):
                return f"turn {event.turn} does not begin with one disclosure or one silent turn"
            ending = self._ending(previous.public_tokens, stream.silent_streak, previous.turn)
            if ending is not None:
                return f"the debate should have ended before it ({ending.value})"
        elif isinstance(event, UnitDisclosed | SilentTurn):
            return f"turn {event.turn} already had its disclosure or silent turn"
        holder = stream.holder
        if isinstance(event, UnitDisclosed) and (holder is None or holder.utterance_id != event.utterance_id):
            return f"utterance {event.utterance_id} does not hold the floor"
        if isinstance(event, SilentTurn) and holder is not None:
            return f"a silent turn while {holder.speaker} holds the floor"
        if isinstance(event, SpeakerSelected):
            current = holder.speaker if holder is not None else None
            if event.interrupts != current or event.speaker == current:
                return f"the selection cuts off {event.interrupts}, but {current} holds the floor"
        if isinstance(event, Interrupted):
            selected = self.selected
            if self.whole_messages or selected is None or selected.interrupts != event.interrupted:
                return "nobody was selected to cut this speaker off"
            if event.interrupter != selected.speaker or event.suspended:
                return f"only {selected.speaker}, just selected, cuts in (and the rest is discarded)"
        if isinstance(event, UtteranceGenerated):
            selected = self.selected
            if selected is None or selected.speaker != event.speaker or selected.interrupts != event.interrupting:
                return f"{event.speaker} speaks without being selected"
            if self.whole_messages and len(event.units) > 1:
                return f"an utterance of {len(event.units)} units where a whole message is one"
        if isinstance(event, DebateEnded) and event.reason not in (EndReason.STOPPED, EndReason.ERROR):
            ending = self._ending(event.public_tokens, stream.silent_streak, event.turn)
            if ending is not event.reason:
                return f"it ends for the reason {event.reason.value}, where the rules give {ending}"
        return None

    def _ending(self, public_tokens: int, silent_streak: int, turn: int) -> EndReason | None:
        """The kernel's ``first_of(budget_spent, silence_streak, turn_limit)`` at this point."""
        config = self.config
        if public_tokens >= config.token_budget:
            return EndReason.BUDGET
        if config.max_silent_turns is not None and silent_streak >= config.max_silent_turns:
            return EndReason.SILENCE
        if config.max_turns is not None and turn >= config.max_turns:
            return EndReason.MAX_TURNS
        return None

    def _take(self, event: Event) -> None:
        if isinstance(event, SpeakerSelected):
            self.selected = event
        elif isinstance(event, UtteranceGenerated):
            self.selected = None
