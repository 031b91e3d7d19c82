"""Fit the embedded model's tool threshold on the development task sets. Prints JSON.

    .venv/bin/python benchmarks/fit_tool_threshold.py [--sets NAMES] [--details]

The chooser calls its best candidate tool when the tool's relevance (nats per
request token, see `tiller.models.local.tool_relevance`) passes a threshold. This
script asks the chooser, for every task, which candidate it ranks first and how
relevant it is, without generating anything, and then sweeps the threshold:

- a task that needs a tool is right at threshold t when that candidate is the
  expected tool (the first expected call's) and its relevance is above t;
- a task that needs none is right when no candidate's relevance is above t.

The fitted threshold is the middle of the widest range of t where the weaker of
the two bars (right tool when needed >= 90 %, no tool when none needed >= 80 %)
is met by the largest margin. The script prints it next to the chooser's
`DEFAULT_TOOL_THRESHOLD`; `--check` exits 1 when they differ by more than the
rounding to two decimals, so the committed value is always the one this data
gives.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from local_model import (
    SetError,
    Task,
    TaskSet,
    load_set,
    load_tools,
    offered_tools,
    set_paths,
    set_tool_files,
)
from tiller.models import ToolSpec
from tiller.models.local.chooser import DEFAULT_TOOL_THRESHOLD, ToolChooser
from tiller.models.local.tool_relevance import relevance_scorer
from tiller.models.local.weights import bundled_smollm2

# The sets the committed threshold was fitted on: every development set.
DEVELOPMENT_SETS = ",".join(
    (
        "development",
        "test1",
        "test2",
        "test3",
        "test4",
        "multi_development",
        "workspace_development",
        "unseen5_general",
        "unseen5_multi",
        "unseen5_workspace",
        "unseen6_general",
        "unseen6_multi",
        "unseen6_workspace",
        "unseen7_general",
        "unseen7_multi",
        "unseen7_workspace",
    )
)
NEEDED_BAR, NONE_BAR = 0.9, 0.8
STEP = 0.01


@dataclass(frozen=True)
class Ranked:
    task: Task
    best: str | None  # the best-ranked candidate tool
    relevance: float  # its relevance; -inf when there is none


def specs_for(task_set: TaskSet, root: Path) -> Callable[[Task], list[ToolSpec]]:
    """How a task's tools look to a model, effects included."""

    def specs(task: Task) -> list[ToolSpec]:
        tools = offered_tools(task.tools, task_set.tools, root).values()
        effects = [getattr(t, "effect", None) for t in tools]
        return [
            ToolSpec(t.name, t.description, t.parameters, None if e is None else str(e))
            for t, e in zip(tools, effects, strict=True)
        ]

    return specs


def ranked(tasks: Sequence[Task], specs_for: Callable[[Task], list[ToolSpec]]) -> list[Ranked]:
    scorer = relevance_scorer(bundled_smollm2())
    found: list[Ranked] = []
    for task in tasks:
        chooser = ToolChooser(scorer)  # one per decision, as the model makes them
        tool, relevance = chooser.best_candidate(task.prompt, specs_for(task))
        found.append(Ranked(task, tool.name if tool else None, relevance))
    return found


def rates(rows: Sequence[Ranked], threshold: float) -> tuple[float, float]:
    needed = [r for r in rows if r.task.expect]
    none = [r for r in rows if not r.task.expect]
    right = sum(r.best == r.task.expect[0].tool and r.relevance > threshold for r in needed)
    quiet = sum(r.relevance <= threshold for r in none)
    return right / max(len(needed), 1), quiet / max(len(none), 1)


def fit(rows: Sequence[Ranked]) -> dict[str, Any]:
    grid = [round(-2.0 + i * STEP, 2) for i in range(int(4.0 / STEP) + 1)]
    margins = []
    for t in grid:
        needed, none = rates(rows, t)
        margins.append(min(needed - NEEDED_BAR, none - NONE_BAR))
    best = max(margins)
    # The widest run of thresholds with the best margin; its middle is the fit.
    runs: list[list[float]] = []
    for t, margin in zip(grid, margins, strict=True):
        if margin == best:
            if runs and round(runs[-1][-1] + STEP, 2) == t:
                runs[-1].append(t)
            else:
                runs.append([t])
    widest = max(runs, key=len)
    fitted = round((widest[0] + widest[-1]) / 2, 2)
    needed, none = rates(rows, fitted)
    return {
        "threshold": fitted,
        "range": [widest[0], widest[-1]],
        "right_tool_when_needed": round(needed, 3),
        "no_tool_when_none_needed": round(none, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=DEVELOPMENT_SETS)
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    try:
        sets = [load_set(p, load_tools(set_tool_files(p))) for p in set_paths(args.sets)]
    except SetError as exc:
        print(exc, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as root:
        rows = [row for s in sets for row in ranked(s.tasks, specs_for(s, Path(root)))]
    report: dict[str, Any] = {
        "sets": args.sets,
        "tasks": len(rows),
        "fitted": fit(rows),
        "committed": DEFAULT_TOOL_THRESHOLD,
    }
    if args.details:
        report["details"] = [
            {
                "id": r.task.id,
                "prompt": r.task.prompt,
                "expected": [e.tool for e in r.task.expect],
                "best": r.best,
                "relevance": round(r.relevance, 3),
            }
            for r in rows
        ]
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    print()
    if args.check and abs(report["fitted"]["threshold"] - DEFAULT_TOOL_THRESHOLD) > 0.005:
        print(
            f"the committed threshold {DEFAULT_TOOL_THRESHOLD} is not the fitted "
            f"{report['fitted']['threshold']}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
