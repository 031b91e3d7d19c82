"""The store's schema history (Alembic): `env.py` and one file a revision in `versions/`.

The store runs them itself (`Store.open` creates a new database at the newest
revision, `tiller db upgrade` upgrades an older one); no `alembic.ini` is needed. To add
a revision after changing `tiller.store.tables`, see `tiller.store.schema_version`.
"""
