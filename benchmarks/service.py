"""The service under load and under faults. Prints JSON with every figure and
`all_bars_met`.

Under load, on one process and SQLite: a real `tiller serve` process (uvicorn on
127.0.0.1, the real store, DBOS, authentication) with a zero-latency scripted model
whose runs take 10 turns of 3 tool calls each, and its clients in this process, as a
server's clients are elsewhere. The tool is AgentOS's: a `list_files` that answers at
once with a constant (an async function, as the peer's is), put in the place of the
built-in one, so both frameworks do the same work and the figures compare the
frameworks, not a directory walk:

- throughput: `--runs` streaming runs sent at once (each a session of its own, the
  clients spread over httpx clients of 50 connections, as the AgentOS figure is
  measured), the runs finished per second, and the time from each event's storing to
  its arrival at the client (what the framework adds to an event, p50 and p99), and how
  long a health check waits meanwhile (one every 0.1 s);
- the durable write per turn: the median time of storing a turn's new messages, in
  runs one at a time (what a turn's write costs), and what a turn waits for it while
  `--runs` runs share the writer (reported, no bar: it is queueing);
- reconnects: `--drops` clients that drop their SSE stream after a random number of
  events and reconnect with `Last-Event-ID`: events missing or duplicated against the
  stored ones (bar: 0 and 0).

Under faults (`benchmarks/service_faults.py`, a real `tiller serve` process): kill -9
during runs on SQLite and PostgreSQL, approvals across a restart, WebSocket drops
across a restart.

Against Agno AgentOS: `benchmarks/peers/agentos_service.py`, run in the peers'
environment (`benchmarks/.peers-venv`, created by `make bench`) on the same workload
and `--runs`; the ratio of runs per second (bar: Tiller >= 3x, Tiller persisting every
run, AgentOS nothing).

    .venv/bin/python -m benchmarks.service --runs 1000 --drops 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from tests.server.server_process import ServerProcess

from benchmarks import service_faults
from tiller.messages import ToolResultMessage
from tiller.models.base import ModelRequest
from tiller.models.function import FunctionModel
from tiller.models.registry import register_provider
from tiller.models.scripted import Reply, Step, call
from tiller.server.event_log import EventWriter
from tiller.store.api_keys import new_key_text
from tiller.tools import tool
from tiller.tools.builtin import BUILTIN_TOOLS
from tiller.tools.effects import ToolEffect

TURNS = 10
CALLS_PER_TURN = 3
RUNS_PER_CLIENT = 50  # connections per httpx client: one pool scanning 1,000 costs CPU
SEQUENTIAL_RUNS = 20
HEALTH_EVERY_S = 0.1
ROOT = Path(__file__).resolve().parents[1]
PEERS_PYTHON = ROOT / "benchmarks" / ".peers-venv" / "bin" / "python"
AGENTOS = ROOT / "benchmarks" / "peers" / "agentos_service.py"
KEY = new_key_text()
TURN_WRITES = "BENCH_TURN_WRITES"  # the file the server writes its turns' write times to


def _workload(request: ModelRequest) -> Step:
    """10 turns of 3 `list_files` calls, then an answer: no latency of its own. Each call
    names another folder (which need not exist), so no call repeats an earlier one."""
    done = sum(1 for m in request.messages if isinstance(m, ToolResultMessage))
    turn = done // CALLS_PER_TURN
    if turn >= TURNS:
        return Reply("done")
    return Reply(calls=[call("list_files", path=f"t{turn}c{n}") for n in range(CALLS_PER_TURN)])


def register_workload() -> None:
    register_provider("bench", lambda name: FunctionModel(_workload, name=name))


@tool(effect=ToolEffect.READ)
async def list_files(path: str) -> str:
    """List the files in a folder of the workspace."""
    return f"{path}: no files"


def use_the_peers_tool() -> None:
    """Serve AgentOS's trivial `list_files` (`peers/agentos_service.py`) under that name."""
    BUILTIN_TOOLS["list_files"] = lambda workspace: list_files


async def stream(
    client: httpx.AsyncClient,
    url: str,
    method: str = "GET",
    stop_after: int | None = None,
    **kw: Any,
) -> tuple[list[int], list[float]]:
    """The event numbers a stream delivered, and when each arrived (epoch seconds)."""
    seqs: list[int] = []
    arrived: list[float] = []
    current: dict[str, Any] = {}
    headers = {"Accept": "text/event-stream", **kw.pop("headers", {})}
    async with client.stream(method, url, headers=headers, **kw) as answer:
        async for line in answer.aiter_lines():
            if line.startswith("id: "):
                current["id"] = int(line[4:])
            elif line.startswith("event: "):
                current["event"] = line[7:]
            elif not line and current:
                seqs.append(current["id"])
                arrived.append(time.time())
                if stop_after is not None and len(seqs) >= stop_after:
                    break
                if current.get("event") == "run_finished":
                    break
                current = {}
    return seqs, arrived


def serve_setup() -> None:
    """In the server's process (`ServerProcess` calls it before `tiller serve` starts):
    the workload's model, and how long each turn waits for its new messages to be stored,
    a line `epoch_s ms` each in the file `TURN_WRITES` names (written as they come: a
    stopped server re-raises its SIGTERM, which runs no exit handler)."""
    register_workload()
    use_the_peers_tool()
    out = Path(os.environ[TURN_WRITES]).open("a", buffering=1)  # noqa: SIM115 (the process's)
    append = EventWriter.append_messages

    async def timed_append(self: EventWriter, *args: Any, **kw: Any) -> None:
        at, started = time.time(), time.perf_counter()
        try:
            await append(self, *args, **kw)
        finally:
            out.write(f"{at} {(time.perf_counter() - started) * 1000}\n")

    EventWriter.append_messages = timed_append  # type: ignore[method-assign]


async def measure(runs: int, drops: int, folder: Path) -> dict[str, Any]:
    turn_writes = folder / "turn_writes.txt"
    env = {
        "TILLER_ADMIN_KEY": KEY,
        "TILLER_MODEL": "bench:tools",
        "TILLER_TOOLS": '["list_files"]',
        "TILLER_APPROVE_EFFECTS": "[]",
        TURN_WRITES: str(turn_writes),
    }
    server = ServerProcess(
        f"sqlite:///{folder / 'tiller.db'}", folder, env, setup="benchmarks.service:serve_setup"
    )
    server.start()
    try:
        clients = [
            httpx.AsyncClient(
                base_url=server.url,
                headers={"Authorization": f"Bearer {KEY}"},
                timeout=600,
                limits=httpx.Limits(max_connections=RUNS_PER_CLIENT + 10),
            )
            for _ in range(max(1, -(-runs // RUNS_PER_CLIENT)))
        ]
        api = clients[0]
        try:
            sequential = await one_at_a_time(api)
            sessions = [
                (
                    await api.post("/sessions", json={"title": f"s{n}", "tools": ["list_files"]})
                ).json()["id"]
                for n in range(runs)
            ]
            checks: list[float] = []
            checking = asyncio.create_task(health_checks(server.url, checks))
            cpu_before = cpu_seconds(server)
            started_at, started = time.time(), time.perf_counter()
            results = await asyncio.gather(
                *(
                    stream(
                        clients[n // RUNS_PER_CLIENT],
                        f"/sessions/{s}/messages",
                        "POST",
                        json={"text": "go"},
                    )
                    for n, s in enumerate(sessions)
                )
            )
            wall = time.perf_counter() - started  # until the last run's last event
            ended_at = time.time()
            server_cpu = cpu_seconds(server) - cpu_before
            checking.cancel()
            events = sum(len(seqs) for seqs, _ in results)
            delays = await event_delays(api, sessions, results)
            reconnect = await reconnects(api, drops)
        finally:
            for one in clients:
                await one.aclose()
    finally:
        server.stop()
    writes = [tuple(map(float, line.split())) for line in turn_writes.read_text().splitlines()]
    alone = [ms for at, ms in writes if sequential["from"] <= at < sequential["to"]]
    waits = [ms for at, ms in writes if started_at <= at < ended_at]
    per_event = sorted(delays)
    return {
        "runs": runs,
        "turns_per_run": TURNS,
        "tool_calls_per_run": TURNS * CALLS_PER_TURN,
        "server": "tiller serve, its own process; the clients in this one",
        "wall_s": round(wall, 2),
        "runs_per_s": round(runs / wall, 1),
        # The server process's CPU time (all its threads), per run: what a run costs it.
        "server_cpu_ms_per_run": round(server_cpu * 1000 / runs, 1),
        "events": events,
        "event_delay_ms": {
            "p50": round(statistics.median(per_event), 2) if per_event else None,
            "p99": round(per_event[int(len(per_event) * 0.99) - 1], 2) if per_event else None,
        },
        "durable_write_per_turn_ms": {
            "median": round(statistics.median(alone), 3) if alone else None,
            "writes": len(alone),
            "runs": SEQUENTIAL_RUNS,
        },
        "health_check_under_load_ms": percentiles(checks, (50, 90, 99)),
        "turn_wait_for_its_write_under_load_ms": {
            "median": round(statistics.median(waits), 2) if waits else None,
            "writes": len(waits),
        },
        "reconnect": reconnect,
    }


def cpu_seconds(server: ServerProcess) -> float:
    """The CPU time the server's process has used so far (user and system)."""
    assert server.process is not None
    stat = Path(f"/proc/{server.process.pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def health_checks(url: str, took: list[float]) -> None:
    """`GET /health` every `HEALTH_EVERY_S` on a connection of its own, until cancelled:
    how long each took (ms), what a load balancer's check waits while the runs execute."""
    async with httpx.AsyncClient(base_url=url, timeout=600) as client:
        while True:
            started = time.perf_counter()
            (await client.get("/health")).raise_for_status()
            took.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(HEALTH_EVERY_S)


def percentiles(values: Sequence[float], which: Sequence[int]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {
        f"p{p}": round(ordered[min(len(ordered) - 1, len(ordered) * p // 100)], 2)
        if ordered
        else None
        for p in which
    }


async def one_at_a_time(api: httpx.AsyncClient) -> dict[str, float]:
    """Runs one at a time, when the durable write of a turn costs only itself: the span
    of epoch seconds they took."""
    started = time.time()
    for n in range(SEQUENTIAL_RUNS):
        session = await api.post("/sessions", json={"title": f"q{n}", "tools": ["list_files"]})
        await stream(api, f"/sessions/{session.json()['id']}/messages", "POST", json={"text": "go"})
    return {"from": started, "to": time.time()}


def agentos(runs: int) -> dict[str, Any]:
    """AgentOS on the same workload, in the peers' environment (never this one)."""
    if not PEERS_PYTHON.exists():
        return {"skipped": f"no {PEERS_PYTHON.relative_to(ROOT)}: run `make bench` first"}
    done = subprocess.run(
        [str(PEERS_PYTHON), str(AGENTOS), "--runs", str(runs)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return {"failed": done.stderr[-2000:]}
    report: dict[str, Any] = json.loads(done.stdout)
    return report


async def event_delays(
    api: httpx.AsyncClient,
    sessions: Sequence[str],
    results: Sequence[tuple[list[int], list[float]]],
) -> list[float]:
    """Each event's delay from its storing (`created_at`, written in the same
    transaction as the event) to its arrival at the client: what the framework adds
    between the loop emitting it and the client reading it (the same machine's clock)."""
    delays: list[float] = []
    for session_id, (seqs, arrived) in zip(sessions, results, strict=True):
        (run,) = (await api.get(f"/sessions/{session_id}/runs")).json()
        stored = {
            e["seq"]: datetime.fromisoformat(e["created_at"]).timestamp()
            for e in (await api.get(f"/runs/{run['id']}/events")).json()
        }
        delays += [(at - stored[seq]) * 1000 for seq, at in zip(seqs, arrived, strict=True)]
    return delays


async def reconnects(api: httpx.AsyncClient, drops: int) -> dict[str, Any]:
    """Clients that drop their stream after a random number of events and reconnect."""
    missing = duplicated = 0
    for n in range(drops):
        session = await api.post("/sessions", json={"title": f"d{n}", "tools": ["list_files"]})
        session_id = session.json()["id"]
        cut = random.Random(n).randint(1, 40)
        first, _ = await stream(
            api, f"/sessions/{session_id}/messages", "POST", stop_after=cut, json={"text": "go"}
        )
        (run,) = (await api.get(f"/sessions/{session_id}/runs")).json()
        rest, _ = await stream(
            api, f"/runs/{run['id']}/events", headers={"Last-Event-ID": str(first[-1])}
        )
        stored = [e["seq"] for e in (await api.get(f"/runs/{run['id']}/events")).json()]
        seen = first + rest
        missing += len(set(stored) - set(seen))
        duplicated += len(seen) - len(set(seen))
    return {"drops": drops, "missing": missing, "duplicated": duplicated}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=1000, help="streaming runs sent at once")
    parser.add_argument("--drops", type=int, default=100, help="SSE streams dropped and resumed")
    parser.add_argument("--skip-faults", action="store_true", help="no kill -9 / restart parts")
    parser.add_argument("--skip-agentos", action="store_true", help="no AgentOS comparison")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(measure(args.runs, args.drops, Path(folder)))
    reconnect = figures["reconnect"]
    bars: dict[str, bool | None] = {
        "reconnect_no_missing_or_duplicated": reconnect["missing"] == 0
        and reconnect["duplicated"] == 0,
        "event_delay_p99_under_20ms": (figures["event_delay_ms"]["p99"] or 1e9) < 20,
        "durable_write_per_turn_median_le_2ms": (
            figures["durable_write_per_turn_ms"]["median"] or 1e9
        )
        <= 2,
    }
    report: dict[str, Any] = {"command": " ".join(["python -m benchmarks.service", *sys.argv[1:]])}
    report.update(figures)
    if args.skip_agentos:
        bars["runs_per_s_at_least_3x_agentos"] = None
    else:
        peer = agentos(args.runs)
        report["agentos"] = peer
        ratio = figures["runs_per_s"] / peer["runs_per_s"] if "runs_per_s" in peer else None
        report["tiller_vs_agentos_runs_per_s"] = None if ratio is None else round(ratio, 2)
        bars["runs_per_s_at_least_3x_agentos"] = None if ratio is None else ratio >= 3
    if args.skip_faults:
        bars["faults"] = None
    else:
        with tempfile.TemporaryDirectory(prefix="tiller-faults-") as folder:
            faults = service_faults.measure(
                argparse.Namespace(runs=20, ws_drops=100, seed=1, skip_postgres=False),
                Path(folder),
            )
        report["faults"] = faults
        bars.update(service_faults.bars(faults))
    report["bars"] = bars
    report["all_bars_met"] = all(value is True for value in bars.values())
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
