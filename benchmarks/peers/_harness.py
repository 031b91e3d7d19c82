"""Shared workload definition and measurement loop for the peer loop-overhead benchmarks.

Every peer script (``bench_<framework>.py``) builds an agent with the framework's own
zero-latency fake-model mechanism and hands the harness two callables:

* ``build(with_history)`` returns a zero-argument coroutine function performing one complete
  agent run (W1, or W2 when ``with_history`` is true) and returning the framework's run result;
* ``inspect(result)`` reads that result back into an :class:`Observed` summary.

A bench script imports this module before its framework: the moment it is imported is
where ``--mode startup`` starts its clock (see :func:`main`).

The harness owns the workload constants, the fake models' decision rule, the verification of
the first run, the timing loops and the JSON printed on stdout. It has no third-party imports,
so it adds nothing to any framework's import time or memory.
"""

import argparse
import asyncio
import gc
import json
import resource
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

# Just before the bench script imports its framework (each imports this module first, and
# nothing of its framework before): start-up is measured from here. The standard-library
# modules above are not counted for anyone.
STARTED = time.perf_counter()

TOOL_TURNS = 10
CALLS_PER_TURN = 3
TOOL_CALLS = TOOL_TURNS * CALLS_PER_TURN  # 30 tool executions per run
MODEL_CALLS = TOOL_TURNS + 1  # 11 model requests per run
HISTORY_PAIRS = 1_000
HISTORY_MESSAGES = 2 * HISTORY_PAIRS  # 2,000 prior messages for W2
FINAL_TEXT = "done"
PROMPT = "Add the numbers, please."
TOOL_NAME = "add"
TOOL_DESCRIPTION = "Add two integers."

DEFAULT_RUNS = {"w1": 200, "w2": 200, "concurrent": 1_000, "startup": 1}
WARMUP_RUNS = 20


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One scripted tool call: a distinct id and the arguments of ``add``."""

    call_id: str
    a: int
    b: int


def _one_turn_workload() -> None:
    """Make the workload a first run as a user's program does it: one tool call, then
    the answer (2 model requests). The fake models read these module globals."""
    global TOOL_TURNS, CALLS_PER_TURN, TOOL_CALLS, MODEL_CALLS
    TOOL_TURNS, CALLS_PER_TURN = 1, 1
    TOOL_CALLS = TOOL_TURNS * CALLS_PER_TURN
    MODEL_CALLS = TOOL_TURNS + 1


def tool_call(index: int) -> ToolCall:
    """The ``index``-th (0-based) tool call of a run."""
    return ToolCall(call_id=f"call_{index}", a=index, b=1_000 + index)


def expected_results() -> list[int]:
    """The tool results a correct run produces, in call order."""
    return [tool_call(i).a + tool_call(i).b for i in range(TOOL_CALLS)]


def next_calls(tool_results_since_prompt: int) -> list[ToolCall]:
    """What the fake model answers, given the tool results it sees since the last user message.

    An empty list means: answer with the final text. The decision depends on the request only,
    so any number of runs can share one fake model concurrently.
    """
    if tool_results_since_prompt >= TOOL_CALLS:
        return []
    return [tool_call(tool_results_since_prompt + k) for k in range(CALLS_PER_TURN)]


def history_texts() -> list[tuple[str, str]]:
    """The W2 history: 1,000 (user, assistant) text pairs."""
    return [(f"question {i}", f"answer {i}") for i in range(HISTORY_PAIRS)]


class ModelStats:
    """Bookkeeping the fake models update on every request.

    Used only to verify runs (never to decide what to answer): the number of requests and the
    largest number of messages a request carried.
    """

    calls: int = 0
    max_messages: int = 0

    @classmethod
    def record(cls, message_count: int) -> None:
        cls.calls += 1
        if message_count > cls.max_messages:
            cls.max_messages = message_count

    @classmethod
    def reset(cls) -> None:
        cls.calls = 0
        cls.max_messages = 0


@dataclass(frozen=True)
class Observed:
    """What a finished run reports about itself."""

    output: str
    tool_results: list[int]


RunFn = Callable[[], Awaitable[Any]]


class WorkloadMismatch(AssertionError):
    """The run did not perform the benchmark workload; its timings would be meaningless."""


def _verify(observed: Observed, model_calls: int, max_messages: int, with_history: bool) -> None:
    problems: list[str] = []
    if model_calls != MODEL_CALLS:
        problems.append(f"expected {MODEL_CALLS} model calls, saw {model_calls}")
    if observed.tool_results != expected_results():
        problems.append(
            f"expected {TOOL_CALLS} tool results {expected_results()[:3]}..., "
            f"saw {len(observed.tool_results)}: {observed.tool_results[:6]}..."
        )
    if observed.output != FINAL_TEXT:
        problems.append(f"expected final output {FINAL_TEXT!r}, got {observed.output!r}")
    if with_history and max_messages < HISTORY_MESSAGES + 1:
        problems.append(
            f"the model never saw the {HISTORY_MESSAGES}-message history "
            f"(largest request had {max_messages} messages)"
        )
    if not with_history and max_messages > 4 * MODEL_CALLS * CALLS_PER_TURN:
        problems.append(f"W1 request unexpectedly carried {max_messages} messages")
    if problems:
        raise WorkloadMismatch("; ".join(problems))


async def _checked_run(
    run: RunFn, inspect: Callable[[Any], Observed], with_history: bool
) -> Observed:
    ModelStats.reset()
    result = await run()
    observed = inspect(result)
    _verify(observed, ModelStats.calls, ModelStats.max_messages, with_history)
    return observed


async def _measure_sequential(
    run: RunFn, inspect: Callable[[Any], Observed], runs: int, warmup: int, with_history: bool
) -> list[int]:
    await _checked_run(run, inspect, with_history)
    for _ in range(warmup):
        await run()
    gc.collect()
    samples: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(runs):
        start = clock()
        await run()
        samples.append(clock() - start)
    # Reused state (agent, history objects) must not have drifted the workload either.
    await _checked_run(run, inspect, with_history)
    return samples


async def _measure_concurrent(
    run: RunFn, inspect: Callable[[Any], Observed], runs: int
) -> tuple[float, int]:
    await _checked_run(run, inspect, with_history=False)
    gc.collect()
    ModelStats.reset()
    start = time.perf_counter()
    results = await asyncio.gather(*(run() for _ in range(runs)))
    elapsed = time.perf_counter() - start
    # Every run must have done the full workload, too.
    if ModelStats.calls != runs * MODEL_CALLS:
        raise WorkloadMismatch(
            f"{runs} concurrent runs made {ModelStats.calls} model calls, "
            f"expected {runs * MODEL_CALLS}"
        )
    wrong = [r for r in (inspect(res) for res in results) if r.output != FINAL_TEXT]
    if wrong:
        raise WorkloadMismatch(f"{len(wrong)} concurrent runs did not end with {FINAL_TEXT!r}")
    return elapsed, len(results)


def _peak_rss_mib() -> float:
    # ru_maxrss is KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(
    *,
    framework: str,
    version: str | Callable[[], str],
    build: Callable[[bool], RunFn],
    inspect: Callable[[Any], Observed],
    argv: list[str] | None = None,
) -> None:
    """Parse ``--mode`` / ``--runs``, measure, and print exactly one JSON object on stdout.

    ``--mode startup`` times, in this fresh process, from just before the framework's first
    import (when this module was imported) to the end of a first one-turn run: one tool
    call, then the answer, on an agent built for it; the harness's own argument parsing is
    left out. ``version`` may be a function, called after that clock stops (looking a
    version up is no part of a framework's start-up).
    """
    entered = time.perf_counter()
    parser = argparse.ArgumentParser(description=f"Agent-loop overhead benchmark: {framework}")
    parser.add_argument("--mode", choices=sorted(DEFAULT_RUNS), required=True)
    parser.add_argument("--runs", type=int, default=None, help="runs to time (default per mode)")
    parser.add_argument("--warmup", type=int, default=WARMUP_RUNS)
    args = parser.parse_args(argv)
    mode: str = args.mode
    runs: int = args.runs if args.runs is not None else DEFAULT_RUNS[mode]
    if runs < 1:
        parser.error("--runs must be at least 1")

    if mode == "startup":
        _one_turn_workload()
        harness_s = time.perf_counter() - entered  # parsing our own arguments: not counted
        asyncio.run(_checked_run(build(False), inspect, with_history=False))
        startup_s = time.perf_counter() - STARTED - harness_s
    if callable(version):
        version = version()
    report: dict[str, Any] = {"framework": framework, "version": version, "mode": mode}
    if mode == "startup":
        report.update(
            startup_s=round(startup_s, 4),
            model_calls_per_run=MODEL_CALLS,
            tool_calls_per_run=TOOL_CALLS,
        )
    elif mode in ("w1", "w2"):
        with_history = mode == "w2"
        run = build(with_history)
        samples = asyncio.run(
            _measure_sequential(run, inspect, runs, args.warmup, with_history=with_history)
        )
        median_us = statistics.median(samples) / 1_000
        report.update(
            runs=runs,
            warmup=args.warmup,
            median_us=round(median_us, 2),
            p10_us=round(_quantile(samples, 0.1) / 1_000, 2),
            p90_us=round(_quantile(samples, 0.9) / 1_000, 2),
            per_turn_us=round(median_us / MODEL_CALLS, 2),
            model_calls_per_run=MODEL_CALLS,
            tool_calls_per_run=TOOL_CALLS,
        )
        if with_history:
            report["history_messages"] = HISTORY_MESSAGES
    else:
        run = build(False)
        elapsed, completed = asyncio.run(_measure_concurrent(run, inspect, runs))
        report.update(
            runs=completed,
            total_s=round(elapsed, 4),
            runs_per_s=round(completed / elapsed, 2),
            peak_rss_mib=round(_peak_rss_mib(), 1),
        )
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    sys.stdout.flush()


def _quantile(samples: list[int], q: float) -> float:
    ordered = sorted(samples)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])
