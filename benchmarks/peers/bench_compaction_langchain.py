"""Compaction benchmark, peer side: LangChain's token counting and trimming on the same histories.

Usage (with ``benchmarks/.peers-venv/bin/python``)::

    python bench_compaction_langchain.py --sizes 1000,10000,100000 --trials 1000:15,10000:7,100000:5

Rebuilds each history of ``benchmarks/compaction_history.py`` as langchain_core messages
(``HumanMessage``; ``AIMessage`` with ``tool_calls``; ``ToolMessage`` with ``name`` and
``status``) and times, median of the trials:

* ``count``: ``count_tokens_approximately(history)``, LangChain's 4-characters-per-token
  estimate, the counterpart of Tiller's heuristic count;
* ``trim``: ``trim_messages(history, max_tokens=180_000, strategy="last",
  token_counter=count_tokens_approximately, start_on="human", include_system=True)``,
  the counterpart of Tiller's ``compact_messages`` to the same budget (the histories
  have no system message, so ``include_system`` has nothing to keep).

Prints exactly one JSON object on stdout; exits non-zero if a trim does not fit the budget.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # compaction_history, gc_clock

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately, trim_messages

from compaction_history import SIZES, describe, generate_history
from gc_clock import GcClock

BUDGET = 180_000


def to_langchain(history: list[dict[str, Any]]) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    for item in history:
        role = item["role"]
        if role == "user":
            messages.append(HumanMessage(content=item["text"]))
        elif role == "assistant":
            messages.append(
                AIMessage(
                    content=item["text"],
                    tool_calls=[
                        {
                            "id": c["id"],
                            "name": c["name"],
                            "args": c["arguments"],
                            "type": "tool_call",
                        }
                        for c in item["tool_calls"]
                    ],
                )
            )
        else:
            messages.append(
                ToolMessage(
                    content=item["text"],
                    tool_call_id=item["tool_call_id"],
                    name=item["tool_name"],
                    status="error" if item["is_error"] else "success",
                )
            )
    return messages


def timed(operation: Callable[[], Any], trials: int) -> tuple[dict[str, float], Any]:
    """Median and min ms over `trials` runs (after one untimed run), the median ms of them
    the garbage collector took, and a result."""
    result = operation()
    samples: list[int] = []
    in_gc: list[float] = []
    full: list[int] = []
    with GcClock() as clock:
        for _ in range(trials):
            gc.collect()
            clock.reset()
            start = time.perf_counter_ns()
            result = operation()
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


def measure(size: int, trials: int) -> dict[str, Any]:
    history = generate_history(size)
    about = describe(history)
    started = time.perf_counter()
    messages = to_langchain(history)
    build_s = time.perf_counter() - started
    del history

    count, tokens = timed(lambda: count_tokens_approximately(messages), trials)

    def trim() -> list[BaseMessage]:
        return trim_messages(
            messages,
            max_tokens=BUDGET,
            strategy="last",
            token_counter=count_tokens_approximately,
            start_on="human",
            include_system=True,
        )

    trim_time, kept = timed(trim, trials)
    kept_tokens = count_tokens_approximately(kept)
    if kept_tokens > BUDGET:
        raise SystemExit(f"trim_messages kept {kept_tokens} tokens, over the {BUDGET} budget")
    return {
        "history": about,
        "build_messages_s": round(build_s, 3),
        "tokens": tokens,
        "count": count,
        "trim": {**trim_time, "messages_after": len(kept), "tokens_after": kept_tokens},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Compaction benchmark: langchain_core")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument(
        "--trials", default="1000:15,10000:7,100000:5", help="size:trials, comma-separated"
    )
    args = parser.parse_args()
    trials = {int(k): int(v) for k, v in (pair.split(":") for pair in args.trials.split(","))}
    report: dict[str, Any] = {
        "framework": "langchain-core",
        "version": version("langchain-core"),
        "budget_tokens": BUDGET,
        "sizes": {},
    }
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"[compaction/langchain] {size} messages", file=sys.stderr, flush=True)
        report["sizes"][str(size)] = measure(size, trials.get(size, 5))
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
