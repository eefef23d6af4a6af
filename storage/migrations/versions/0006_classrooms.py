"""A side table for classroom debates: who held which seat, and the audience's polls.

Revision ID: 0006
Revises: 0005

One row per debate a class joined (issue #30): the record the web page keeps
of it (display names only), as JSON, deleted with its debate.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "classrooms",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("debate_id"),
    )


def downgrade() -> None:
    op.drop_table("classrooms")
