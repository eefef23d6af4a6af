"""The first schema: debates, participants, events and the analysis tables.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "debates",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("end_reason", sa.String(length=32), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("experiment_id", sa.String(length=128), nullable=True),
        sa.Column("condition", sa.String(length=32), nullable=False),
        sa.Column("protocol", sa.String(length=64), nullable=False),
        sa.Column("model_id", sa.String(length=256), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("token_budget", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("correct_answer", sa.String(length=256), nullable=True),
        sa.Column("final_answer", sa.String(length=256), nullable=True),
        sa.Column("votes", sa.JSON(), nullable=True),
        sa.Column("correct", sa.Boolean(), nullable=True),
        sa.Column("public_tokens", sa.Integer(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("event_count", sa.Integer(), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("engine_version", sa.String(length=32), nullable=False),
        sa.Column("owner_host", sa.String(length=256), nullable=True),
        sa.Column("owner_pid", sa.Integer(), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_debates_condition"), "debates", ["condition"], unique=False)
    op.create_index(op.f("ix_debates_created_at"), "debates", ["created_at"], unique=False)
    op.create_index(op.f("ix_debates_experiment_id"), "debates", ["experiment_id"], unique=False)
    op.create_index(op.f("ix_debates_status"), "debates", ["status"], unique=False)
    op.create_table(
        "disclosures",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("speaker", sa.String(length=64), nullable=False),
        sa.Column("utterance_id", sa.Integer(), nullable=False),
        sa.Column("unit_index", sa.Integer(), nullable=False),
        sa.Column("units_total", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("public_tokens", sa.Integer(), nullable=False),
        sa.Column("interrupting", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("debate_id", "seq"),
    )
    op.create_table(
        "events",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("public_tokens", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("debate_id", "seq"),
    )
    op.create_index(op.f("ix_events_type"), "events", ["type"], unique=False)
    op.create_table(
        "initial_answers",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("agent", sa.String(length=64), nullable=False),
        sa.Column("answer", sa.String(length=256), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("valid", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("raw", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("debate_id", "agent"),
    )
    op.create_table(
        "participants",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("persona", sa.Text(), nullable=False),
        sa.Column("seat", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("debate_id", "position"),
    )
    op.create_table(
        "plans",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("agent", sa.String(length=64), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("public_tokens", sa.Integer(), nullable=False),
        sa.Column("thought", sa.Text(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("urgency", sa.Integer(), nullable=False),
        sa.Column("purpose", sa.Text(), nullable=False),
        sa.Column("answer", sa.String(length=256), nullable=True),
        sa.Column("allowed", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("valid", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("raw", sa.Text(), nullable=True),
        sa.Column("latency_s", sa.Float(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("cached_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("debate_id", "seq", "agent"),
    )
    op.create_index("ix_plans_debate_turn", "plans", ["debate_id", "turn"], unique=False)
    op.create_table(
        "utterances",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("utterance_id", sa.Integer(), nullable=False),
        sa.Column("speaker", sa.String(length=64), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sentences", sa.JSON(), nullable=False),
        sa.Column("disclosed_count", sa.Integer(), nullable=False),
        sa.Column("discarded", sa.JSON(), nullable=False),
        sa.Column("interrupting", sa.String(length=64), nullable=True),
        sa.Column("interrupted_by", sa.String(length=64), nullable=True),
        sa.Column("completed", sa.Boolean(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("raw", sa.Text(), nullable=True),
        sa.Column("latency_s", sa.Float(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("debate_id", "utterance_id"),
    )


def downgrade() -> None:
    for table in ("disclosures", "utterances", "plans", "initial_answers", "events", "participants"):
        op.drop_table(table)
    op.drop_table("debates")
