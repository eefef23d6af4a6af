"""Persistence of debates: every event in SQLite (or any SQLAlchemy database).

``Store`` opens a database (migrating it), records running debates through a
``Recorder``, lists and filters them, and gives back a debate's events as the
engine's own event objects for replay. ``storage.transfer`` reads and writes
JSON transcripts and CSV tables. This package depends on ``debate_core``;
``debate_core`` never depends on it.
"""

from storage.recorder import Recorder
from storage.store import DebateSummary, Store
from storage.transfer import TranscriptError

__all__ = ["DebateSummary", "Recorder", "Store", "TranscriptError"]
