"""Solves served: started, read with their goal tree, owned, resumed and cancelled."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.server.conftest import Users


async def solve_until(users: Users, solve_id: str, statuses: set[str]) -> dict[str, Any]:
    for _ in range(500):
        found: dict[str, Any] = (await users.ann.get(f"/solves/{solve_id}")).json()
        if found["status"] in statuses:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"solve {solve_id} did not reach {statuses}")


async def test_a_solve_runs_to_done_and_shows_its_goal_tree(users: Users) -> None:
    started = await users.ann.post(
        "/solves", json={"objective": "Write note.txt saying hi", "model": "svc:planner"}
    )
    assert started.status_code == 202, started.text
    solve_id = started.json()["id"]
    done = await solve_until(users, solve_id, {"done", "failed", "stopped"})
    assert done["status"] == "done"
    (goal,) = done["final"]["goals"]
    assert (goal["id"], goal["status"]) == ("note", "done")
    assert goal["evidence"][0]["met"] is True
    assert [s["id"] for s in (await users.ann.get("/solves")).json()] == [solve_id]
    assert (await users.bob.get(f"/solves/{solve_id}")).status_code == 404
    assert (await users.bob.get("/solves")).json() == []
    assert (await users.vic.post("/solves", json={"objective": "x"})).status_code == 403
    again = await users.ann.post(f"/solves/{solve_id}/resume")
    assert again.status_code == 409
    ended = await users.ann.post(f"/solves/{solve_id}/cancel")
    assert ended.status_code == 409
