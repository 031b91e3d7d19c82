"""Runs as durable workflows: DBOS queues them, starts them, and recovers them.

Each stored run is a DBOS workflow whose id is the run's id, enqueued on one queue with
the session as its partition key and one run per partition at a time: a session's runs
execute one after another, in the order they were sent, however many processes serve.
DBOS records the workflow before `submit` returns and, when a process starts, picks up
the workflows that were running in it when it stopped, so a run outlives the process
that started it. The workflow itself holds no state: it executes the run from the store
(`RunExecution`), which is what makes a recovered run go on from its last stored
message instead of starting over.

DBOS keeps its own tables: in a SQLite file beside the store's (`NAME.dbos.db`), or in
the `dbos` schema of the same PostgreSQL database. Workflow inputs and outputs are
stored as JSON (DBOS's portable serializer), never pickled. The application version is
pinned (`WORKFLOW_VERSION`), so a restarted or upgraded server recovers the runs of the
one before it: the workflow's code may change freely as long as it takes a run id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from dbos import DBOS, DBOSConfig, Queue, SetEnqueueOptions, SetWorkflowID
from dbos._serialization import DBOSPortableJSONSerializer
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError

from tiller.messages import Usage
from tiller.server.admission import Admission, Place
from tiller.server.event_log import RUN_FINISHED, EventHub, EventWriter
from tiller.server.run_execution import RunControls, RunExecution
from tiller.server.session_agents import ApprovalRule, SessionAgents
from tiller.server.tracing import Tracing
from tiller.store import Store
from tiller.store.errors import RecordNotFound
from tiller.store.runs import Run, RunStatus

log = logging.getLogger(__name__)

# The version DBOS files the workflows under: change it only when `run_workflow` stops
# taking a run id, since a process recovers only the workflows of its own version.
WORKFLOW_VERSION = "tiller-runs-1"
QUEUE = "tiller_runs"
# How many runs one process takes from the queue at once; how many of those execute at
# once follows the event loop's lag (`Admission`).
WORKER_CONCURRENCY = 1000


CANCEL_ATTEMPTS = 5  # numbers taken by a concurrent execution before the cancel's own


class RunEngine:
    """Submits, executes, steers and cancels the runs of this process's store."""

    def __init__(
        self,
        store: Store,
        hub: EventHub,
        agents: SessionAgents,
        approvals: ApprovalRule,
        *,
        on_finished: Callable[[str, str, Usage | None], None] | None = None,
        tracing: Tracing | None = None,
    ) -> None:
        self.tracing = tracing or Tracing(None)
        self.writer = EventWriter(store, hub)  # every run's events, stored together
        self.store = store
        self.hub = hub
        self.agents = agents
        self.approvals = approvals
        self.on_finished = on_finished  # (model, status, usage): for the metrics
        self.executing: dict[str, RunControls] = {}
        self._idle = asyncio.Event()  # set while no run executes here
        self._idle.set()
        self._queue: Queue | None = None
        self.admission = Admission(WORKER_CONCURRENCY)

    # ── lifetime ────────────────────────────────────────────────────────────

    async def start(self, system_database_url: str) -> None:
        """Launch DBOS (which recovers this process's unfinished runs) and the queue."""
        global _engine
        _engine = self
        config: DBOSConfig = {
            "name": "tiller",
            "system_database_url": system_database_url,
            "serializer": DBOSPortableJSONSerializer(),
            "application_version": WORKFLOW_VERSION,
            "log_level": "WARNING",
            "notification_listener_polling_interval_sec": 0.1,
        }
        DBOS(config=config)
        DBOS.launch()
        self._queue = await DBOS.register_queue_async(
            QUEUE,
            worker_concurrency=WORKER_CONCURRENCY,
            partition_concurrency=1,
            polling_interval_sec=0.05,
        )
        # A run stored whose workflow was never queued (the process died between the two)
        # is queued now; for the others the run's id finds the workflow DBOS already has.
        for run in await self.store.runs.unfinished():
            await self.submit(run)

    async def stop(self, grace_s: float) -> None:
        """Let executing runs finish for up to `grace_s` seconds, then stop; a run still
        executing then goes on when a process starts again."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace_s)
        DBOS.destroy()
        self.admission.stop()
        await self.writer.stop()
        global _engine
        _engine = None

    # ── what the routes do ──────────────────────────────────────────────────

    async def submit(self, run: Run) -> None:
        """Queue the stored run: it executes after the runs of its session before it."""
        assert self._queue is not None, "the engine is not started"
        self.tracing.run_queued(run.id)
        with (
            SetWorkflowID(run.id),
            SetEnqueueOptions(queue_partition_key=run.session_id),
        ):
            await self._queue.enqueue_async(run_workflow, run.id)

    async def cancel(self, run: Run) -> bool:
        """Stop the run: at once if it executes here, before it starts if it waits.
        False when it had already ended."""
        controls = self.executing.get(run.id)
        if controls is not None:
            controls.cancel.cancel("cancelled by the user")
            return True
        current = await self.store.runs.find(run.id)
        if current.status.finished:
            return False
        await DBOS.cancel_workflow_async(run.id)
        controls = self.executing.get(run.id)  # it may have started here meanwhile
        if controls is not None:
            controls.cancel.cancel("cancelled by the user")
            return True
        if await self.store.runs.finish(run.id, RunStatus.CANCELLED, stop_reason="aborted"):
            await self._store_cancelled(run.id)
            self.hub.published(run.id)
            return True
        return False

    async def _store_cancelled(self, run_id: str) -> None:
        """The run's last event: cancelled. An execution that started meanwhile (in another
        process) may number an event first; the next number is then taken."""
        finished = {"status": "cancelled", "stop_reason": None}
        for attempt in range(CANCEL_ATTEMPTS):
            last = await self.store.run_events.last_seq(run_id)
            try:
                await self.store.run_events.append(run_id, [(last + 1, RUN_FINISHED, finished)])
                return
            except IntegrityError:
                if attempt == CANCEL_ATTEMPTS - 1:
                    raise

    def controls(self, run_id: str) -> RunControls | None:
        """The controls of a run executing in this process."""
        return self.executing.get(run_id)

    # ── in the workflow ─────────────────────────────────────────────────────

    async def execute(self, run_id: str) -> str:
        async with self.admission.admitted() as place:  # still queued in the store till then
            return await self._execute(run_id, place)

    async def _execute(self, run_id: str, place: Place) -> str:
        try:
            run = await self.store.runs.mark_running(run_id)
            if run.status.finished:
                return run.status.value
            session = await self.store.sessions.get(run.owner_id, run.session_id, archived=True)
        except RecordNotFound:
            log.warning("run %s is gone from the store; its workflow ends", run_id)
            return "gone"
        controls = self.executing[run_id] = RunControls()
        self._idle.clear()
        try:
            with self.tracing.run(run_id, session.id) as span:
                execution = RunExecution(
                    self.store,
                    self.hub,
                    self.agents,
                    self.approvals,
                    run,
                    session,
                    controls,
                    self.tracing,
                    span,
                    self.writer,
                    lambda: self.admission.released(place),
                )
                status = await execution.execute()
                if span is not None:
                    span.set_attribute("tiller.run_status", status.value)
        finally:
            del self.executing[run_id]
            if not self.executing:
                self._idle.set()
        if self.on_finished is not None:
            stats = execution.stats
            self.on_finished(session.model, status.value, stats.usage if stats else None)
        return status.value


_engine: RunEngine | None = None


@DBOS.workflow(name="tiller_run")
async def run_workflow(run_id: str) -> str:
    """A run, executed by this process's engine."""
    if _engine is None:
        raise RuntimeError("no run engine is started in this process")
    return await _engine.execute(run_id)


def system_database_url(store_url: URL) -> str:
    """Where DBOS keeps its tables, next to the store's."""
    if store_url.get_backend_name() == "sqlite":
        path = Path(str(store_url.database))
        return f"sqlite:///{path.with_name(path.stem + '.dbos.db')}"
    return store_url.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
