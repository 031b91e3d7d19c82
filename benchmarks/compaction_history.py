"""Deterministic agent histories for the compaction benchmark, as plain JSON-able dicts.

Standard library only, so both interpreters use it: ``benchmarks/compaction.py``
(Tiller, in the project's venv) and ``benchmarks/peers/bench_compaction_langchain.py``
(in ``benchmarks/.peers-venv``) build the same history, each in its own message types,
and compare `fingerprint`s to prove it.

A history is a run of coding-agent turns: a user request, then 1-5 rounds of an
assistant message (a sentence or two and 1-3 tool calls) followed by one result per
call, then a closing assistant text. Tool results are 1-500 lines, drawn log-uniformly
(most are short, about a third are over 50 lines, as in real sessions), cut from
realistic text: a file read with line numbers (code), shell output (timestamped log
lines, test runs), search hits and file listings. The last turn is cut short so the
history has exactly the size asked for, never ending on a call without its results.

Message dicts:

* ``{"role": "user", "text", "timestamp"}``
* ``{"role": "assistant", "text", "tool_calls": [{"id", "name", "arguments"}], "timestamp"}``
* ``{"role": "tool", "tool_call_id", "tool_name", "text", "is_error", "timestamp"}``
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from typing import Any

SIZES = (1_000, 10_000, 100_000)
SEED = 20_250_501
MAX_RESULT_LINES = 500
START_MS = 1_746_000_000_000  # timestamps are fixed, not the wall clock
CORPUS_LINES = 6_000  # per kind of output; results are windows into these

Message = dict[str, Any]

_WORD_TEXT = (
    "the parser config cache request handler test module function retry budget token "
    "context window message history session user agent model tool result error "
    "timeout file path line output value schema field index query stream event "
    "worker queue lock thread loop state plan step check fix update refactor add "
    "remove rename split merge move keep drop read write run build deploy log trace "
    "metric latency memory size limit count order branch commit diff patch review"
)
_WORDS = tuple(_WORD_TEXT.split())
_MODULES = (
    "api/routes",
    "api/auth",
    "core/config",
    "core/cache",
    "core/scheduler",
    "db/models",
    "db/migrations",
    "services/billing",
    "services/search",
    "utils/retry",
    "workers/ingest",
    "workers/export",
)
_COMPONENTS = ("http", "db", "cache", "worker", "auth", "scheduler", "ingest", "billing")
_LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARN", "ERROR")
_LOG_EVENTS = (
    "request completed method={m} path=/v1/{p} status={s} duration_ms={d}",
    "cache miss key={p}:{d} ttl=300",
    "acquired lock {p} after {d} ms",
    "job {d} finished rows={s} elapsed={d}ms",
    "retrying {p} attempt={r} backoff_ms={d}",
    "connection pool size={r}0 in_use={r}",
    "slow query on {p} took {d} ms (threshold 250 ms)",
    "user {d} authenticated via token scope={p}",
)
_CODE = (
    "def {f}(self, {a}: {t}) -> {t}:",
    '    """Return the {w} for {a}."""',
    "    if {a} is None:",
    "        raise ValueError(f'{w} {a} must be set')",
    "    result = self._{f}({a}, retries={n})",
    "    for item in {a}:",
    "        total += item.{w}",
    "    return {a}",
    "class {C}({C}Base):",
    "    {w}: {t} = {n}",
    "import {w}",
    "from .{w} import {C}",
    "",
    "    logger.debug('%s %s', {a}, {w})",
    "    async with self._lock:",
    "        await self._{f}({a})",
    "# {w} {w} {w}: keep in sync with {w}",
)
_TYPES = ("int", "str", "bytes", "float", "dict[str, Any]", "list[int]", "Path", "None")


def _words(rng: random.Random, low: int, high: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))
    return text[:1].upper() + text[1:] + "."


def _path(rng: random.Random) -> str:
    return f"src/app/{rng.choice(_MODULES)}.py"


# --------------------------------------------------------------------------- output text


def _code_line(rng: random.Random) -> str:
    template = rng.choice(_CODE)
    return template.format(
        f=rng.choice(_WORDS) + "_" + rng.choice(_WORDS),
        a=rng.choice(_WORDS),
        t=rng.choice(_TYPES),
        w=rng.choice(_WORDS),
        n=rng.randint(0, 100),
        C=rng.choice(_WORDS).capitalize() + rng.choice(_WORDS).capitalize(),
    )


def _log_line(rng: random.Random, i: int) -> str:
    seconds = i * 7 + rng.randint(0, 6)
    stamp = f"2025-05-01T{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    event = rng.choice(_LOG_EVENTS).format(
        m=rng.choice(("GET", "POST", "PUT", "DELETE")),
        p=rng.choice(_WORDS) + "/" + rng.choice(_WORDS),
        s=rng.choice((200, 200, 201, 204, 404, 500)),
        d=rng.randint(1, 5_000),
        r=rng.randint(1, 5),
    )
    level, component = rng.choice(_LEVELS), rng.choice(_COMPONENTS)
    return f"{stamp}.{rng.randint(0, 999):03d}Z {level:<5} [{component}] {event}"


def _test_line(rng: random.Random) -> str:
    test = f"tests/{rng.choice(_MODULES)}_test.py::test_{rng.choice(_WORDS)}_{rng.choice(_WORDS)}"
    outcome = rng.choice(("PASSED", "PASSED", "PASSED", "PASSED", "FAILED", "SKIPPED"))
    return f"{test} {outcome} [{rng.randint(0, 100):>3}%]"


def _search_line(rng: random.Random) -> str:
    return f"{_path(rng)}:{rng.randint(1, 900)}:{_code_line(rng).strip() or 'pass'}"


def _listing_line(rng: random.Random) -> str:
    size = rng.randint(0, 200_000)
    return f"-rw-r--r--  1 dev  staff  {size:>7}  May  1 10:{rng.randint(0, 59):02d}  {_path(rng)}"


class _Corpus:
    """Lines of each kind of tool output; a result is a window of consecutive lines."""

    def __init__(self, rng: random.Random) -> None:
        self.code = [f"{i + 1:>5}\t{_code_line(rng)}" for i in range(CORPUS_LINES)]
        self.shell = [
            _log_line(rng, i) if rng.random() < 0.7 else _test_line(rng)
            for i in range(CORPUS_LINES)
        ]
        self.search = [_search_line(rng) for _ in range(CORPUS_LINES)]
        self.listing = [_listing_line(rng) for _ in range(CORPUS_LINES)]

    def window(self, rng: random.Random, tool: str, lines: int) -> str:
        source = {
            "read_file": self.code,
            "shell": self.shell,
            "search": self.search,
            "list_files": self.listing,
        }.get(tool, self.shell)
        start = rng.randrange(len(source) - lines)
        return "\n".join(source[start : start + lines])


def _result_lines(rng: random.Random) -> int:
    """1-500, log-uniform: many short results, a long tail."""
    return min(MAX_RESULT_LINES, max(1, round(math.exp(rng.uniform(0, math.log(500))))))


# --------------------------------------------------------------------------- tool calls

_TOOLS = ("read_file", "shell", "search", "list_files", "edit_file")
_TOOL_WEIGHTS = (35, 30, 15, 8, 12)


def _arguments(rng: random.Random, tool: str) -> dict[str, Any]:
    if tool == "read_file":
        start = rng.randint(1, 400)
        return {"path": _path(rng), "start_line": start, "end_line": start + rng.randint(20, 500)}
    if tool == "shell":
        return {
            "command": rng.choice(
                (
                    "pytest -q tests/{m}_test.py",
                    "tail -n 500 /var/log/app/{w}.log",
                    "git log --oneline -n 50 -- src/app/{m}.py",
                    "python -m app.{w} --dry-run",
                )
            ).format(m=rng.choice(_MODULES), w=rng.choice(_WORDS)),
            "timeout": rng.choice((30, 60, 120)),
        }
    if tool == "search":
        return {"pattern": rf"def {rng.choice(_WORDS)}_\w+", "path": "src/"}
    if tool == "list_files":
        return {"pattern": f"src/app/{rng.choice(_MODULES).split('/')[0]}/**/*.py"}
    return {
        "path": _path(rng),
        "old": _code_line(rng),
        "new": _code_line(rng),
    }


def _result_text(rng: random.Random, corpus: _Corpus, tool: str) -> tuple[str, bool]:
    if tool == "edit_file":
        if rng.random() < 0.1:
            return "Error: the text to replace was not found in the file; read it again.", True
        return f"Edited {_path(rng)}: 1 replacement.", False
    return corpus.window(rng, tool, _result_lines(rng)), False


# --------------------------------------------------------------------------- histories


def generate_history(size: int, seed: int = SEED) -> list[Message]:
    """`size` messages of agent turns, the same for the same (size, seed)."""
    corpus = _Corpus(random.Random(seed))
    # A separate stream for the turns, the same for every size: a shorter history is
    # the start of a longer one (up to where it is cut short).
    rng = random.Random(seed + 1)
    history: list[Message] = []
    clock = START_MS
    calls = 0

    def stamp() -> int:
        nonlocal clock
        clock += rng.randint(200, 30_000)
        return clock

    while len(history) < size:
        history.append({"role": "user", "text": _words(rng, 5, 60), "timestamp": stamp()})
        for _ in range(rng.randint(1, 5)):
            room = size - len(history) - 1  # slots left for results after the assistant message
            if room < 1:
                break
            tools = rng.choices(_TOOLS, _TOOL_WEIGHTS, k=min(rng.randint(1, 3), room))
            tool_calls: list[dict[str, Any]] = []
            for tool in tools:
                calls += 1
                tool_calls.append(
                    {"id": f"call_{calls:07d}", "name": tool, "arguments": _arguments(rng, tool)}
                )
            history.append(
                {
                    "role": "assistant",
                    "text": _words(rng, 8, 40),
                    "tool_calls": tool_calls,
                    "timestamp": stamp(),
                }
            )
            for call in tool_calls:
                text, is_error = _result_text(rng, corpus, call["name"])
                history.append(
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "tool_name": call["name"],
                        "text": text,
                        "is_error": is_error,
                        "timestamp": stamp(),
                    }
                )
        if len(history) < size:
            history.append(
                {
                    "role": "assistant",
                    "text": _words(rng, 10, 80),
                    "tool_calls": [],
                    "timestamp": stamp(),
                }
            )
    return history


def fingerprint(history: list[Message]) -> str:
    """A digest of the history, equal in both interpreters for the same messages."""
    digest = hashlib.sha256()
    for message in history:
        digest.update(json.dumps(message, sort_keys=True).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def describe(history: list[Message]) -> dict[str, Any]:
    """Counts that say what the history is made of."""
    roles = {"user": 0, "assistant": 0, "tool": 0}
    tool_calls = 0
    result_lines: list[int] = []
    chars = 0
    for message in history:
        roles[message["role"]] += 1
        chars += len(message["text"])
        if message["role"] == "assistant":
            tool_calls += len(message["tool_calls"])
        elif message["role"] == "tool":
            result_lines.append(message["text"].count("\n") + 1)
    result_lines.sort()
    return {
        "messages": len(history),
        "user": roles["user"],
        "assistant": roles["assistant"],
        "tool_results": roles["tool"],
        "tool_calls": tool_calls,
        "tool_result_lines_median": result_lines[len(result_lines) // 2] if result_lines else 0,
        "tool_result_lines_max": result_lines[-1] if result_lines else 0,
        "tool_results_over_50_lines": sum(1 for n in result_lines if n > 50),
        "text_mib": round(chars / 2**20, 1),
        "fingerprint": fingerprint(history),
    }
