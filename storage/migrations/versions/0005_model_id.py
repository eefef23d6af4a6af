"""Model ids of any length on PostgreSQL.

Revision ID: 0005
Revises: 0004

A model is named by whatever the user gave: a hub id, or a local path that may
be long. ``debates.model_id`` and ``experiments.model_id`` were
``VARCHAR(256)``, which PostgreSQL enforces: a debate on a model under a deep
folder could be run and then not recorded. On PostgreSQL both become ``TEXT``; SQLite is left as it is (its
``VARCHAR(n)`` holds any length, and altering a column rebuilds the table).
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TABLES = ("debates", "experiments")


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.alter_column(table, "model_id", type_=sa.Text(), existing_type=sa.String(length=256))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.alter_column(table, "model_id", type_=sa.String(length=256), existing_type=sa.Text())
