"""A solve killed with SIGKILL at a random step resumes to the end state of an uninterrupted
run: a child process solves a shop task (a SQLite store, the shop in a JSON file) and is killed
as a step starts; the test resumes the solve in-process and checks the shop's call log."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from benchmarks.solver import kill_and_resume
from benchmarks.solver_tasks.tasks import TASKS

TASK = next(t for t in TASKS if t.id == "refund_and_email")


@pytest.mark.parametrize("run", [0, 1])
async def test_a_killed_solve_resumes_without_running_a_finished_step_twice(
    tmp_path: Path, run: int
) -> None:
    seed = int(os.environ.get("TILLER_KILL_SEED", random.randrange(1_000_000))) + run
    result = await kill_and_resume(TASK, seed, tmp_path)
    why = f"seed {seed} (TILLER_KILL_SEED={seed - run} to repeat): {result}"
    assert result.killed, why
    assert result.status == "done", why
    assert result.repeated_calls == [], why  # no step with effects ran twice
    assert result.same_end_state, why
    # A step with effects that was running is asked about, never re-run blindly; a
    # read-only one is simply run again.
    assert result.interrupted_asked == (result.killed_step_effect != "read"), why
