"""Alembic's entry point for the store: runs the migrations on the connection the store
passes in `config.attributes["connection"]`."""

from __future__ import annotations

from alembic import context

from tiller.store.tables import VERSION_TABLE, metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "the store's migrations run through `tiller db upgrade` (or Store.open), "
        "which pass the connection"
    )
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
