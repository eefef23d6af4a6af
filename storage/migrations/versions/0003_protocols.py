"""Protocols: a debate's protocol, variant and parameters; decisions, interventions and answers as rows.

Revision ID: 0003
Revises: 0002

``debates.protocol`` used to hold the condition's name (every debate was
Kimura's); it now holds the registered protocol (``kimura``), ``variant`` the
variant (for Kimura: the condition) and ``params`` its parameters.
``condition`` stays for Kimura's debates and is empty for other protocols.
The event type ``sentence_disclosed`` was renamed ``unit_disclosed``: the
``events.type`` column follows; stored payloads are upgraded when read.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

KIMURA_CONDITIONS = ("fixed", "dynamic", "interruptible")


def _debate_fk() -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], ondelete="CASCADE")


def upgrade() -> None:
    with op.batch_alter_table("debates") as batch:
        batch.add_column(sa.Column("variant", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("params", sa.JSON(), nullable=True))
        batch.alter_column("condition", existing_type=sa.String(length=32), nullable=True)
    with op.batch_alter_table("participants") as batch:
        batch.add_column(sa.Column("role", sa.String(length=64), nullable=True))
    debates = sa.table(
        "debates",
        sa.column("protocol", sa.String),
        sa.column("variant", sa.String),
        sa.column("condition", sa.String),
    )
    op.execute(
        debates.update()
        .where(debates.c.protocol.in_(KIMURA_CONDITIONS))
        .values(protocol="kimura", variant=debates.c.condition)
    )
    events = sa.table("events", sa.column("type", sa.String))
    op.execute(events.update().where(events.c.type == "sentence_disclosed").values(type="unit_disclosed"))
    op.create_index("ix_debates_protocol", "debates", ["protocol"])
    op.create_table(
        "decisions",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("public_tokens", sa.Integer(), nullable=False),
        sa.Column("listener", sa.String(length=64), nullable=False),
        sa.Column("speaker", sa.String(length=64), nullable=False),
        sa.Column("utterance_id", sa.Integer(), nullable=False),
        sa.Column("unit_index", sa.Integer(), nullable=False),
        sa.Column("interrupt", sa.Boolean(), nullable=False),
        sa.Column("policy", sa.String(length=32), nullable=False),
        sa.Column("p_interrupt", sa.Float(), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("valid", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("latency_s", sa.Float(), nullable=False),
        _debate_fk(),
        sa.PrimaryKeyConstraint("debate_id", "seq"),
    )
    op.create_table(
        "interventions",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("author", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("blocking", sa.Boolean(), nullable=False),
        sa.Column("utterance_id", sa.Integer(), nullable=True),
        sa.Column("unit_index", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=False),
        _debate_fk(),
        sa.PrimaryKeyConstraint("debate_id", "seq"),
    )
    op.create_table(
        "answers",
        sa.Column("debate_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("agent", sa.String(length=64), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("public_tokens", sa.Integer(), nullable=False),
        sa.Column("answer", sa.String(length=256), nullable=True),
        sa.Column("cause", sa.String(length=128), nullable=False),
        _debate_fk(),
        sa.PrimaryKeyConstraint("debate_id", "seq", "agent"),
    )


def downgrade() -> None:
    op.drop_table("answers")
    op.drop_table("interventions")
    op.drop_table("decisions")
    op.drop_index("ix_debates_protocol", "debates")
    events = sa.table("events", sa.column("type", sa.String))
    op.execute(events.update().where(events.c.type == "unit_disclosed").values(type="sentence_disclosed"))
    debates = sa.table("debates", sa.column("protocol", sa.String), sa.column("variant", sa.String))
    op.execute(debates.update().where(debates.c.protocol == "kimura").values(protocol=debates.c.variant))
    with op.batch_alter_table("participants") as batch:
        batch.drop_column("role")
    with op.batch_alter_table("debates") as batch:
        batch.drop_column("params")
        batch.drop_column("variant")
