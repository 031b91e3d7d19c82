"""Token counting and compaction on long histories: Tiller, and LangChain in the same run.

Run with the project's venv::

    .venv/bin/python benchmarks/compaction.py [--sizes 1000,10000,100000] [--trials N]
        [--no-peers] [--output FILE] [--profile OPERATION,...]

What it does:

1. Builds histories of 1,000, 10,000 and 100,000 messages with
   ``benchmarks/compaction_history.py`` (seeded: user turns, assistant messages with
   text and 1-3 tool calls, tool results of 1-500 lines of code, logs, test runs,
   search hits and listings) as Tiller messages.
2. Times, per size, the median of several trials (fewer for 100k); ``gc.collect()``
   before each trial, the collector left on (each figure says how many of its ms the
   collector took, ``gc_median_ms``, and how many full collections ran):

   * counting the whole history with the heuristic counter: ``MessageTokens().total``
     cold (a fresh ``MessageTokens``) and warm (every message already counted), and
     ``tail_total`` cold (the running sums ``ContextView.view_tokens`` keeps);
   * the incremental cost: ``tail_total`` after appending one message to an already
     counted history, in microseconds, and ``view_tokens`` after an append to a view
     that has a compaction block (what the agent loop asks every turn);
   * each level alone on the raw history (``level1_truncate_tool_outputs``,
     ``level2_summarize_old_turns``, ``level3_drop_middle``, ``keep_within_budget``)
     and ``compact_messages`` to ``ContextBudget(max_context_tokens=180_000)``; the
     levels that count get a ``MessageTokens``, cold (fresh) and warm (it has counted
     the history, as the agent loop's has);
   * ``compact_view`` on a ``ContextView``, the agent loop's path, cold and warm;
   * for 10,000 messages, exact counting with tiktoken ``cl100k_base`` (a figure).
3. Runs ``benchmarks/peers/bench_compaction_langchain.py`` with
   ``benchmarks/.peers-venv/bin/python`` on the same histories (checked by fingerprint):
   ``count_tokens_approximately`` and ``trim_messages(strategy="last")`` to the same
   budget, and gives Tiller's ratio to it (below 1: Tiller is faster). The peers venv
   is made by ``benchmarks/loop_overhead.py``; when it is missing the peer is skipped.
4. Prints one JSON document with the figures and the bars as booleans:

   * linear cost: time(100k) / time(10k) <= 12 for every operation timed in ms;
   * ``compact_messages`` of 100,000 messages to 180,000 tokens under 1 s, judged on
     the cold count (a fresh ``MessageTokens``: every message counted inside the timing);
   * one appended message counts in O(1): its microseconds at 100k within 3x of 1k's.

``--profile compact_messages_cold,level1_truncate_tool_outputs`` (any operation name
of the JSON) cProfiles those operations once more after timing them, to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from compaction_history import SIZES, describe, generate_history  # noqa: E402
from gc_clock import GcClock  # noqa: E402
from tiller.context.compaction_levels import (  # noqa: E402
    ContextBudget,
    compact_messages,
    keep_within_budget,
    level1_truncate_tool_outputs,
    level2_summarize_old_turns,
    level3_drop_middle,
)
from tiller.context.token_counters import MessageTokens, tiktoken_counter  # noqa: E402
from tiller.context.view import ContextView  # noqa: E402
from tiller.context.view_compaction import compact_view  # noqa: E402
from tiller.messages import (  # noqa: E402
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

PEER_SCRIPT = BENCH_DIR / "peers" / "bench_compaction_langchain.py"
PEERS_PYTHON = BENCH_DIR / ".peers-venv" / "bin" / "python"
PEER_TIMEOUT_S = 1_800

BUDGET_TOKENS = 180_000
DEFAULT_TRIALS = {1_000: 15, 10_000: 7, 100_000: 5}
APPENDS = 201  # appended messages timed one by one, per size
TIKTOKEN_SIZE = 10_000
TIKTOKEN_TRIALS = 3

PROFILE_TOP = 15

BAR_LINEAR_RATIO = 12.0
BAR_COMPACT_100K_S = 1.0
BAR_APPEND_RATIO = 3.0


def log(message: str) -> None:
    print(f"[compaction] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- histories


def to_tiller(history: list[dict[str, Any]]) -> list[Message]:
    messages: list[Message] = []
    for item in history:
        role = item["role"]
        if role == "user":
            messages.append(UserMessage([TextContent(item["text"])], item["timestamp"]))
        elif role == "assistant":
            calls = item["tool_calls"]
            messages.append(
                AssistantMessage(
                    [
                        TextContent(item["text"]),
                        *(ToolCall(c["id"], c["name"], c["arguments"]) for c in calls),
                    ],
                    "tool_use" if calls else "stop",
                    Usage(input_tokens=1_000, output_tokens=100),
                    model="bench-model",
                    provider="bench",
                    timestamp=item["timestamp"],
                )
            )
        else:
            messages.append(
                ToolResultMessage(
                    item["tool_call_id"],
                    item["tool_name"],
                    [TextContent(item["text"])],
                    is_error=item["is_error"],
                    timestamp=item["timestamp"],
                )
            )
    return messages


_APPENDED_TEXT = "\n".join(
    f"2025-05-02T10:00:{i % 60:02d}.000Z INFO  [worker] job {i} finished rows=200"
    for i in range(40)
)


def appended_message(i: int, timestamp: int) -> Message:
    """The same 40-line tool result at every size, a new object each time."""
    return ToolResultMessage(
        f"append_{i}", "shell", [TextContent(_APPENDED_TEXT)], timestamp=timestamp
    )


# --------------------------------------------------------------------------- timing


def timed(
    operation: Callable[[Any], Any],
    trials: int,
    setup: Callable[[], Any] = lambda: None,
    warmup: bool = True,
) -> tuple[dict[str, float], Any]:
    """Median and min ms of `operation(setup())` over `trials`, and the median ms of
    them the garbage collector took; `setup` is not timed."""
    result = operation(setup()) if warmup else None
    samples: list[int] = []
    in_gc: list[float] = []
    full: list[int] = []
    with GcClock() as clock:
        for _ in range(trials):
            state = setup()
            gc.collect()
            clock.reset()
            start = time.perf_counter_ns()
            result = operation(state)
            samples.append(time.perf_counter_ns() - start)
            in_gc.append(clock.seconds)
            full.append(clock.full_collections)
    return {
        "median_ms": round(statistics.median(samples) / 1e6, 3),
        "min_ms": round(min(samples) / 1e6, 3),
        "gc_median_ms": round(statistics.median(in_gc) * 1e3, 3),
        "gc_full_collections": max(full),
        "trials": trials,
    }, result


def counted(history: list[Message]) -> MessageTokens:
    """A `MessageTokens` that has counted `history` already (warm)."""
    tokens = MessageTokens()
    tokens.tail_total(history)
    return tokens


def append_cost_us(history: list[Message]) -> dict[str, float]:
    """Microseconds of `tail_total` after one more message, the history counted before."""
    grown = list(history)
    tokens = counted(grown)
    stamp = grown[-1].timestamp
    samples: list[int] = []
    for i in range(APPENDS):
        grown.append(appended_message(i, stamp + i))
        start = time.perf_counter_ns()
        tokens.tail_total(grown)
        samples.append(time.perf_counter_ns() - start)
    return {
        "median_us": round(statistics.median(samples) / 1e3, 2),
        "min_us": round(min(samples) / 1e3, 2),
        "appends": APPENDS,
    }


def view_append_cost_us(
    loop: asyncio.AbstractEventLoop, history: list[Message], config: ContextBudget
) -> dict[str, Any]:
    """Microseconds of `ContextView.view_tokens` after one more message, on a view the
    agent loop has compacted (so it has a block) and counted."""
    grown = list(history)
    context = ContextView()
    context.view_tokens(grown)
    block = loop.run_until_complete(compact_view(context, grown, config))
    context.view_tokens(grown)
    stamp = grown[-1].timestamp
    samples: list[int] = []
    for i in range(APPENDS):
        grown.append(appended_message(i, stamp + i))
        start = time.perf_counter_ns()
        context.view_tokens(grown)
        samples.append(time.perf_counter_ns() - start)
    return {
        "median_us": round(statistics.median(samples) / 1e3, 2),
        "min_us": round(min(samples) / 1e3, 2),
        "appends": APPENDS,
        "block_method": block.method if block else None,
        "block_messages": len(block.messages) if block else None,
    }


# --------------------------------------------------------------------------- Tiller


def profile(name: str, operation: Callable[[Any], Any], state: Any) -> None:
    """cProfile one more run of `operation`, the top functions to stderr."""
    profiler = cProfile.Profile()
    gc.collect()
    profiler.enable()
    operation(state)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(PROFILE_TOP)
    print(f"[compaction] profile of {name}:\n{out.getvalue()}", file=sys.stderr, flush=True)


def measure_tiller(
    history: list[Message],
    trials: int,
    loop: asyncio.AbstractEventLoop,
    profiled: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    config = ContextBudget(max_context_tokens=BUDGET_TOKENS)
    budget = config.budget
    warm = counted(history)
    ops: dict[str, Any] = {}
    figures: dict[str, Any] = {"ops": ops}

    def run(
        name: str, operation: Callable[[Any], Any], setup: Callable[[], Any] = lambda: None
    ) -> Any:
        log(f"  {name}")
        ops[name], result = timed(operation, trials, setup)
        if name in profiled:
            profile(f"{name} ({len(history)} messages)", operation, setup())
        return result

    figures["tokens"] = run("count_cold", lambda t: t.total(history), MessageTokens)
    run("count_warm", lambda _: warm.total(history))
    run("tail_total_cold", lambda t: t.tail_total(history), MessageTokens)

    kept = run("level1_truncate_tool_outputs", lambda _: level1_truncate_tool_outputs(history, 50))
    figures["level1_messages_cut"] = sum(
        1 for a, b in zip(kept, history, strict=True) if a is not b
    )
    run("level2_summarize_old_turns", lambda _: level2_summarize_old_turns(history, 10))
    run(
        "level3_drop_middle_cold",
        lambda t: level3_drop_middle(history, config, budget, t),
        MessageTokens,
    )
    run("level3_drop_middle_warm", lambda _: level3_drop_middle(history, config, budget, warm))
    run("keep_within_budget_cold", lambda t: keep_within_budget(history, budget, t), MessageTokens)
    run("keep_within_budget_warm", lambda _: keep_within_budget(history, budget, warm))

    def compact(tokens: MessageTokens) -> Any:
        return compact_messages(history, config, tokens)

    result = run("compact_messages_cold", compact, MessageTokens)
    # Warm: a fresh `MessageTokens` per trial that has counted the history (untimed),
    # so the counts of one trial's new (truncated, summary) messages do not pile up.
    run("compact_messages_warm", compact, lambda: counted(history))
    figures["compact_messages"] = {
        "level": result.level,
        "messages_after": len(result.messages),
        "tokens_after": MessageTokens().total(result.messages),
    }

    def on_view(context: ContextView) -> Any:
        return loop.run_until_complete(compact_view(context, history, config))

    def counted_view() -> ContextView:
        context = ContextView()
        context.view_tokens(history)
        return context

    block = run("compact_view_cold", on_view, ContextView)
    run("compact_view_warm", on_view, counted_view)
    figures["compact_view"] = {
        "method": block.method if block else None,
        "messages_after": len(block.messages) if block else len(history),
        "tokens_after": block.tokens_after if block else None,
    }

    log("  append_one_message")
    figures["append_one_message"] = append_cost_us(history)
    log("  view_tokens_after_append")
    figures["view_tokens_after_append"] = view_append_cost_us(loop, history, config)
    return figures


def measure_tiktoken(history: list[Message]) -> dict[str, Any]:
    counter = tiktoken_counter()
    log(f"  tiktoken count ({len(history)} messages)")
    figure, tokens = timed(
        lambda t: t.total(history), TIKTOKEN_TRIALS, lambda: MessageTokens(counter), warmup=False
    )
    return {
        "messages": len(history),
        "encoding": counter.name,
        "count_cold": figure,
        "tokens": tokens,
        "heuristic_tokens": MessageTokens().total(history),
    }


# --------------------------------------------------------------------------- the peer


def run_peer(sizes: list[int], trials: dict[int, int]) -> dict[str, Any]:
    if not PEERS_PYTHON.exists():
        note = (
            f"{PEERS_PYTHON.relative_to(ROOT)} is missing; "
            "run benchmarks/loop_overhead.py to make it"
        )
        log(f"skipping LangChain: {note}")
        return {"skipped": note}
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["LANGCHAIN_TRACING_V2"] = "false"
    env["LANGSMITH_TRACING"] = "false"
    cmd = [
        str(PEERS_PYTHON),
        str(PEER_SCRIPT),
        "--sizes",
        ",".join(map(str, sizes)),
        "--trials",
        ",".join(f"{s}:{trials[s]}" for s in sizes),
    ]
    log("langchain-core: " + " ".join(cmd[1:]))
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=PEER_TIMEOUT_S, env=env, cwd=str(BENCH_DIR)
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {PEER_TIMEOUT_S} s", "command": cmd}
    tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-20:])
    if proc.returncode != 0:
        return {"error": f"exit code {proc.returncode}: {tail}", "command": cmd}
    try:
        report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError) as exc:
        return {"error": f"no JSON object on stdout ({exc}): {tail}", "command": cmd}
    return report


def _ratio(mine: float | None, theirs: float | None) -> float | None:
    if mine is None or not theirs:
        return None
    return round(mine / theirs, 3)


def compare(tiller: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    """Tiller's time / LangChain's, per size (below 1: Tiller is faster)."""
    out: dict[str, Any] = {}
    for size, mine in tiller.items():
        theirs = peer.get("sizes", {}).get(size)
        if theirs is None:
            continue
        ops = mine["ops"]
        same = theirs["history"]["fingerprint"] == mine["history"]["fingerprint"]
        out[size] = {
            "same_history": same,
            "count_cold_vs_count_tokens_approximately": _ratio(
                ops["count_cold"]["median_ms"], theirs["count"]["median_ms"]
            ),
            "count_warm_vs_count_tokens_approximately": _ratio(
                ops["count_warm"]["median_ms"], theirs["count"]["median_ms"]
            ),
            "compact_messages_cold_vs_trim_messages": _ratio(
                ops["compact_messages_cold"]["median_ms"], theirs["trim"]["median_ms"]
            ),
            "compact_messages_warm_vs_trim_messages": _ratio(
                ops["compact_messages_warm"]["median_ms"], theirs["trim"]["median_ms"]
            ),
        }
    return out


# --------------------------------------------------------------------------- bars


def bars(tiller: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    small, large = tiller.get("10000"), tiller.get("100000")
    if small and large:
        growth = {
            name: round(large["ops"][name]["median_ms"] / small["ops"][name]["median_ms"], 2)
            for name in large["ops"]
            if small["ops"][name]["median_ms"] > 0
        }
        growth_by_min = {
            name: round(large["ops"][name]["min_ms"] / small["ops"][name]["min_ms"], 2)
            for name in large["ops"]
            if small["ops"][name]["min_ms"] > 0
        }
        out["linear_cost"] = {
            "bar": f"time(100k) / time(10k) <= {BAR_LINEAR_RATIO:g} for every operation",
            "judged_on": "medians",
            "ratios": growth,
            "worst": max(growth, key=lambda k: growth[k]),
            "ratios_of_min_times": growth_by_min,  # for reading through a noisy machine
            "met": all(r <= BAR_LINEAR_RATIO for r in growth.values()),
        }
        cold_s = large["ops"]["compact_messages_cold"]["median_ms"] / 1e3
        out["compact_100k_under_1s"] = {
            "bar": f"compact_messages(100,000 messages, {BUDGET_TOKENS:,} tokens) < "
            f"{BAR_COMPACT_100K_S:g} s, judged on the cold count",
            "judged_on": "compact_messages_cold: a fresh MessageTokens, all counting timed",
            "cold_s": round(cold_s, 3),
            "cold_gc_s": round(large["ops"]["compact_messages_cold"]["gc_median_ms"] / 1e3, 3),
            "warm_s": round(large["ops"]["compact_messages_warm"]["median_ms"] / 1e3, 3),
            "met": cold_s < BAR_COMPACT_100K_S,
        }
    first = tiller.get("1000")
    if first and large:
        base = first["append_one_message"]["median_us"]
        top = large["append_one_message"]["median_us"]
        out["append_is_o1"] = {
            "bar": f"tail_total after appending one message: 100k's us <= "
            f"{BAR_APPEND_RATIO:g}x 1k's",
            "us_by_size": {s: f["append_one_message"]["median_us"] for s, f in tiller.items()},
            "ratio_100k_to_1k": round(top / base, 2),
            "met": top <= BAR_APPEND_RATIO * base,
        }
    return out


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--trials", type=int, default=None, help="trials at every size")
    parser.add_argument("--no-peers", action="store_true", help="skip the LangChain run")
    parser.add_argument("--output", type=Path, default=None, help="also write the JSON here")
    parser.add_argument(
        "--profile",
        default="",
        help="comma-separated operations (e.g. compact_messages_cold) to cProfile once more "
        "after timing them; the top functions go to stderr",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    trials = {s: args.trials or DEFAULT_TRIALS.get(s, 5) for s in sizes}
    profiled = frozenset(filter(None, args.profile.split(",")))

    started = time.perf_counter()
    document: dict[str, Any] = {
        "benchmark": "token counting and compaction of long histories",
        "workload": {
            "sizes": sizes,
            "trials": trials,
            "budget": f"ContextBudget(max_context_tokens={BUDGET_TOKENS})",
            "counter": "heuristic (about 4 UTF-8 bytes per token) unless named",
            "cold": "a fresh MessageTokens / ContextView: every message counted in the timing",
            "warm": "a MessageTokens that has counted the history already, as the agent loop's has",
            "timing": "median of the trials after one untimed run; gc.collect() before each, "
            "the collector on (gc_median_ms: the part of a trial spent in it)",
        },
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }

    loop = asyncio.new_event_loop()
    tiller: dict[str, Any] = {}
    try:
        for size in sizes:
            log(f"tiller: {size} messages ({trials[size]} trials)")
            raw = generate_history(size)
            about = describe(raw)
            history = to_tiller(raw)
            del raw
            figures = measure_tiller(history, trials[size], loop, profiled)
            tiller[str(size)] = {"history": about, **figures}
            if size == TIKTOKEN_SIZE:
                document["tiktoken"] = measure_tiktoken(history)
            del history
            gc.collect()
    finally:
        loop.close()
    document["tiller"] = tiller

    peer = {"skipped": "--no-peers"} if args.no_peers else run_peer(sizes, trials)
    document["langchain"] = peer
    document["tiller_vs_langchain"] = compare(tiller, peer) if "sizes" in peer else None
    document["bars"] = bars(tiller)
    document["all_bars_met"] = bool(document["bars"]) and all(
        b["met"] for b in document["bars"].values()
    )
    document["elapsed_s"] = round(time.perf_counter() - started, 1)

    text = json.dumps(document, indent=2)
    print(text)
    if args.output:
        args.output.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
