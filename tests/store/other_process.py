"""Another process using the same store: `python -m tests.store.other_process ACTION URL …`.

Actions:
  claim URL SOLVE HOLDER SECONDS    claim the solve's lease and exit without releasing it
                                    (as a process killed while running would); prints
                                    `claimed` or `busy: MESSAGE` (exit 3)
  hold URL SOLVE HOLDER SECONDS     claim the lease, print `claimed`, then keep running
                                    (renewing nothing) until killed; HOLDER `auto` is this
                                    process's default holder id (host:pid:random)
  decide URL APPROVAL yes|no BY     decide the approval; prints the time it was decided
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from tiller.store import SolveBusyError, Store
from tiller.store.leases import default_holder

ROOT = Path(__file__).resolve().parents[2]


async def main(action: str, url: str, *args: str) -> int:
    async with await Store.open(url) as store:
        if action in ("claim", "hold"):
            solve_id, holder, seconds = args
            holder = default_holder() if holder == "auto" else holder
            try:
                await store.leases.claim(solve_id, holder, seconds=float(seconds))
            except SolveBusyError as exc:
                print(f"busy: {exc}")
                return 3
            print("claimed", flush=True)
            if action == "hold":
                await asyncio.sleep(600)
            return 0
        if action == "decide":
            approval_id, answer, by = args
            decided = await store.approvals.decide(approval_id, answer == "yes", decided_by=by)
            assert decided.decided_at is not None
            print(decided.decided_at.isoformat())
            return 0
    raise SystemExit(f"unknown action {action!r}")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run an action in another process and wait for it."""
    return subprocess.run(
        [sys.executable, "-m", "tests.store.other_process", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def start(*args: str) -> subprocess.Popen[str]:
    """Start an action in another process."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.other_process", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


if __name__ == "__main__":
    sys.exit(asyncio.run(main(*sys.argv[1:])))
