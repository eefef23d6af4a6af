"""Studies across workers: the cells a worker claims under a lease; PostgreSQL's widths.

Revision ID: 0004
Revises: 0003

``experiment_cells`` holds one row per cell (debate) of a study: its state
(pending, running, finished, failed), the claim's attempt number, the worker
that holds it (host:pid) and until when (``storage.cells``). Existing studies
need no backfill: a worker fills the table from the debates when it joins.

On PostgreSQL only, the columns whose limits SQLite never enforced are
widened: answers (free-form answers can be long) and a comparison's system
name become ``TEXT``, and a debate's seed (any 64-bit integer) ``BIGINT``.
SQLite is left as it is: its ``VARCHAR(n)`` holds any length and its
``INTEGER`` 64 bits, and altering a column would rebuild the table.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ANSWERS = (
    ("debates", "correct_answer"),
    ("debates", "final_answer"),
    ("initial_answers", "answer"),
    ("plans", "answer"),
    ("answers", "answer"),
    ("pool_answers", "answer"),
)


def upgrade() -> None:
    op.create_table(
        "experiment_cells",
        sa.Column("experiment_id", sa.String(length=128), nullable=False),
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=256), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["experiment_id"], ["experiments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("experiment_id", "debate_id"),
    )
    op.create_index("ix_experiment_cells_claim", "experiment_cells", ["experiment_id", "state", "position"])
    if op.get_bind().dialect.name == "postgresql":
        for table, column in ANSWERS:
            op.alter_column(table, column, type_=sa.Text(), existing_type=sa.String(length=256))
        op.alter_column("experiment_runs", "condition", type_=sa.Text(), existing_type=sa.String(length=32))
        op.alter_column("debates", "seed", type_=sa.BigInteger(), existing_type=sa.Integer())


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("debates", "seed", type_=sa.Integer(), existing_type=sa.BigInteger())
        op.alter_column("experiment_runs", "condition", type_=sa.String(length=32), existing_type=sa.Text())
        for table, column in ANSWERS:
            op.alter_column(table, column, type_=sa.String(length=256), existing_type=sa.Text())
    op.drop_index("ix_experiment_cells_claim", table_name="experiment_cells")
    op.drop_table("experiment_cells")
