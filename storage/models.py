"""The database schema, as SQLAlchemy 2 typed ORM classes.

What it does: declares the tables a researcher can query with plain SQL:

* ``debates``: one row per debate: times, status, configuration, model, seed,
  condition, question, options, correct and final answer, votes, end reason,
  statistics, the experiment it belongs to, and which process is recording it;
* ``participants``: the agents of a debate, in seat order;
* ``events``: every event, in order (``seq``), with its full JSON payload: the
  source of truth that replay reads back;
* ``initial_answers``, ``plans``, ``utterances``, ``disclosures``,
  ``decisions``, ``interventions``, ``answers``: the same information
  flattened into analysis-friendly rows (one plan per agent per turn, one row
  per utterance with its units and discarded units, one row per disclosed
  unit, per listener decision, per point of information or question, and per
  agent each time a protocol updates the answers);
* ``experiments``, ``experiment_runs``, ``pool_answers``: the experiment
  harness's specifications, its cell-to-debate map and the generated pool of
  initial answers (see ``storage.experiments``);
* ``experiment_cells``: which worker holds each cell of a study, under what
  lease, and whether it finished (see ``storage.cells``).

Types that SQLite does not enforce but PostgreSQL does are chosen per
dialect: answers and a comparison's system names are unbounded ``TEXT`` on
PostgreSQL (SQLite ignores ``VARCHAR`` lengths; migration 0004 widens them),
and a debate's seed, any 64-bit integer, is a ``BIGINT``.

What it does not do: create tables (the Alembic migrations in
``storage/migrations`` do, and must change together with this file).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


def _debate_fk() -> ForeignKey:
    return ForeignKey("debates.id", ondelete="CASCADE")


def _long_text() -> String:
    """A text of any length (answers, model ids: a local model's path can be long): PostgreSQL, unlike SQLite,
    enforces ``VARCHAR(256)``."""
    return String(256).with_variant(Text(), "postgresql")


# A debate's seed is any 64-bit integer; SQLite's INTEGER holds it, PostgreSQL's needs BIGINT.
SEED = Integer().with_variant(BigInteger(), "postgresql")


class DebateRow(Base):
    __tablename__ = "debates"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(16), index=True)
    end_reason: Mapped[str | None] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text)
    experiment_id: Mapped[str | None] = mapped_column(String(128), index=True)
    condition: Mapped[str | None] = mapped_column(String(32), index=True)
    protocol: Mapped[str] = mapped_column(String(64), index=True)
    variant: Mapped[str | None] = mapped_column(String(64))
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    model_id: Mapped[str] = mapped_column(_long_text())
    seed: Mapped[int] = mapped_column(SEED)
    token_budget: Mapped[int] = mapped_column(Integer)
    question: Mapped[str] = mapped_column(Text)
    options: Mapped[list[str]] = mapped_column(JSON)
    correct_answer: Mapped[str | None] = mapped_column(_long_text())
    final_answer: Mapped[str | None] = mapped_column(_long_text())
    votes: Mapped[dict[str, int] | None] = mapped_column(JSON)
    correct: Mapped[bool | None] = mapped_column(Boolean)
    public_tokens: Mapped[int] = mapped_column(Integer, default=0)
    turns: Mapped[int] = mapped_column(Integer, default=0)
    event_count: Mapped[int] = mapped_column(Integer, default=0)
    stats: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    engine_version: Mapped[str] = mapped_column(String(32))
    owner_host: Mapped[str | None] = mapped_column(String(256))
    owner_pid: Mapped[int | None] = mapped_column(Integer)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ParticipantRow(Base):
    __tablename__ = "participants"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    persona: Mapped[str] = mapped_column(Text, default="")
    seat: Mapped[str] = mapped_column(String(16))
    role: Mapped[str | None] = mapped_column(String(64))


class EventRow(Base):
    __tablename__ = "events"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(32), index=True)
    public_tokens: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Float)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)


class InitialAnswerRow(Base):
    __tablename__ = "initial_answers"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    agent: Mapped[str] = mapped_column(String(64), primary_key=True)
    answer: Mapped[str | None] = mapped_column(_long_text())
    reason: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(16))
    valid: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(Text)
    raw: Mapped[str | None] = mapped_column(Text)


class PlanRow(Base):
    __tablename__ = "plans"
    __table_args__ = (Index("ix_plans_debate_turn", "debate_id", "turn"),)

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    agent: Mapped[str] = mapped_column(String(64), primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    public_tokens: Mapped[int] = mapped_column(Integer)
    thought: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(16))
    urgency: Mapped[int] = mapped_column(Integer)
    purpose: Mapped[str] = mapped_column(Text)
    answer: Mapped[str | None] = mapped_column(_long_text())
    allowed: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(16))
    valid: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(Text)
    raw: Mapped[str | None] = mapped_column(Text)
    latency_s: Mapped[float] = mapped_column(Float)
    prompt_tokens: Mapped[int] = mapped_column(Integer)
    cached_tokens: Mapped[int] = mapped_column(Integer)
    completion_tokens: Mapped[int] = mapped_column(Integer)


class UtteranceRow(Base):
    __tablename__ = "utterances"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    utterance_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    speaker: Mapped[str] = mapped_column(String(64))
    turn: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    sentences: Mapped[list[str]] = mapped_column(JSON)
    disclosed_count: Mapped[int] = mapped_column(Integer, default=0)
    discarded: Mapped[list[str]] = mapped_column(JSON, default=list)
    interrupting: Mapped[str | None] = mapped_column(String(64))
    interrupted_by: Mapped[str | None] = mapped_column(String(64))
    completed: Mapped[bool] = mapped_column(Boolean, default=False)
    source: Mapped[str] = mapped_column(String(16))
    error: Mapped[str | None] = mapped_column(Text)
    raw: Mapped[str | None] = mapped_column(Text)
    latency_s: Mapped[float] = mapped_column(Float)
    completion_tokens: Mapped[int] = mapped_column(Integer)


class DisclosureRow(Base):
    __tablename__ = "disclosures"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    speaker: Mapped[str] = mapped_column(String(64))
    utterance_id: Mapped[int] = mapped_column(Integer)
    unit_index: Mapped[int] = mapped_column(Integer)
    units_total: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    tokens: Mapped[int] = mapped_column(Integer)
    public_tokens: Mapped[int] = mapped_column(Integer)
    interrupting: Mapped[str | None] = mapped_column(String(64))


class DecisionRow(Base):
    """One listener's yes/no after a disclosed unit."""

    __tablename__ = "decisions"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    public_tokens: Mapped[int] = mapped_column(Integer)
    listener: Mapped[str] = mapped_column(String(64))
    speaker: Mapped[str] = mapped_column(String(64))
    utterance_id: Mapped[int] = mapped_column(Integer)
    unit_index: Mapped[int] = mapped_column(Integer)
    interrupt: Mapped[bool] = mapped_column(Boolean)
    policy: Mapped[str] = mapped_column(String(32))
    p_interrupt: Mapped[float | None] = mapped_column(Float)
    text: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(16))
    valid: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(Text)
    completion_tokens: Mapped[int] = mapped_column(Integer)
    latency_s: Mapped[float] = mapped_column(Float)


class InterventionRow(Base):
    """A point of information or a question put to a speaker."""

    __tablename__ = "interventions"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    author: Mapped[str] = mapped_column(String(64))
    target: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    blocking: Mapped[bool] = mapped_column(Boolean)
    utterance_id: Mapped[int | None] = mapped_column(Integer)
    unit_index: Mapped[int | None] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(16))


class AnswerRow(Base):
    """One agent's current answer each time a protocol updates the answers."""

    __tablename__ = "answers"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    agent: Mapped[str] = mapped_column(String(64), primary_key=True)
    turn: Mapped[int] = mapped_column(Integer)
    public_tokens: Mapped[int] = mapped_column(Integer)
    answer: Mapped[str | None] = mapped_column(_long_text())
    cause: Mapped[str] = mapped_column(String(128))


class ExperimentRow(Base):
    """One study run by the experiment harness: its id and full specification."""

    __tablename__ = "experiments"

    id: Mapped[str] = mapped_column(String(128), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    model_id: Mapped[str] = mapped_column(_long_text())
    pool_key: Mapped[str] = mapped_column(String(512))
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    notes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class ExperimentRunRow(Base):
    """Which debate realises one (question, setting, condition) cell of an experiment."""

    __tablename__ = "experiment_runs"

    experiment_id: Mapped[str] = mapped_column(
        String(128), ForeignKey("experiments.id", ondelete="CASCADE"), primary_key=True
    )
    question_key: Mapped[str] = mapped_column(String(128), primary_key=True)
    setting: Mapped[str] = mapped_column(String(64), primary_key=True)
    condition: Mapped[str] = mapped_column(  # a comparison's system, parameters included
        String(32).with_variant(Text(), "postgresql"), primary_key=True
    )
    debate_id: Mapped[str] = mapped_column(String(64), index=True)
    subject: Mapped[str] = mapped_column(String(128))


class PoolAnswerRow(Base):
    """One generated initial answer of the conditioned-initial-state pool (Section IV-B).

    ``pool_key`` names how it was generated (model, temperature, seed, prompt),
    so experiments with the same key share, and never regenerate, the pool.
    """

    __tablename__ = "pool_answers"

    pool_key: Mapped[str] = mapped_column(String(512), primary_key=True)
    question_key: Mapped[str] = mapped_column(String(128), primary_key=True)
    sample: Mapped[int] = mapped_column(Integer, primary_key=True)
    answer: Mapped[str | None] = mapped_column(_long_text())
    reason: Mapped[str] = mapped_column(Text)
    valid: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(Text)
    raw: Mapped[str | None] = mapped_column(Text)
    completion_tokens: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ExperimentCellRow(Base):
    """One cell (one debate) of a study, as the workers that share the study claim it.

    ``state`` is ``pending`` (nobody holds it), ``running`` (``worker`` holds it
    until ``lease_until`` and renews the lease while it runs), ``finished`` (its
    debate finished, recorded by the claim that held it) or ``failed`` (its
    debate failed: the next worker to start retries it). ``attempt`` counts the
    claims: a worker's writes count only while the attempt it claimed is the
    cell's (``storage.cells``).
    """

    __tablename__ = "experiment_cells"
    __table_args__ = (Index("ix_experiment_cells_claim", "experiment_id", "state", "position"),)

    experiment_id: Mapped[str] = mapped_column(
        String(128), ForeignKey("experiments.id", ondelete="CASCADE"), primary_key=True
    )
    debate_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(16))
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(256))
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ClassroomRow(Base):
    """What a classroom added to one debate (issue #30): who held which seat, every poll's result.

    ``record`` is the front end's record as JSON (display names only: no token, no person's id); the store keeps
    it as given and hands it back (``Store.save_classroom``, ``Store.classroom``)."""

    __tablename__ = "classrooms"

    debate_id: Mapped[str] = mapped_column(String(64), _debate_fk(), primary_key=True)
    saved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
