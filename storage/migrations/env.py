"""Alembic environment: runs migrations on the connection ``storage.db`` hands over.

Migrations are applied in code at start-up (``storage.db.migrate``), never
from an ``alembic.ini``; ``alembic`` on the command line is not needed.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
