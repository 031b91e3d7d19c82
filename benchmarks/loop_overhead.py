"""Agent-loop overhead: Tiller against peer frameworks on a zero-latency fake model.

Run with the project's venv::

    .venv/bin/python benchmarks/loop_overhead.py [--runs N] [--quick] [--output FILE] [--check]

What it does:

1. Creates ``benchmarks/.peers-venv`` (``python3 -m venv``) if missing and installs
   ``benchmarks/peers/requirements.txt`` into it; the project's venv is never touched.
2. Runs every ``benchmarks/peers/bench_<framework>.py`` with that venv's python, and
   ``benchmarks/bench_tiller.py`` with this interpreter, each mode in a fresh subprocess:

   * ``w1``: one run = 11 model requests, 10 turns of 3 ``add`` tool calls, then "done";
     median wall time over N runs after 20 warm-up runs, and ``per_turn_us`` = median / 11;
   * ``w2``: the same run with 2,000 prior messages in the history;
     ``per_history_msg_us`` = (w2 median - w1 median) / 2,000;
   * ``concurrent``: 1,000 W1 runs started at once with ``asyncio.gather``: total seconds,
     runs/s and the process's peak RSS.

3. Start-up as a user feels it: in fresh interpreters (median of 7), the time from just
   before the framework's first import to the end of a first one-turn run (an agent built,
   one tool call, then the answer), with ``--mode startup`` of each bench script; the
   frameworks take turns, one process each per round, so load on the machine reaches all.
   The import statement alone is also timed and reported, without a bar: lazy loading
   flatters it, as most of what a first run needs is loaded when the run starts.
4. Prints one JSON document: every framework's metrics (or its error), the fastest peer on
   each metric, Tiller's ratio to it, and whether each of Tiller's bars is met; with
   ``--check`` it exits 1 when a bar is missed.

Tiller's bars, against the fastest peer of the same run: per model turn <= 0.1x; per
history message (W2) <= 0.3 us; start-up <= 0.5x; concurrent runs/s >= 5x; concurrent peak
RSS below every peer's.

For start-up, as for the import, every framework gets the same bytecode treatment: a private
``PYTHONPYCACHEPREFIX`` that an untimed first process fills.

Contract for a bench script (``bench_tiller.py`` included): ``--mode
{w1,w2,concurrent,startup} --runs N``; print exactly one JSON object on stdout with
``framework``, ``version``, ``mode`` and, for w1/w2, ``median_us`` (and ``per_turn_us``), for
concurrent ``runs``, ``total_s``, ``runs_per_s`` and ``peak_rss_mib``, for startup
``startup_s``; exit non-zero if the run did not do the workload.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
PEERS_DIR = BENCH_DIR / "peers"
PEERS_VENV = BENCH_DIR / ".peers-venv"
REQUIREMENTS = PEERS_DIR / "requirements.txt"
INSTALL_STAMP = PEERS_VENV / ".requirements.sha256"
PYCACHE_PREFIX = BENCH_DIR / ".pycache"
TILLER_SCRIPT = BENCH_DIR / "bench_tiller.py"

HISTORY_MESSAGES = 2_000
MODEL_CALLS_PER_RUN = 11
MODES = ("w1", "w2", "concurrent")
SUBPROCESS_TIMEOUT_S = 1_800

# Bars Tiller has to clear, relative to the fastest peer on each metric.
BAR_PER_TURN_RATIO = 0.1
BAR_PER_HISTORY_MSG_US = 0.3
BAR_RUNS_PER_S_RATIO = 5.0
BAR_STARTUP_RATIO = 0.5


@dataclass(frozen=True)
class Framework:
    name: str
    script: Path
    import_stmt: str
    # Put on PYTHONPATH for the subprocesses (Tiller's src/, in case it is not installed).
    pythonpath: Path | None = None


PEERS = (
    Framework("pydantic-ai", PEERS_DIR / "bench_pydantic_ai.py", "import pydantic_ai"),
    Framework("openai-agents", PEERS_DIR / "bench_openai_agents.py", "import agents"),
    Framework(
        "langgraph",
        PEERS_DIR / "bench_langgraph.py",
        "import langgraph.prebuilt, langchain_core.language_models",
    ),
    Framework("agno", PEERS_DIR / "bench_agno.py", "import agno.agent"),
)
TILLER = Framework(
    "tiller", TILLER_SCRIPT, "from tiller import Agent, tool", pythonpath=BENCH_DIR.parent / "src"
)


def log(message: str) -> None:
    print(f"[loop_overhead] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- peers venv


def peers_python() -> Path:
    return PEERS_VENV / "bin" / "python"


def ensure_peers_venv() -> Path:
    """Create the peers' venv and install the pinned peers into it, once per requirements."""
    python = peers_python()
    if not python.exists():
        log(f"creating {PEERS_VENV.relative_to(BENCH_DIR.parent)} with python3 -m venv")
        python3 = shutil.which("python3") or sys.executable
        subprocess.run([python3, "-m", "venv", str(PEERS_VENV)], check=True)
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if INSTALL_STAMP.exists() and INSTALL_STAMP.read_text().strip() == wanted:
        return python
    log(f"installing {REQUIREMENTS.relative_to(BENCH_DIR.parent)} into the peers venv")
    # A newer pip is nice to have, not required.
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)],
        check=True,
    )
    INSTALL_STAMP.write_text(wanted + "\n")
    return python


# --------------------------------------------------------------------------- measuring


def _bench_env(fw: Framework) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if fw.pythonpath is not None and fw.pythonpath.is_dir():
        env["PYTHONPATH"] = str(fw.pythonpath)
    env["AGNO_TELEMETRY"] = "false"
    env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
    env["LANGCHAIN_TRACING_V2"] = "false"
    env["LANGSMITH_TRACING"] = "false"
    return env


def _tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def run_mode(python: str, fw: Framework, mode: str, runs: int) -> dict[str, Any]:
    """Run one bench script in one mode in a fresh process; return its JSON or an error."""
    cmd = [python, str(fw.script), "--mode", mode, "--runs", str(runs)]
    log(f"{fw.name}: {mode} (--runs {runs})")
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=SUBPROCESS_TIMEOUT_S,
            env=_bench_env(fw),
            cwd=str(fw.script.parent),
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {SUBPROCESS_TIMEOUT_S} s", "command": cmd}
    if proc.returncode != 0:
        return {
            "error": f"exit code {proc.returncode}: {_tail(proc.stderr or proc.stdout)}",
            "command": cmd,
        }
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    try:
        result: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError) as exc:
        return {"error": f"no JSON object on stdout ({exc}): {_tail(proc.stdout)}"}
    if len(lines) != 1:
        result["warning"] = f"{len(lines)} lines on stdout, expected exactly one JSON object"
    log(f"{fw.name}: {mode} done in {time.perf_counter() - started:.1f} s")
    return result


def measure_import(python: str, fw: Framework, repeats: int) -> dict[str, Any]:
    """Median in-process time of the framework's import, each in a fresh interpreter.

    All frameworks get the same bytecode treatment: a private ``PYTHONPYCACHEPREFIX`` that an
    untimed first import fills, so nobody pays for compiling (and no ``__pycache__`` lands in
    the source tree).
    """
    code = f"import time; t = time.perf_counter(); {fw.import_stmt}; print(time.perf_counter() - t)"
    env = _cache_env(fw)
    cmd = [python, "-c", code]
    samples: list[float] = []
    for attempt in range(repeats + 1):
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=300, env=env, cwd=str(BENCH_DIR)
        )
        if proc.returncode != 0:
            return {"error": f"`{fw.import_stmt}` failed: {_tail(proc.stderr)}"}
        if attempt > 0:  # the first one compiles and warms the page cache
            samples.append(float(proc.stdout.strip().splitlines()[-1]))
    return {
        "statement": fw.import_stmt,
        "median_s": round(statistics.median(samples), 4),
        "min_s": round(min(samples), 4),
        "repeats": repeats,
    }


def _cache_env(fw: Framework) -> dict[str, str]:
    env = _bench_env(fw)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE_PREFIX)
    return env


def _startup_sample(python: str, fw: Framework) -> dict[str, Any]:
    """One fresh process of ``--mode startup``: its JSON, or an error."""
    proc = subprocess.run(
        [python, str(fw.script), "--mode", "startup"],
        capture_output=True,
        text=True,
        timeout=300,
        env=_cache_env(fw),
        cwd=str(fw.script.parent),
    )
    if proc.returncode != 0:
        return {"error": f"startup run failed: {_tail(proc.stderr or proc.stdout)}"}
    try:
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError) as exc:
        return {"error": f"no JSON object on stdout ({exc}): {_tail(proc.stdout)}"}
    return result


def measure_startups(
    entries: list[tuple[str, Framework]], repeats: int
) -> dict[str, dict[str, Any]]:
    """Each framework's median time from a fresh interpreter's first import of it to the
    end of its first one-turn run (``--mode startup``), each sample its own process.

    The frameworks take turns, one process each per round, so a change in the machine's
    load during the measurement reaches all of them alike; an untimed first round
    compiles the bytecode and warms the page cache.
    """
    log(f"startup: {repeats} rounds of {', '.join(fw.name for _, fw in entries)}")
    samples: dict[str, list[float]] = {fw.name: [] for _, fw in entries}
    reports: dict[str, dict[str, Any]] = {}
    for round_ in range(repeats + 1):
        for python, fw in entries:
            if fw.name in reports:  # failed before
                continue
            result = _startup_sample(python, fw)
            if "error" in result:
                reports[fw.name] = result
            elif round_ > 0:
                samples[fw.name].append(float(result["startup_s"]))
    for _, fw in entries:
        if fw.name in reports:
            continue
        taken = samples[fw.name]
        reports[fw.name] = {
            "what": "first import to the end of a first run: 1 tool call, then the answer",
            "median_s": round(statistics.median(taken), 4),
            "min_s": round(min(taken), 4),
            "samples_s": taken,
            "repeats": repeats,
        }
    return reports


def measure_framework(
    python: str, fw: Framework, runs: int, concurrent_runs: int, import_repeats: int
) -> dict[str, Any]:
    """The loop workloads and the import; `finish_report` adds start-up and the metrics."""
    report: dict[str, Any] = {"python": python}
    for mode in MODES:
        report[mode] = run_mode(python, fw, mode, concurrent_runs if mode == "concurrent" else runs)
    report["import"] = measure_import(python, fw, import_repeats)
    return report


def finish_report(report: dict[str, Any], startup: dict[str, Any]) -> dict[str, Any]:
    report["startup"] = startup
    sections = (*MODES, "startup", "import")
    for section in sections:
        version = report[section].get("version")
        if version and "version" not in report:
            report["version"] = version
    report["metrics"] = summarize(report)
    errors = {k: report[k]["error"] for k in sections if "error" in report[k]}
    if errors:
        report["errors"] = errors
    return report


def summarize(report: dict[str, Any]) -> dict[str, float | None]:
    """The headline figures of one framework; ``None`` where the measurement failed."""
    w1, w2, conc, imp = report["w1"], report["w2"], report["concurrent"], report["import"]
    startup = report["startup"]
    w1_median = w1.get("median_us")
    w2_median = w2.get("median_us")
    per_turn = w1.get("per_turn_us")
    if per_turn is None and w1_median is not None:
        per_turn = w1_median / MODEL_CALLS_PER_RUN
    per_history = None
    if w1_median is not None and w2_median is not None:
        per_history = round((w2_median - w1_median) / HISTORY_MESSAGES, 3)
    return {
        "w1_median_us": w1_median,
        "per_turn_us": per_turn,
        "w2_median_us": w2_median,
        "per_history_msg_us": per_history,
        "concurrent_total_s": conc.get("total_s"),
        "concurrent_runs_per_s": conc.get("runs_per_s"),
        "concurrent_peak_rss_mib": conc.get("peak_rss_mib"),
        "startup_s": startup.get("median_s"),
        "import_s": imp.get("median_s"),
    }


# --------------------------------------------------------------------------- comparing

# metric -> True when larger is better
METRICS = {
    "per_turn_us": False,
    "per_history_msg_us": False,
    "concurrent_runs_per_s": True,
    "concurrent_peak_rss_mib": False,
    "startup_s": False,
    "import_s": False,
}


def best_peers(peers: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any] | None]:
    best: dict[str, dict[str, Any] | None] = {}
    for metric, higher_is_better in METRICS.items():
        candidates = [
            (name, report["metrics"][metric])
            for name, report in peers.items()
            if report["metrics"].get(metric) is not None
        ]
        if not candidates:
            best[metric] = None
            continue
        pick = max if higher_is_better else min
        name, value = pick(candidates, key=lambda c: c[1])
        best[metric] = {"framework": name, "value": value}
    return best


def _ratio(mine: float | None, theirs: float | None) -> float | None:
    if mine is None or theirs is None or theirs == 0:
        return None
    return round(mine / theirs, 4)


def compare(
    tiller: dict[str, Any] | None,
    peers: dict[str, dict[str, Any]],
    best: dict[str, dict[str, Any] | None],
) -> tuple[dict[str, float | None], dict[str, dict[str, Any]]]:
    """Tiller's ratio to the fastest peer on each metric, and the bars with ``met``."""
    mine: dict[str, Any] = tiller["metrics"] if tiller else {}

    def best_value(metric: str) -> float | None:
        entry = best.get(metric)
        return entry["value"] if entry else None

    ratios = {metric: _ratio(mine.get(metric), best_value(metric)) for metric in METRICS}

    def bar(
        description: str, met: bool | None, value: Any, target: Any, **extra: Any
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "bar": description,
            "value": value,
            "target": target,
            "met": met,
        }
        entry.update(extra)
        if met is None:
            entry["note"] = "not measurable: Tiller or every peer is missing this metric"
        return entry

    per_turn = ratios["per_turn_us"]
    history = mine.get("per_history_msg_us")
    rps = ratios["concurrent_runs_per_s"]
    rss = mine.get("concurrent_peak_rss_mib")
    peer_rss = {
        name: report["metrics"]["concurrent_peak_rss_mib"]
        for name, report in peers.items()
        if report["metrics"].get("concurrent_peak_rss_mib") is not None
    }
    startup = ratios["startup_s"]
    rss_met = None if rss is None or not peer_rss else all(rss < v for v in peer_rss.values())
    bars = {
        "per_turn": bar(
            f"per-turn overhead <= {BAR_PER_TURN_RATIO}x the fastest peer",
            None if per_turn is None else per_turn <= BAR_PER_TURN_RATIO,
            per_turn,
            BAR_PER_TURN_RATIO,
        ),
        "per_history_msg": bar(
            f"W2 cost per history message <= {BAR_PER_HISTORY_MSG_US} us",
            None if history is None else history <= BAR_PER_HISTORY_MSG_US,
            history,
            BAR_PER_HISTORY_MSG_US,
        ),
        "concurrent_runs_per_s": bar(
            f"concurrent runs/s >= {BAR_RUNS_PER_S_RATIO}x the fastest peer",
            None if rps is None else rps >= BAR_RUNS_PER_S_RATIO,
            rps,
            BAR_RUNS_PER_S_RATIO,
        ),
        "concurrent_peak_rss": bar(
            "concurrent peak RSS below every peer that ran concurrently",
            rss_met,
            rss,
            peer_rss,
        ),
        "startup": bar(
            f"start-up (first import to the end of a first one-turn run) <= "
            f"{BAR_STARTUP_RATIO}x the fastest peer",
            None if startup is None else startup <= BAR_STARTUP_RATIO,
            startup,
            BAR_STARTUP_RATIO,
        ),
    }
    return ratios, bars


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=None, help="timed runs for W1 and W2 (200)")
    parser.add_argument("--concurrent", type=int, default=None, help="runs started at once (1000)")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 30 runs, 200 concurrent, 3 imports"
    )
    parser.add_argument(
        "--only",
        default=None,
        help="comma-separated frameworks to run (e.g. tiller,agno); default: all",
    )
    parser.add_argument("--output", type=Path, default=None, help="also write the JSON here")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when any of Tiller's bars is missed"
    )
    args = parser.parse_args(argv)

    runs = args.runs or (30 if args.quick else 200)
    concurrent_runs = args.concurrent or (200 if args.quick else 1_000)
    import_repeats = 3 if args.quick else 7
    selected = set(args.only.split(",")) if args.only else None

    def wanted(fw: Framework) -> bool:
        return selected is None or fw.name in selected

    started = time.perf_counter()
    document: dict[str, Any] = {
        "benchmark": "agent loop overhead on a zero-latency fake model",
        "workload": {
            "w1": "1 run = 11 model requests: 10 turns x 3 `add` tool calls, then 'done'",
            "w2": f"W1 with {HISTORY_MESSAGES} prior messages in the history",
            "concurrent": f"{concurrent_runs} W1 runs at once via asyncio.gather",
            "startup": "fresh interpreter: first import to the end of a first run "
            "(1 tool call, then 'done'), median of import_repeats processes",
            "runs": runs,
            "warmup_runs": 20,
            "import_repeats": import_repeats,
        },
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": _processor(),
            "cpus": os.cpu_count(),
        },
        "command": " ".join(["python", "benchmarks/loop_overhead.py", *(argv or sys.argv[1:])]),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }

    frameworks: dict[str, dict[str, Any]] = {}
    measured: list[tuple[str, Framework]] = []  # (python, framework) of each that ran
    peer_frameworks = [fw for fw in PEERS if wanted(fw)]
    if peer_frameworks:
        try:
            peer_python = str(ensure_peers_venv())
        except (subprocess.CalledProcessError, OSError) as exc:
            peer_python = ""
            for fw in peer_frameworks:
                frameworks[fw.name] = {"errors": {"install": f"peers venv setup failed: {exc}"}}
        if peer_python:
            for fw in peer_frameworks:
                frameworks[fw.name] = measure_framework(
                    peer_python, fw, runs, concurrent_runs, import_repeats
                )
                measured.append((peer_python, fw))

    tiller: dict[str, Any] | None = None
    if wanted(TILLER):
        if TILLER.script.exists():
            tiller = measure_framework(
                sys.executable, TILLER, runs, concurrent_runs, import_repeats
            )
            frameworks[TILLER.name] = tiller
            measured.append((sys.executable, TILLER))
        else:
            log(f"skipping Tiller: {TILLER.script.relative_to(BENCH_DIR.parent)} does not exist")
            frameworks[TILLER.name] = {
                "skipped": f"{TILLER.script.relative_to(BENCH_DIR.parent)} does not exist"
            }

    startups = measure_startups(measured, import_repeats)
    for _, fw in measured:
        finish_report(frameworks[fw.name], startups[fw.name])

    peers = {
        name: report
        for name, report in frameworks.items()
        if name != TILLER.name and "metrics" in report
    }
    best = best_peers(peers)
    ratios, bars = compare(tiller, peers, best)
    document["frameworks"] = frameworks
    document["fastest_peer"] = best
    document["tiller_vs_fastest_peer"] = ratios
    document["bars"] = bars
    document["all_bars_met"] = all(b["met"] is True for b in bars.values())
    document["failed"] = sorted(name for name, report in frameworks.items() if report.get("errors"))
    document["elapsed_s"] = round(time.perf_counter() - started, 1)

    text = json.dumps(document, indent=2)
    print(text)
    if args.output:
        args.output.write_text(text + "\n")
    if args.check and not document["all_bars_met"]:
        missed = [name for name, b in bars.items() if b["met"] is not True]
        log(f"bars not met: {', '.join(missed)}")
        return 1
    return 0


def _processor() -> str:
    """The CPU's model name (Linux), else what `platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


if __name__ == "__main__":
    raise SystemExit(main())
