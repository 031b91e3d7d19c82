"""Leases: one process runs a solve; a second claimant is told who holds it and until when."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.store import other_process
from tiller.store import LeaseLostError, SolveBusyError, SolveNotFound, Store
from tiller.store.leases import default_holder, holder_is_dead


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def test_a_second_claimant_gets_the_holder_and_the_expiry(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    lease = await store.leases.claim(solve_id, "host-a:101", seconds=60)
    with pytest.raises(SolveBusyError, match="being run by host-a:101") as raised:
        await store.leases.claim(solve_id, "host-b:202")
    assert raised.value.holder == "host-a:101"
    assert raised.value.expires_at == lease.expires_at
    assert f"{lease.expires_at:%Y-%m-%d %H:%M:%S} UTC" in str(raised.value)
    again = await store.leases.claim(solve_id, "host-a:101")  # the holder may claim again
    assert again.holder == "host-a:101"


async def test_an_expired_lease_is_taken_over_and_the_old_holder_learns_it(url: str) -> None:
    clock = Clock()
    async with await Store.open(url, clock=clock) as store:
        solve_id = await store.solves.create("x", {})
        old = await store.leases.claim(solve_id, "a", seconds=30)
        clock.now += timedelta(seconds=29)
        with pytest.raises(SolveBusyError):
            await store.leases.claim(solve_id, "b", seconds=30)
        clock.now += timedelta(seconds=1)
        new = await store.leases.claim(solve_id, "b", seconds=30)
        assert new.holder == "b"
        with pytest.raises(LeaseLostError, match="now held by b"):
            await store.leases.renew(old)
        assert old.lost
        with pytest.raises(LeaseLostError):
            old.check()
        await store.leases.release(old)  # releasing a lost lease leaves the new holder's
        assert (await store.solves.load(solve_id)).lease_holder == "b"


async def test_renewing_extends_and_releasing_frees(url: str) -> None:
    clock = Clock()
    async with await Store.open(url, clock=clock) as store:
        solve_id = await store.solves.create("x", {})
        lease = await store.leases.claim(solve_id, "a", seconds=30)
        clock.now += timedelta(seconds=20)
        await store.leases.renew(lease, seconds=30)
        assert lease.expires_at == clock.now + timedelta(seconds=30)
        clock.now += timedelta(seconds=20)
        with pytest.raises(SolveBusyError):
            await store.leases.claim(solve_id, "b")
        await store.leases.release(lease)
        assert (await store.leases.claim(solve_id, "b")).holder == "b"


async def test_hold_renews_in_the_background_and_releases(store: Store) -> None:
    solve_id = await store.solves.create("x", {})
    async with store.leases.hold(solve_id, "runner", seconds=0.3) as lease:
        first = lease.expires_at
        await asyncio.sleep(0.5)
        assert lease.expires_at > first
        with pytest.raises(SolveBusyError):
            await store.leases.claim(solve_id, "other")
    record = await store.solves.load(solve_id)
    assert (record.lease_holder, record.lease_expires_at) == (None, None)


async def test_claiming_an_unknown_solve(store: Store) -> None:
    with pytest.raises(SolveNotFound):
        await store.leases.claim("nope", "a")


async def test_two_stores_claiming_at_once_exactly_one_wins(url: str) -> None:
    stores = [await Store.open(url) for _ in range(4)]
    try:
        solve_id = await stores[0].solves.create("x", {})

        async def claim(n: int) -> str:
            try:
                await stores[n].leases.claim(solve_id, f"holder-{n}")
            except SolveBusyError:
                return "busy"
            return "won"

        results = await asyncio.gather(*(claim(n) for n in range(4)))
        assert sorted(results) == ["busy", "busy", "busy", "won"]
    finally:
        for store in stores:
            await store.close()


async def test_a_second_process_is_refused_and_takes_over_after_the_lease_expires(
    store: Store,
) -> None:
    url = store.database.url.render_as_string(hide_password=False)
    solve_id = await store.solves.create("x", {})
    await store.leases.claim(solve_id, "this-process", seconds=60)
    refused = other_process.run("claim", url, solve_id, "other-process", "30")
    assert refused.returncode == 3, refused.stderr
    assert "busy: solve" in refused.stdout
    assert "being run by this-process" in refused.stdout


async def test_a_killed_holder_not_known_as_a_process_here_blocks_until_its_lease_expires(
    store: Store,
) -> None:
    url = store.database.url.render_as_string(hide_password=False)
    solve_id = await store.solves.create("y", {})
    holder = other_process.start("hold", url, solve_id, "killed", "1.5")
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "claimed"
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=30)
    with pytest.raises(SolveBusyError, match="being run by killed"):
        await store.leases.claim(solve_id, "this-process")
    await asyncio.sleep(1.6)
    assert (await store.leases.claim(solve_id, "this-process")).holder == "this-process"


async def test_the_lease_of_a_killed_process_of_this_host_is_taken_over_at_once(
    store: Store,
) -> None:
    url = store.database.url.render_as_string(hide_password=False)
    solve_id = await store.solves.create("z", {})
    holder = other_process.start("hold", url, solve_id, "auto", "600")
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "claimed"
        with pytest.raises(SolveBusyError, match=f":{holder.pid}:"):
            await store.leases.claim(solve_id, "this-process")  # alive: refused
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        assert (await store.leases.claim(solve_id, "this-process")).holder == "this-process"
    finally:
        holder.kill()
        holder.communicate(timeout=30)


def test_a_holder_is_judged_dead_only_when_it_is_a_gone_process_of_this_host() -> None:
    host = socket.gethostname()
    assert not holder_is_dead(default_holder())  # this process
    assert not holder_is_dead("killed")
    assert not holder_is_dead(f"another-{host}:1:abc")
    assert holder_is_dead(f"{host}:{_gone_pid()}:abc")


def test_a_killed_child_not_yet_waited_for_is_dead() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        holder = f"{socket.gethostname()}:{child.pid}:abc"
        assert not holder_is_dead(holder)
        child.kill()
        deadline = time.monotonic() + 10
        while not holder_is_dead(holder) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert holder_is_dead(holder)  # a zombie still answers signal 0
    finally:
        child.kill()
        child.wait()


def _gone_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


async def test_a_writer_whose_lease_was_taken_over_cannot_save(url: str) -> None:
    clock = Clock()
    async with await Store.open(url, clock=clock) as store:
        solve_id = await store.solves.create("x", {})
        old = await store.leases.claim(solve_id, "old", seconds=30)
        clock.now += timedelta(seconds=31)
        new = await store.leases.claim(solve_id, "new", seconds=30)
        with pytest.raises(LeaseLostError, match="now held by new"):
            await store.solves.save_state(solve_id, {"by": "old"}, version=0, lease=old)
        assert old.lost
        assert await store.solves.save_state(solve_id, {"by": "new"}, version=0, lease=new) == 1
        assert (await store.solves.load(solve_id)).state == {"by": "new"}
