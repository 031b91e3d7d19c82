"""Users and API keys: a key is shown once, stored as a hash, and refused once revoked,
expired, or its user disabled."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from tiller.store import Store
from tiller.store.tables import api_keys
from tiller.store.users import UserExistsError, UserNotFound


async def test_a_key_authenticates_its_user_and_is_stored_only_as_a_hash(store: Store) -> None:
    ann = await store.users.create("ann", "developer")
    issued = await store.api_keys.issue(ann.id, "laptop", scopes=["sessions:read"])
    assert issued.secret.startswith(f"tlr_{issued.key.prefix}_")
    found = await store.api_keys.authenticate(issued.secret)
    assert found is not None
    assert (found.user.name, found.key.scopes) == ("ann", ["sessions:read"])
    assert (await store.api_keys.get(issued.key.id)).last_used_at is not None
    async with store.database.read() as conn:
        rows = (await conn.execute(sa.select(api_keys))).all()
    stored = " ".join(str(value) for row in rows for value in row)
    assert issued.secret not in stored
    assert issued.secret[len("tlr_") + 13 :] not in stored  # the secret part


async def test_wrong_revoked_expired_and_disabled_keys_authenticate_no_one(
    store: Store,
) -> None:
    ann = await store.users.create("ann", "developer")
    good = await store.api_keys.issue(ann.id, "a")
    tampered = good.secret[:-1] + ("A" if good.secret[-1] != "A" else "B")
    assert await store.api_keys.authenticate(tampered) is None
    assert await store.api_keys.authenticate("not a key") is None
    revoked = await store.api_keys.issue(ann.id, "b")
    await store.api_keys.revoke(revoked.key.id)
    assert await store.api_keys.authenticate(revoked.secret) is None
    expired = await store.api_keys.issue(ann.id, "c", expires_at=store.now() - timedelta(1))
    assert await store.api_keys.authenticate(expired.secret) is None
    assert await store.api_keys.authenticate(good.secret) is not None
    await store.users.disable(ann.id)
    assert await store.api_keys.authenticate(good.secret) is None
    assert [k.name for k in await store.api_keys.of_user(ann.id)] == ["a", "b", "c"]


async def test_user_names_are_unique_and_roles_known(store: Store) -> None:
    await store.users.create("ann", "admin")
    with pytest.raises(UserExistsError, match="'ann' exists already"):
        await store.users.create("ann", "viewer")
    with pytest.raises(ValueError, match="unknown role 'root'"):
        await store.users.create("bob", "root")
    with pytest.raises(UserNotFound):
        await store.api_keys.issue("nobody", "k")
    bob = await store.users.create("bob", "viewer")
    assert (await store.users.set_role(bob.id, "operator")).role == "operator"
    assert [u.name for u in await store.users.list()] == ["ann", "bob"]
    assert await store.users.count() == 2
