"""The kernel: the moves every protocol makes, and none re-implements.

What it does: ``Table`` (the running debate and its moves), ``Form`` (request
kinds as data), seats and the human channel, chunkers, listener policies, end
conditions and final decisions (which read a table through ``TableState``).
Protocols import from here.

What it does not do: decide anything about a debate (protocols do).
"""

from debate_core.kernel.chunkers import CharRuleChunker, Chunker, LineChunker, TokenChunker, WholeMessage, tidy_units
from debate_core.kernel.endings import (
    FinalDecision,
    budget_spent,
    consensus,
    first_of,
    is_correct,
    majority,
    silence_streak,
    single,
    stop_requested,
    turn_limit,
    verdict,
)
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid, FormResult, validate_values
from debate_core.kernel.history import START_LINE, HistoryLine, LineKind
from debate_core.kernel.human import HumanChannel, HumanRequest
from debate_core.kernel.policies import (
    Decided,
    Decision,
    ForcedPolicy,
    InterruptPolicy,
    NeverPolicy,
    PromptedPolicy,
    RandomPolicy,
    ThresholdPolicy,
    decision_form,
)
from debate_core.kernel.replies import load_object
from debate_core.kernel.seats import HumanSeat, ModelSeat, Seat
from debate_core.kernel.sentences import SentenceChunker, default_sentence_chunker, sentence_chunker
from debate_core.kernel.shared_seat import Acting, HandOverSeat
from debate_core.kernel.state import TableState
from debate_core.kernel.streaming import Streamed
from debate_core.kernel.table import DebateStopped, Replies, Table, TableSnapshot

__all__ = [
    "START_LINE",
    "Acting",
    "CharRuleChunker",
    "Chunker",
    "DebateStopped",
    "Decided",
    "Decision",
    "FieldSpec",
    "FinalDecision",
    "Floor",
    "ForcedPolicy",
    "Form",
    "FormInvalid",
    "FormResult",
    "HandOverSeat",
    "HistoryLine",
    "HumanChannel",
    "HumanRequest",
    "HumanSeat",
    "InterruptPolicy",
    "LineChunker",
    "LineKind",
    "ModelSeat",
    "NeverPolicy",
    "PromptedPolicy",
    "RandomPolicy",
    "Replies",
    "Seat",
    "SentenceChunker",
    "Streamed",
    "Table",
    "TableSnapshot",
    "TableState",
    "ThresholdPolicy",
    "TokenChunker",
    "WholeMessage",
    "budget_spent",
    "consensus",
    "decision_form",
    "default_sentence_chunker",
    "first_of",
    "is_correct",
    "load_object",
    "majority",
    "sentence_chunker",
    "silence_streak",
    "single",
    "stop_requested",
    "tidy_units",
    "turn_limit",
    "validate_values",
    "verdict",
]
