"""Agno AgentOS under the service benchmark's load: streaming runs per second, and one run's time.

The peer figure for ``benchmarks/service.py``: the same workload, served the same way.
An Agno ``Agent`` with a zero-latency scripted model (a ``agno.models.base.Model`` subclass,
as ``bench_agno.py`` fakes Agno's model, here answering the streaming calls too, each reply
in one chunk) does 10 turns of 3 calls of a trivial ``list_files`` tool (an async function
that returns a constant, as listing an empty folder would), then answers ``done``. AgentOS
serves it with telemetry off (``AGNO_TELEMETRY=false`` and ``telemetry=False`` on the agent
and the OS), no database (nothing is persisted: no db on the agent or the OS, and the
temporary working folder stays empty) and one uvicorn worker on 127.0.0.1 (TCP_NODELAY on,
as with ``uvicorn --host``), in a process of its own (this script with ``--serve``), as
``service.py`` serves ``tiller serve``. ``httpx.AsyncClient``s in this process then:

- warm up with 10 runs, one after another;
- time 50 runs one after another, each from sending the request to the end of its
  stream: ``sequential_run_ms`` (median, p10, p90, and this process's CPU time per run);
- send ``--runs`` streaming runs at once (``POST /agents/{id}/runs``, form fields
  ``message`` and ``stream=true``, each a new session, each on a new connection,
  ``--runs-per-client`` to an ``httpx.AsyncClient``), read every stream to its end, and
  report ``runs / wall time``: ``runs_per_s``; ``runs_per_cpu_s`` divides by the server
  process's CPU time instead, which a busy machine inflates less.

The clients are in another process than the server, as in ``service.py``. Every run is checked:
its stream must carry 30 ``ToolCallCompleted`` events and end with a ``RunCompleted`` whose
content is ``done``, with no ``RunError``; the scripted model must have been called 11 times
per run. Prints one JSON object on stdout (Agno's own log goes to stderr).

Run it with the peers' venv (``benchmarks/.peers-venv``, created by
``benchmarks/loop_overhead.py`` from ``benchmarks/peers/requirements.txt``), never the
project's::

    benchmarks/.peers-venv/bin/python benchmarks/peers/agentos_service.py --runs 1000
"""

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import math
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

# Agno sends telemetry events unless told not to; the benchmark has no network.
os.environ["AGNO_TELEMETRY"] = "false"

import httpx
import uvicorn
from agno.agent import Agent
from agno.metrics import MessageMetrics
from agno.models.base import Model
from agno.models.message import Message
from agno.models.response import ModelResponse
from agno.os import AgentOS
from bench_agno import _tool_results_since_prompt  # the same turn count as the loop benchmark

TURNS = 10
CALLS_PER_TURN = 3
TOOL_CALLS = TURNS * CALLS_PER_TURN  # 30 tool calls per run
MODEL_CALLS = TURNS + 1  # 11 model requests per run
FINAL_TEXT = "done"
PROMPT = "go"
AGENT_ID = "bench"
WARMUP_RUNS = 10
SEQUENTIAL_RUNS = 50


async def list_files(path: str) -> str:
    """List the files in a folder of the workspace."""
    return f"{path}: no files"


class ModelStats:
    """The scripted model's requests, counted to check the runs (never to decide a reply)."""

    calls = 0


@dataclass
class ScriptedModel(Model):
    """Zero-latency model: 10 turns of 3 ``list_files`` calls, then the final text.

    Each call names another folder, so no call repeats an earlier one. A streamed reply is
    the whole reply in one chunk (no simulated streaming)."""

    id: str = "scripted"
    name: str = "Scripted"
    provider: str = "benchmark"

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._reply(kwargs["messages"])

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._reply(kwargs["messages"])

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Iterator[ModelResponse]:
        yield self._reply(kwargs["messages"])

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ModelResponse]:
        yield self._reply(kwargs["messages"])

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    @staticmethod
    def _reply(messages: list[Message]) -> ModelResponse:
        ModelStats.calls += 1
        done = _tool_results_since_prompt(messages)
        usage = MessageMetrics(input_tokens=10, output_tokens=10, total_tokens=20)
        turn = done // CALLS_PER_TURN
        if turn >= TURNS:
            return ModelResponse(role="assistant", content=FINAL_TEXT, response_usage=usage)
        return ModelResponse(
            role="assistant",
            tool_calls=[
                {
                    "id": f"call_{turn}_{n}",
                    "type": "function",
                    "function": {
                        "name": "list_files",
                        "arguments": json.dumps({"path": f"t{turn}c{n}"}),
                    },
                }
                for n in range(CALLS_PER_TURN)
            ],
            response_usage=usage,
        )


@dataclass
class RunSeen:
    """What one run's stream carried."""

    events: int
    tool_calls: int
    content: str | None
    errors: int


class WorkloadMismatch(AssertionError):
    """A run did not do the benchmark's workload; its timings would mean nothing."""


async def run_once(client: httpx.AsyncClient) -> RunSeen:
    """One streaming run, read to the end of its stream."""
    events = tool_calls = errors = 0
    content: str | None = None
    event = ""
    async with client.stream(
        "POST",
        f"/agents/{AGENT_ID}/runs",
        data={"message": PROMPT, "stream": "true"},
        headers={"Accept": "text/event-stream"},
    ) as answer:
        if answer.status_code != 200:
            await answer.aread()
            raise WorkloadMismatch(f"HTTP {answer.status_code}: {answer.text[:300]}")
        async for line in answer.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
                events += 1
                if event == "ToolCallCompleted":
                    tool_calls += 1
                elif event == "RunError":
                    errors += 1
            elif line.startswith("data: ") and event == "RunCompleted":
                content = json.loads(line[6:]).get("content")
    return RunSeen(events=events, tool_calls=tool_calls, content=content, errors=errors)


def check(seen: Sequence[RunSeen], model_calls: int) -> None:
    problems: list[str] = []
    if model_calls != len(seen) * MODEL_CALLS:
        problems.append(f"{len(seen)} runs made {model_calls} model calls")
    short = [s for s in seen if s.tool_calls != TOOL_CALLS]
    if short:
        problems.append(f"{len(short)} runs without {TOOL_CALLS} tool calls, e.g. {short[0]}")
    wrong = [s for s in seen if s.content != FINAL_TEXT or s.errors]
    if wrong:
        problems.append(f"{len(wrong)} runs did not end with {FINAL_TEXT!r}, e.g. {wrong[0]}")
    if problems:
        raise WorkloadMismatch("; ".join(problems))


def build_app() -> tuple[Any, AgentOS, Agent]:
    agent = Agent(
        id=AGENT_ID,
        name="bench",
        model=ScriptedModel(),
        tools=[list_files],
        telemetry=False,
    )
    agent_os = AgentOS(agents=[agent], telemetry=False)
    app = agent_os.get_app()
    if agent.db is not None or agent_os.db is not None:
        raise WorkloadMismatch("a database is configured: Agno would persist the runs")
    return app, agent_os, agent


def check_nodelay(server: uvicorn.Server) -> None:
    """The server's connections send each event at once (TCP_NODELAY), as in production."""
    connections = list(server.server_state.connections)
    if not connections:
        raise WorkloadMismatch("no open connection to check TCP_NODELAY on")
    for connection in connections:
        sock = connection.transport.get_extra_info("socket")
        if not sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY):
            raise WorkloadMismatch("a server connection has no TCP_NODELAY: Nagle delays events")


def _agno_log_to_stderr() -> None:
    """Agno's log handler writes to stdout when it is not a terminal; stdout is the JSON's."""
    for name in list(logging.root.manager.loggerDict):
        if not name.startswith("agno"):
            continue
        for handler in logging.getLogger(name).handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout:
                handler.setStream(sys.stderr)


async def serve() -> None:
    """The server's process: AgentOS on a free port, printed on stdout, until stdin closes.
    Three routes of the benchmark's own let the clients check the runs: the scripted
    model's calls so far, this process's CPU seconds, and TCP_NODELAY on its connections."""
    app, _, _ = build_app()
    # uvicorn binds the port itself, as `uvicorn.run(app, host=..., port=...)` does: its
    # socket then has proto IPPROTO_TCP, so asyncio sets TCP_NODELAY on every connection. A
    # socket made with a bare `socket.socket()` and handed over with `sockets=[...]` has proto
    # 0, gets no TCP_NODELAY, and Nagle's algorithm holds a stream's events back until the
    # client's delayed ACK (about 40 ms a run here).
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_config=None,
        access_log=False,
        lifespan="on",
        workers=1,
    )
    server = uvicorn.Server(config)

    @app.get("/bench/state")
    def state() -> dict[str, Any]:
        try:
            check_nodelay(server)
            nodelay = None
        except WorkloadMismatch as exc:
            nodelay = str(exc)
        return {
            "model_calls": ModelStats.calls,
            "cpu_s": time.process_time(),
            "nodelay_problem": nodelay,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }

    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the server stopped before it started")
            await asyncio.sleep(0.01)
        print(server.servers[0].sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    finally:
        server.should_exit = True
        await task


async def server_state(client: httpx.AsyncClient) -> dict[str, Any]:
    answer = await client.get("/bench/state")
    answer.raise_for_status()
    found: dict[str, Any] = answer.json()
    return found


@contextlib.contextmanager
def served(folder: str) -> Iterator[str]:
    """The server's process (this script with ``--serve``) working in ``folder``: its URL."""
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"],
        cwd=folder,  # anything Agno writes would land here; the check says it is empty
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield f"http://127.0.0.1:{int(server.stdout.readline())}"
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=60)


async def measure(runs: int, per_client: int, base_url: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base_url, timeout=600) as client:
        before = await server_state(client)
        warm = [await run_once(client) for _ in range(WARMUP_RUNS)]
        after = await server_state(client)
        check(warm, after["model_calls"] - before["model_calls"])
        if after["nodelay_problem"]:  # the warm-up's keep-alive connection is still open
            raise WorkloadMismatch(after["nodelay_problem"])

        before = after
        samples: list[float] = []
        sequential: list[RunSeen] = []
        for _ in range(SEQUENTIAL_RUNS):
            started = time.perf_counter()
            sequential.append(await run_once(client))
            samples.append((time.perf_counter() - started) * 1000)
        after = await server_state(client)
        sequential_cpu = after["cpu_s"] - before["cpu_s"]
        check(sequential, after["model_calls"] - before["model_calls"])

        # The concurrent runs each open a connection of their own (none reuses the
        # sequential runs' idle keep-alive one, which the server may be closing
        # meanwhile), spread over clients of `per_client` connections: httpcore's pool
        # scans all its connections for every request and every response, so one client
        # holding 1,000 of them spends much CPU time there.
        per_client = per_client or runs
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    httpx.AsyncClient(
                        base_url=base_url,
                        timeout=600,
                        limits=httpx.Limits(max_connections=per_client + 10),
                    )
                )
                for _ in range(math.ceil(runs / per_client))
            ]
            gc.collect()
            before = await server_state(client)
            started = time.perf_counter()
            outcomes = await asyncio.gather(
                *(run_once(clients[n // per_client]) for n in range(runs)),
                return_exceptions=True,
            )
            wall = time.perf_counter() - started  # until the last run's stream ended
            after = await server_state(client)
        concurrent_cpu = after["cpu_s"] - before["cpu_s"]
        failed = [o for o in outcomes if isinstance(o, BaseException)]
        if failed:
            raise WorkloadMismatch(f"{len(failed)} of {runs} runs failed, e.g. {failed[0]!r}")
        seen = [o for o in outcomes if isinstance(o, RunSeen)]
        check(seen, after["model_calls"] - before["model_calls"])
    ordered = sorted(samples)
    return {
        "runs": len(seen),
        "wall_s": round(wall, 2),
        "runs_per_s": round(len(seen) / wall, 1),
        "httpx_clients": len(clients),
        # The server process's CPU time, which a busy machine inflates less than the wall
        # time: runs per CPU second is what a free core would give at most.
        "cpu_s": round(concurrent_cpu, 2),
        "runs_per_cpu_s": round(len(seen) / concurrent_cpu, 1),
        "sequential_run_ms": {
            "median": round(statistics.median(samples), 2),
            "p10": round(ordered[int(0.1 * len(ordered))], 2),
            "p90": round(ordered[int(0.9 * len(ordered))], 2),
            "server_cpu_per_run": round(sequential_cpu * 1000 / SEQUENTIAL_RUNS, 2),
            "runs": SEQUENTIAL_RUNS,
        },
        "tool_calls_per_run": seen[0].tool_calls,
        "model_calls_per_run": (after["model_calls"] - before["model_calls"]) // len(seen),
        "events_per_run": seen[0].events,
        "server_peak_rss_mib": round(after["peak_rss_mib"], 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=1000, help="streaming runs sent at once")
    parser.add_argument(
        "--runs-per-client",
        type=int,
        default=50,
        help="concurrent runs per httpx.AsyncClient (0: one client for all, as service.py)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:  # the server's process, started by `measure`
        _agno_log_to_stderr()
        asyncio.run(serve())
        return 0
    if args.runs < 1 or args.runs_per_client < 0:
        parser.error("--runs must be at least 1, --runs-per-client at least 0")
    _agno_log_to_stderr()
    from importlib.metadata import version

    with tempfile.TemporaryDirectory() as folder:
        with served(folder) as base_url:
            figures = asyncio.run(measure(args.runs, args.runs_per_client, base_url))
        if os.listdir(folder):
            raise WorkloadMismatch(f"Agno wrote files in its working folder: {os.listdir(folder)}")
    report = {
        "framework": "agno",
        "version": version("agno"),
        "server": "AgentOS, 1 uvicorn worker on 127.0.0.1, its own process; no db",
        **figures,
        "command": " ".join(
            ["benchmarks/.peers-venv/bin/python benchmarks/peers/agentos_service.py", *sys.argv[1:]]
        ),
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
