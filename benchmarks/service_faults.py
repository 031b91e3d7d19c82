"""The service's fault tolerance, against a real `tiller serve` process: kill -9,
restarts, dropped WebSockets.

Prints JSON. Each part starts `tiller serve` as a process of its own (the test models of
tests/server/models.py registered, the `shell` tool in each session's workspace) and
stops it the hard way:

- crash, on SQLite and on PostgreSQL (a server started from Debian's binaries; skipped,
  with the reason, without them): `--runs` runs, each a session whose one tool call is
  the command `echo ran >> calls.txt; sleep 0.N; echo done >> calls.txt`, an effect
  that records each of its executions. The server is killed (SIGKILL) a random
  0-(0.N + 0.5) s after each message's 202, a few runs per kill, so kills land before a
  run's command, during it and after it (`kill_points`, from what the command had
  written); then it starts again on the same database. Counted:
  the accepted messages kept in their session's history, the runs that reach a
  finished status after the restart (completed or failed, with the reasons), and the
  commands run more than once (bars: none lost, none unfinished, none run twice);
- approvals after a restart: 5 runs whose shell call waits for an approval
  (`approve_effects = ["external"]`), the server stopped by SIGTERM and started again,
  the approvals listed (bar: all 5), then approved one by one, each timed from the
  approve answer to its run's `run_finished` event on the run's SSE stream, once the
  restarted server waits for it (bar: the slowest under 1 s);
- WebSocket drops (SQLite): `--ws-drops` clients following 5 running sessions'
  events on `/sessions/{id}/ws`, each dropping its socket after a random number of
  events and subscribing again from the last seq it saw. A third of them stay away
  while the server is killed (SIGKILL) and started again; the kill also cuts the
  sockets open then, whose clients reconnect the same way. Each client's events are
  compared with the stored ones (`GET /runs/{id}/events`): missing, duplicated, or a
  seq naming another event than the stored one (bar: 0, 0, 0).

`all_bars_met` is true only when every bar was measured and met.

    .venv/bin/python -m benchmarks.service_faults --runs 20 --ws-drops 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from tests.databases import new_postgres_database
from tests.server.server_process import ServerProcess
from tests.store.postgres_server import NO_BINARIES, binaries, postgres_server
from websockets.exceptions import WebSocketException

from tiller.store.api_keys import new_key_text

KEY = new_key_text()
AUTH = {"Authorization": f"Bearer {KEY}"}
FINISHED = ("completed", "failed", "cancelled")
RUNS_PER_KILL = 4
APPROVAL_RUNS = 5
WS_RUNS = 5
# About 10 s of output, streamed as a `tool_execution_update` event every 0.1 s.
STREAMING_COMMAND = "for i in $(seq 100); do echo line $i; sleep 0.1; done"
# Clients drop after 1 to this many events: well before a streaming run ends.
MAX_DROP_AFTER = 40
WAIT_S = 90.0


def serve(database_url: str, data_dir: Path, approve_effects: Sequence[str] = ()) -> ServerProcess:
    env = {
        "TILLER_ADMIN_KEY": KEY,
        "TILLER_MODEL": "svc:shell_once",
        "TILLER_TOOLS": '["shell"]',
        "TILLER_APPROVE_EFFECTS": json.dumps(list(approve_effects)),
        # A SIGTERM then stops runs that wait for a person quickly.
        "TILLER_SHUTDOWN_GRACE_S": "2",
    }
    return ServerProcess(database_url, data_dir, env)


def client(server: ServerProcess) -> httpx.AsyncClient:
    # A new client after each restart: no pooled connection to the dead process.
    return httpx.AsyncClient(base_url=server.url, headers=AUTH, timeout=30)


async def start_run(api: httpx.AsyncClient, text: str) -> tuple[str, str, float]:
    """A new session and its run: (session id, run id, when the 202 came)."""
    session = await api.post("/sessions", json={"title": "faults", "tools": ["shell"]})
    session.raise_for_status()
    return await send(api, session.json()["id"], text)


async def send(api: httpx.AsyncClient, session_id: str, text: str) -> tuple[str, str, float]:
    answer = await api.post(f"/sessions/{session_id}/messages", json={"text": text})
    answer.raise_for_status()
    return session_id, answer.json()["id"], time.monotonic()


async def until_finished(api: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    """The run once it has finished, or as it is after `WAIT_S`."""
    deadline = time.monotonic() + WAIT_S
    while True:
        run: dict[str, Any] = (await api.get(f"/runs/{run_id}")).json()
        if run["status"] in FINISHED or time.monotonic() > deadline:
            return run
        await asyncio.sleep(0.05)


async def sleep_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.monotonic()))


def summary_ms(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "max": None}
    return {"median": round(statistics.median(values), 1), "max": round(max(values), 1)}


# ── crash: kill -9 at a random point of each run ────────────────────────────


@dataclass
class CrashRun:
    session_id: str
    run_id: str
    text: str
    workspace: Path
    answered: float  # when its 202 came (monotonic clock)
    kill_delay_s: float = 0.0
    kill_point: str = ""


async def crash(database_url: str, data_dir: Path, runs: int = 20, seed: int = 0) -> dict[str, Any]:
    """`runs` runs, `RUNS_PER_KILL` at a time cut by a kill -9 and a restart."""
    rng = random.Random(seed)
    server = serve(database_url, data_dir)
    done: list[CrashRun] = []
    outcomes: list[dict[str, Any]] = []
    started = time.perf_counter()
    await asyncio.to_thread(server.start)
    try:
        while len(done) < runs:
            batch = await crash_batch(server, rng, min(RUNS_PER_KILL, runs - len(done)))
            async with client(server) as api:
                outcomes += [await crash_outcome(api, run) for run in batch]
            done += batch
    finally:
        await asyncio.to_thread(server.stop)
    return crash_report(done, outcomes, time.perf_counter() - started)


async def crash_batch(server: ServerProcess, rng: random.Random, size: int) -> list[CrashRun]:
    """`size` runs, each sent so that the kill comes at a random point of it; the server
    is started again before this returns."""
    plans = sorted((kill_plan(rng) for _ in range(size)), reverse=True)
    batch: list[CrashRun] = []
    kill_at: float | None = None
    async with client(server) as api:
        sessions = [
            (await api.post("/sessions", json={"title": "crash", "tools": ["shell"]})).json()["id"]
            for _ in plans
        ]  # before the first message, so nothing else delays the sends
        for session_id, (delay, sleep_s) in zip(sessions, plans, strict=True):
            if kill_at is not None:
                await sleep_until(kill_at - delay)
            text = f"echo ran >> calls.txt; sleep {sleep_s}; echo done >> calls.txt"
            _, run_id, answered = await send(api, session_id, text)
            workspace = server.data_dir / "workspaces" / session_id
            batch.append(CrashRun(session_id, run_id, text, workspace, answered))
            if kill_at is None:
                kill_at = answered + delay
        assert kill_at is not None
        await sleep_until(kill_at)
    await asyncio.to_thread(server.kill)
    killed = time.monotonic()
    for run in batch:
        run.kill_delay_s = killed - run.answered
        run.kill_point = kill_point(run.workspace)
    await asyncio.to_thread(server.start)
    return batch


def kill_plan(rng: random.Random) -> tuple[float, float]:
    """(the kill's delay after the 202, the command's sleep), in seconds: a run starts
    its command some 0.1 s after the 202, so the delay falls before the command, during
    it or after it."""
    sleep_s = rng.randint(1, 9) / 10
    return rng.uniform(0, sleep_s + 0.5), sleep_s


def executions(workspace: Path) -> list[str]:
    calls = workspace / "calls.txt"
    return calls.read_text().split() if calls.exists() else []


def kill_point(workspace: Path) -> str:
    """Where the kill found the run's command, from what it had written."""
    written = executions(workspace)
    if "ran" not in written:
        return "before_command"
    return "after_command" if "done" in written else "during_command"


async def crash_outcome(api: httpx.AsyncClient, run: CrashRun) -> dict[str, Any]:
    finished = await until_finished(api, run.run_id)
    history = (await api.get(f"/sessions/{run.session_id}/messages")).json()
    kept = any(
        m["message"]["role"] == "user"
        and [c.get("text") for c in m["message"]["content"]] == [run.text]
        for m in history
    )
    return {
        "status": finished["status"],
        "error": finished["error"],
        "kept": kept,
        "executions": executions(run.workspace).count("ran"),
    }


def crash_report(
    runs: Sequence[CrashRun], outcomes: Sequence[dict[str, Any]], wall_s: float
) -> dict[str, Any]:
    statuses = Counter(o["status"] for o in outcomes)
    finished = {status: statuses[status] for status in FINISHED}
    ran = Counter(min(o["executions"], 2) for o in outcomes)
    delays = [r.kill_delay_s for r in runs]
    return {
        "runs": len(runs),
        "kills": -(-len(runs) // RUNS_PER_KILL),
        "kill_points": dict(Counter(r.kill_point for r in runs)),
        "kill_delay_s": {"min": round(min(delays), 3), "max": round(max(delays), 3)},
        "kept_messages": sum(o["kept"] for o in outcomes),
        "lost_messages": sum(not o["kept"] for o in outcomes),
        "finished_after_restart": finished,
        "not_finished": len(outcomes) - sum(finished.values()),
        "failure_reasons": sorted({str(o["error"]) for o in outcomes if o["status"] == "failed"}),
        # Not run at all is allowed: killed between the journal entry and the command.
        "executed": {"never": ran[0], "once": ran[1]},
        "executed_twice": ran[2],
        "wall_s": round(wall_s, 1),
    }


# ── approvals across a restart ──────────────────────────────────────────────


async def approvals_after_restart(
    database_url: str, data_dir: Path, runs: int = APPROVAL_RUNS
) -> dict[str, Any]:
    """`runs` runs waiting for an approval, a SIGTERM restart, then each approved."""
    server = serve(database_url, data_dir, approve_effects=["external"])
    await asyncio.to_thread(server.start)
    try:
        async with client(server) as api:
            run_ids = [(await start_run(api, "echo ran >> calls.txt"))[1] for _ in range(runs)]
            pending = await pending_approvals(api, run_ids)
        stop_s = await asyncio.to_thread(server.terminate)
        await asyncio.to_thread(server.start)
        async with client(server) as api:
            listed = [a for a in (await api.get("/approvals")).json() if a["run_id"] in run_ids]
            resumed = [await resume_latency(api, approval) for approval in listed]
    finally:
        await asyncio.to_thread(server.stop)
    latencies = [ms for ms, _ in resumed if ms is not None]
    return {
        "runs": runs,
        "stopped_by": "SIGTERM",
        "stop_s": round(stop_s, 2),
        "pending_before": len(pending),
        "listed_after_restart": len(listed),
        "completed_after_approval": sum(status == "completed" for _, status in resumed),
        "resume_latency_ms": summary_ms(latencies),
    }


async def pending_approvals(api: httpx.AsyncClient, run_ids: Sequence[str]) -> list[Any]:
    """The runs' pending approvals, once every run asks (or after `WAIT_S`)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        pending = [a for a in (await api.get("/approvals")).json() if a["run_id"] in run_ids]
        if len(pending) == len(run_ids) or time.monotonic() > deadline:
            return pending
        await asyncio.sleep(0.05)


async def sse(api: httpx.AsyncClient, run_id: str) -> AsyncGenerator[dict[str, Any], None]:
    """The run's events from its SSE stream: {"seq", "type", "data"}."""
    headers = {"Accept": "text/event-stream"}
    async with api.stream("GET", f"/runs/{run_id}/events", headers=headers) as answer:
        event: dict[str, Any] = {}
        async for line in answer.aiter_lines():
            if line.startswith("id: "):
                event["seq"] = int(line[4:])
            elif line.startswith("event: "):
                event["type"] = line[7:]
            elif line.startswith("data: "):
                event["data"] = json.loads(line[6:])
            elif not line and "seq" in event:  # not a keep-alive comment
                yield event
                event = {}


async def resume_latency(
    api: httpx.AsyncClient, approval: dict[str, Any]
) -> tuple[float | None, str]:
    """Approve once the restarted server waits for it again (an `approval_requested`
    after the run's `run_resumed`): the ms from the answer to `run_finished`, and the
    run's status (None and "timed out" if it did not finish within `WAIT_S`)."""
    try:
        async with (
            asyncio.timeout(WAIT_S),
            contextlib.aclosing(sse(api, approval["run_id"])) as events,
        ):
            resumed = False
            async for event in events:
                resumed = resumed or event["type"] == "run_resumed"
                if resumed and event["type"] == "approval_requested":
                    break
            decided = await api.post(f"/approvals/{approval['id']}/approve", json={})
            decided.raise_for_status()
            approved = time.perf_counter()
            async for event in events:
                if event["type"] == "run_finished":
                    return (time.perf_counter() - approved) * 1000, event["data"]["status"]
    except TimeoutError:
        pass
    return None, "timed out"


# ── WebSocket clients that drop and resume, across a kill -9 ────────────────


@dataclass
class SocketClient:
    url: str
    run_id: str
    drop_after: int
    across_restart: bool
    seen: list[tuple[int, str]] = field(default_factory=list)  # (seq, event type)
    connections: int = 0
    dropped: bool = False
    finished: bool = False
    errors: list[Any] = field(default_factory=list)


@dataclass
class Restart:
    """The clients that wait for the restart, and when it is done."""

    waiting: int
    all_away: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def away(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0:
            self.all_away.set()


async def websocket_drops(
    server: ServerProcess, clients: int = 100, seed: int = 0
) -> dict[str, Any]:
    """`clients` sockets on `WS_RUNS` streaming runs, each dropped once and resumed; a
    third of them are away while the server is killed and started again."""
    rng = random.Random(seed)
    base = server.url.replace("http://", "ws://")
    async with client(server) as api:
        runs = [await start_run(api, STREAMING_COMMAND) for _ in range(WS_RUNS)]
    followers = [
        SocketClient(
            f"{base}/sessions/{runs[n % WS_RUNS][0]}/ws",
            runs[n % WS_RUNS][1],
            drop_after=rng.randint(1, MAX_DROP_AFTER),
            across_restart=n % 3 == 0,
        )
        for n in range(clients)
    ]
    restart = Restart(sum(f.across_restart for f in followers))
    if restart.waiting == 0:
        restart.all_away.set()
    started = time.perf_counter()
    await asyncio.gather(
        restart_when_away(server, restart), *(follow(f, restart) for f in followers)
    )
    wall_s = time.perf_counter() - started
    async with client(server) as api:
        stored = {
            run_id: {e["seq"]: e["type"] for e in (await api.get(f"/runs/{run_id}/events")).json()}
            for _, run_id, _ in runs
        }
    return socket_report(followers, stored, wall_s)


async def restart_when_away(server: ServerProcess, restart: Restart) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(WAIT_S):
            await restart.all_away.wait()
    await asyncio.to_thread(server.kill)
    await asyncio.to_thread(server.start)
    restart.done.set()


async def follow(follower: SocketClient, restart: Restart) -> None:
    """Follow the run to `run_finished`: drop once on purpose after `drop_after`
    events, and reconnect whenever the server is down or the socket is cut."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(WAIT_S):
            while not follower.finished:
                try:
                    await subscribe(follower)
                except (OSError, WebSocketException):
                    await asyncio.sleep(0.05)  # the server is restarting
                    continue
                if follower.dropped and follower.across_restart and not restart.done.is_set():
                    restart.away()
                    await restart.done.wait()


async def subscribe(follower: SocketClient) -> None:
    """One connection, subscribed after the last seq seen, until `run_finished` or the
    planned drop."""
    async with websockets.connect(follower.url, additional_headers=AUTH) as socket:
        follower.connections += 1
        after = follower.seen[-1][0] if follower.seen else 0
        await socket.send(
            json.dumps({"type": "subscribe", "run_id": follower.run_id, "after": after})
        )
        async for raw in socket:
            frame = json.loads(raw)
            if frame["type"] != "event":
                follower.errors.append(frame)
                continue
            follower.seen.append((frame["seq"], frame["event"]))
            if frame["event"] == "run_finished":
                follower.finished = True
                return
            if not follower.dropped and len(follower.seen) >= follower.drop_after:
                follower.dropped = True
                return
    raise ConnectionError("the socket closed before run_finished")


def socket_report(
    followers: Sequence[SocketClient], stored: dict[str, dict[int, str]], wall_s: float
) -> dict[str, Any]:
    missing = duplicated = mismatched = 0
    for follower in followers:
        expected = stored[follower.run_id]
        seqs = [seq for seq, _ in follower.seen]
        missing += len(expected.keys() - set(seqs))
        duplicated += len(seqs) - len(set(seqs))
        mismatched += sum(expected.get(seq) != kind for seq, kind in follower.seen)
    reconnects = sum(f.connections - 1 for f in followers)
    dropped = sum(f.dropped for f in followers)
    return {
        "clients": len(followers),
        "runs": len(stored),
        "stored_events": sum(len(events) for events in stored.values()),
        "events_received": sum(len(f.seen) for f in followers),
        "dropped_on_purpose": dropped,
        "away_across_restart": sum(f.across_restart and f.dropped for f in followers),
        "reconnects": reconnects,
        "cut_by_the_kill": reconnects - dropped,
        "unfinished_clients": sum(not f.finished for f in followers),
        "error_frames": sum(len(f.errors) for f in followers),
        "missing": missing,
        "duplicated": duplicated,
        "mismatched": mismatched,
        "wall_s": round(wall_s, 1),
    }


async def websocket_section(folder: Path, clients: int, seed: int) -> dict[str, Any]:
    server = serve(f"sqlite:///{folder / 'ws.db'}", folder / "ws")
    await asyncio.to_thread(server.start)
    try:
        return await websocket_drops(server, clients, seed)
    finally:
        await asyncio.to_thread(server.stop)


# ── the report ──────────────────────────────────────────────────────────────


def measure(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Every part, on SQLite and (crash, approvals) on PostgreSQL."""
    crashes: dict[str, Any] = {}
    approvals: dict[str, Any] = {}
    crashes["sqlite"] = asyncio.run(
        crash(f"sqlite:///{folder / 'crash.db'}", folder / "crash-sqlite", args.runs, args.seed)
    )
    approvals["sqlite"] = asyncio.run(
        approvals_after_restart(f"sqlite:///{folder / 'approvals.db'}", folder / "approvals-sqlite")
    )
    bin_dir = None if args.skip_postgres else binaries()
    if bin_dir is None:
        reason = "--skip-postgres" if args.skip_postgres else NO_BINARIES
        crashes["postgresql"] = approvals["postgresql"] = {"skipped": reason}
    else:
        with postgres_server(bin_dir) as pg:
            crash_url = asyncio.run(new_postgres_database(pg))
            crashes["postgresql"] = asyncio.run(
                crash(crash_url, folder / "crash-postgresql", args.runs, args.seed)
            )
            approvals_url = asyncio.run(new_postgres_database(pg))
            approvals["postgresql"] = asyncio.run(
                approvals_after_restart(approvals_url, folder / "approvals-postgresql")
            )
    sockets = asyncio.run(websocket_section(folder, args.ws_drops, args.seed))
    return {"crash": crashes, "approvals_after_restart": approvals, "websocket_drops": sockets}


def bars(figures: dict[str, Any]) -> dict[str, bool | None]:
    """Each bar: met, missed, or None when it was not measured (PostgreSQL skipped)."""
    crashes = figures["crash"]
    measured = [f for f in crashes.values() if "skipped" not in f]
    approvals = [f for f in figures["approvals_after_restart"].values() if "skipped" not in f]
    sockets = figures["websocket_drops"]

    def nothing_lost(kind: str) -> bool | None:
        found = crashes[kind]
        if "skipped" in found:
            return None
        return bool(found["lost_messages"] == 0 and found["not_finished"] == 0)

    return {
        "crash_nothing_lost_sqlite": nothing_lost("sqlite"),
        "crash_nothing_lost_postgresql": nothing_lost("postgresql"),
        "crash_no_double_execution": all(f["executed_twice"] == 0 for f in measured),
        "approvals_listed_after_restart": all(
            f["pending_before"] == f["listed_after_restart"] == f["runs"] for f in approvals
        ),
        "approval_resume_under_1s": all(
            f["completed_after_approval"] == f["runs"]
            and (f["resume_latency_ms"]["max"] or 1e9) < 1000
            for f in approvals
        ),
        "websocket_no_missing_or_duplicated": sockets["unfinished_clients"] == 0
        and sockets["missing"] == sockets["duplicated"] == sockets["mismatched"] == 0,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20, help="crash runs per database")
    parser.add_argument("--ws-drops", type=int, default=100, help="WebSocket clients")
    parser.add_argument("--seed", type=int, default=1, help="of the kill points and drops")
    parser.add_argument("--skip-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tiller-faults-") as folder:
        figures = measure(args, Path(folder))
    met = bars(figures)
    report = {
        "command": " ".join(["python -m benchmarks.service_faults", *sys.argv[1:]]),
        **figures,
        "bars": met,
        "all_bars_met": all(value is True for value in met.values()),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
