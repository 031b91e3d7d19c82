"""Sessions and their histories: every query filtered by owner; deleting archives."""

from __future__ import annotations

import asyncio

import pytest

from tiller.store import Store
from tiller.store.documents import EncodedJSON
from tiller.store.errors import SessionNotFound


async def test_another_owners_session_is_not_found(store: Store) -> None:
    mine = await store.sessions.create("ann", title="Plans", model="local:smollm2")
    assert (await store.sessions.get("ann", mine.id)).title == "Plans"
    with pytest.raises(SessionNotFound):
        await store.sessions.get("bob", mine.id)
    with pytest.raises(SessionNotFound):
        await store.sessions.update("bob", mine.id, title="stolen")
    with pytest.raises(SessionNotFound):
        await store.sessions.archive("bob", mine.id)
    assert await store.sessions.list("bob") == []
    assert (await store.sessions.get("ann", mine.id)).title == "Plans"


async def test_lists_are_paged_newest_first_and_filtered(store: Store) -> None:
    made = [
        await store.sessions.create("ann", title=f"Topic {n}", model="local:smollm2")
        for n in range(5)
    ]
    other = await store.sessions.create("ann", title="100% done_x", model="openai:gpt-4o")
    await store.sessions.create("bob", title="Topic 9", model="local:smollm2")
    first = await store.sessions.list("ann", limit=3)
    assert [s.id for s in first] == [other.id, made[4].id, made[3].id]
    rest = await store.sessions.list("ann", limit=3, before=first[-1].id)
    assert [s.id for s in rest] == [made[2].id, made[1].id, made[0].id]
    assert [s.id for s in await store.sessions.list("ann", title_contains="topic 3")] == [
        made[3].id
    ]
    # The pattern's own wildcards are taken literally.
    assert [s.id for s in await store.sessions.list("ann", title_contains="0% done_")] == [other.id]
    assert await store.sessions.list("ann", title_contains="_x%") == []
    assert [s.id for s in await store.sessions.list("ann", model="openai:gpt-4o")] == [other.id]
    with pytest.raises(SessionNotFound):
        await store.sessions.list("bob", before=made[0].id)  # not bob's to page from


async def test_archiving_hides_a_session_and_keeps_its_history(store: Store) -> None:
    session = await store.sessions.create("ann", title="Old", model="local:smollm2")
    await store.sessions.append_messages(session.id, [{"role": "user"}], run_id=None)
    await store.sessions.archive("ann", session.id)
    with pytest.raises(SessionNotFound):
        await store.sessions.get("ann", session.id)
    assert await store.sessions.list("ann") == []
    archived = await store.sessions.get("ann", session.id, archived=True)
    assert archived.archived_at is not None
    assert len(await store.sessions.history(session.id)) == 1


async def test_update_changes_only_what_may_change(store: Store) -> None:
    session = await store.sessions.create("ann", title="Old", model="local:smollm2")
    changed = await store.sessions.update("ann", session.id, title="New", tools=("read_file",))
    assert (changed.title, changed.tools) == ("New", ["read_file"])
    assert changed.updated_at >= session.updated_at
    with pytest.raises(ValueError, match="cannot change status"):
        await store.sessions.update("ann", session.id, status="archived")


async def test_concurrent_appends_number_the_history_without_gaps_or_repeats(
    store: Store,
) -> None:
    session = await store.sessions.create("ann", title="Busy", model="local:smollm2")

    async def add(n: int) -> None:
        await store.sessions.append_messages(
            session.id, [{"n": n, "part": 1}, {"n": n, "part": 2}], run_id=f"r{n}"
        )

    await asyncio.gather(*(add(n) for n in range(10)))
    history = await store.sessions.history(session.id)
    assert [m.seq for m in history] == list(range(1, 21))
    for first, second in zip(history[::2], history[1::2], strict=True):
        assert first.message["n"] == second.message["n"]  # each batch stays together
        assert first.run_id == second.run_id
    assert [m.seq for m in await store.sessions.history(session.id, after=18)] == [19, 20]


async def test_the_messages_of_several_sessions_are_numbered_and_stored_together(
    store: Store,
) -> None:
    first = await store.sessions.create("ann", title="One", model="m")
    second = await store.sessions.create("bob", title="Two", model="m")
    await store.sessions.append_messages(first.id, [{"n": 0}], run_id="r0")
    lasts = await store.sessions.append_many(
        [
            (first.id, [{"n": 1}, {"n": 2}], "r1"),
            (second.id, [{"n": 3}], "r2"),
            (first.id, [], "r1"),  # nothing added: the last number so far
            (first.id, [{"n": 4}], "r3"),  # the same history twice: numbered in order
        ]
    )
    assert lasts == [3, 1, 3, 4]
    history = await store.sessions.history(first.id)
    assert [(m.seq, m.message["n"], m.run_id) for m in history] == [
        (1, 0, "r0"),
        (2, 1, "r1"),
        (3, 2, "r1"),
        (4, 4, "r3"),
    ]
    assert [m.message["n"] for m in await store.sessions.history(second.id)] == [3]
    assert await store.sessions.append_messages(first.id, [{"n": 5}], run_id=None) == 5


async def test_a_gone_session_fails_every_append_stored_with_it(store: Store) -> None:
    kept = await store.sessions.create("ann", title="Kept", model="m")
    with pytest.raises(SessionNotFound):
        await store.sessions.append_many(
            [(kept.id, [{"n": 1}], "r1"), ("no-such-session", [{"n": 2}], "r2")]
        )
    assert await store.sessions.history(kept.id) == []
    assert await store.sessions.append_messages(kept.id, [{"n": 1}], run_id="r1") == 1


async def test_a_message_already_encoded_is_stored_as_its_text(store: Store) -> None:
    session = await store.sessions.create("ann", title="One", model="m")
    encoded = EncodedJSON('{"role":"user","text":"é \\"quoted\\""}')
    lasts = await store.sessions.append_many(
        [(session.id, [encoded, {"n": 2}], "r1"), (session.id, [encoded], "r2")]
    )
    assert lasts == [2, 3]
    history = await store.sessions.history(session.id)
    assert [m.message for m in history] == [
        {"role": "user", "text": 'é "quoted"'},
        {"n": 2},
        {"role": "user", "text": 'é "quoted"'},
    ]
