"""A cancel that races an execution starting elsewhere: the run's last event takes the
next free number instead of failing on one the execution took."""

from __future__ import annotations

from tests.server.live_server import live_server
from tiller.server.app import create_app
from tiller.server.settings import ServerSettings


async def test_a_cancel_racing_an_execution_takes_the_next_number(
    settings: ServerSettings,
) -> None:
    app = create_app(settings)
    async with live_server(settings, app):
        store, engine = app.state.services.store, app.state.services.engine
        session = await store.sessions.create("ann", title="t", model="svc:echo")
        message = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
        run = (await store.runs.start("ann", session.id, [message])).run
        # An execution in another process numbered an event after the cancel read the
        # last number.
        await store.run_events.append(run.id, [(1, "run_started", {})])
        real = store.run_events.last_seq
        reads: list[str] = []

        async def stale_once(run_id: str) -> int:
            reads.append(run_id)
            return 0 if len(reads) == 1 else await real(run_id)

        store.run_events.last_seq = stale_once
        assert await engine.cancel(run)
        events = await store.run_events.after(run.id)
    assert [(e.seq, e.type) for e in events] == [(1, "run_started"), (2, "run_finished")]
