"""Sensitive sessions are sealed at rest; a key is rotated by putting a new one in front,
resealing, and dropping the old one."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from tiller.store import Store
from tiller.store.sealing import SealingError
from tiller.store.tables import run_events, runs, session_messages

SECRET_TEXT = "my account number is 12345678"


def new_key() -> str:
    return Fernet.generate_key().decode()


async def raw_text(store: Store) -> str:
    async with store.database.read() as conn:
        rows = [
            *(await conn.execute(sa.select(session_messages.c.message))).all(),
            *(await conn.execute(sa.select(runs.c.input))).all(),
            *(await conn.execute(sa.select(run_events.c.data))).all(),
        ]
    return " ".join(str(row[0]) for row in rows)


async def fill(store: Store, sensitivity: str) -> tuple[str, str]:
    session = await store.sessions.create("ann", title="t", model="m", sensitivity=sensitivity)
    message = {"role": "user", "content": [{"type": "text", "text": SECRET_TEXT}]}
    run = (await store.runs.start("ann", session.id, [message])).run
    await store.sessions.append_messages(session.id, [message], run_id=run.id)
    sealed = sensitivity != "normal"
    await store.run_events.append(run.id, [(1, "note", {"text": SECRET_TEXT})], sealed=sealed)
    return session.id, run.id


async def test_a_sensitive_sessions_data_is_sealed_and_read_back(url: str) -> None:
    async with await Store.open(url, keys=[new_key()]) as store:
        secret_session, secret_run = await fill(store, "confidential")
        assert SECRET_TEXT not in await raw_text(store)
        (message,) = await store.sessions.history(secret_session)
        assert message.message["content"][0]["text"] == SECRET_TEXT
        assert (await store.runs.find(secret_run)).input[0]["content"][0]["text"] == SECRET_TEXT
        (event,) = await store.run_events.after(secret_run)
        assert event.data == {"text": SECRET_TEXT}
        await fill(store, "normal")
        assert SECRET_TEXT in await raw_text(store)  # a normal session is not sealed


async def test_rotating_the_key(url: str) -> None:
    old, new = new_key(), new_key()
    async with await Store.open(url, keys=[old]) as store:
        session_id, _ = await fill(store, "restricted")
    async with await Store.open(url, keys=[new, old]) as store:
        assert await store.reseal() == 3
    async with await Store.open(url, keys=[new]) as store:  # the old key is gone
        (message,) = await store.sessions.history(session_id)
        assert message.message["content"][0]["text"] == SECRET_TEXT
    async with await Store.open(url, keys=[new_key()]) as store:
        with pytest.raises(SealingError, match="opens with none of the configured keys"):
            await store.sessions.history(session_id)


async def test_no_key_means_no_sensitive_session_and_a_bad_key_is_refused(url: str) -> None:
    async with await Store.open(url) as store:
        with pytest.raises(SealingError, match="no encryption key"):
            await store.sessions.create("ann", title="t", model="m", sensitivity="confidential")
    with pytest.raises(SealingError, match="encryption key 1 is not a Fernet key"):
        await Store.open(url, keys=["not-a-key"])


async def test_events_of_several_runs_stored_together_are_sealed_per_run(url: str) -> None:
    async with await Store.open(url, keys=[new_key()]) as store:
        runs_of = []
        for sensitivity in ("confidential", "normal"):
            session = await store.sessions.create(
                "ann", title="t", model="m", sensitivity=sensitivity
            )
            runs_of.append((await store.runs.start("ann", session.id, [])).run.id)
        secret_run, open_run = runs_of
        await store.run_events.append_many(
            [
                (secret_run, [(1, "note", {"text": SECRET_TEXT})], True),
                (open_run, [(1, "note", {"text": "hello"}), (2, "note", {"n": 2})], False),
            ]
        )
        assert SECRET_TEXT not in await raw_text(store)
        assert "hello" in await raw_text(store)
        (secret,) = await store.run_events.after(secret_run)
        assert secret.data == {"text": SECRET_TEXT}
        assert [e.seq for e in await store.run_events.after(open_run)] == [1, 2]
