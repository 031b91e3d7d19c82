from __future__ import annotations

import asyncio

from tiller.cancellation import CancelToken


def test_cancel_runs_callbacks_once_and_keeps_the_reason() -> None:
    token = CancelToken()
    calls: list[int] = []
    token.on_cancel(lambda: calls.append(1))
    token.cancel("timeout")
    token.cancel("again")
    assert calls == [1]
    assert token.cancelled
    assert token.reason == "timeout"
    late: list[int] = []
    token.on_cancel(lambda: late.append(1))
    assert late == [1]


def test_unregistered_callbacks_do_not_run() -> None:
    token = CancelToken()
    calls: list[int] = []
    unregister = token.on_cancel(lambda: calls.append(1))
    unregister()
    unregister()
    token.cancel()
    assert calls == []


def test_children_follow_the_parent_but_not_the_other_way() -> None:
    parent = CancelToken()
    child = parent.child()
    other = parent.child()
    child.cancel()
    assert not parent.cancelled
    parent.cancel("stop")
    assert other.cancelled
    assert other.reason == "stop"


def test_a_detached_child_no_longer_follows() -> None:
    parent = CancelToken()
    child = parent.child()
    child.detach()
    parent.cancel()
    assert not child.cancelled


async def test_wait() -> None:
    token = CancelToken()
    waiter = asyncio.create_task(token.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    token.cancel()
    await asyncio.wait_for(waiter, 1)
    await token.wait()  # returns at once when already cancelled
