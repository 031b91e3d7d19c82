from __future__ import annotations

import asyncio

import pytest

from tiller.loop.eager import gather_eagerly


async def test_coroutines_that_do_not_wait_need_no_task() -> None:
    order: list[str] = []

    async def quick(name: str) -> None:
        order.append(name)

    before = len(asyncio.all_tasks())
    await gather_eagerly([quick("a"), quick("b")])
    assert order == ["a", "b"]
    assert len(asyncio.all_tasks()) == before


async def test_waiting_coroutines_run_concurrently_and_finish() -> None:
    gate = asyncio.Event()
    done: list[str] = []

    async def waiter() -> None:
        await gate.wait()
        done.append("waiter")

    async def opener() -> None:
        await asyncio.sleep(0)
        gate.set()
        done.append("opener")

    await asyncio.wait_for(gather_eagerly([waiter(), opener()]), 2)
    assert sorted(done) == ["opener", "waiter"]


async def test_errors_and_cancellation_reach_the_coroutine() -> None:
    seen: list[str] = []

    async def sleeper() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    task = asyncio.create_task(gather_eagerly([sleeper(), sleeper()]))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["cancelled", "cancelled"]

    async def failing() -> None:
        await asyncio.sleep(0)
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await gather_eagerly([failing()])
