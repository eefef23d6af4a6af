"""Experiments: their specification, which debate fills each cell, and the initial-answer pool.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "experiments",
        sa.Column("id", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model_id", sa.String(length=256), nullable=False),
        sa.Column("pool_key", sa.String(length=512), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("notes", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "experiment_runs",
        sa.Column("experiment_id", sa.String(length=128), nullable=False),
        sa.Column("question_key", sa.String(length=128), nullable=False),
        sa.Column("setting", sa.String(length=64), nullable=False),
        sa.Column("condition", sa.String(length=32), nullable=False),
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("subject", sa.String(length=128), nullable=False),
        sa.ForeignKeyConstraint(["experiment_id"], ["experiments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("experiment_id", "question_key", "setting", "condition"),
    )
    op.create_index("ix_experiment_runs_debate_id", "experiment_runs", ["debate_id"])
    op.create_table(
        "pool_answers",
        sa.Column("pool_key", sa.String(length=512), nullable=False),
        sa.Column("question_key", sa.String(length=128), nullable=False),
        sa.Column("sample", sa.Integer(), nullable=False),
        sa.Column("answer", sa.String(length=256), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("valid", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("raw", sa.Text(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("pool_key", "question_key", "sample"),
    )


def downgrade() -> None:
    op.drop_table("pool_answers")
    op.drop_index("ix_experiment_runs_debate_id", table_name="experiment_runs")
    op.drop_table("experiment_runs")
    op.drop_table("experiments")
