"""The solver's events are encoded and decoded like any other event."""

from __future__ import annotations

from tiller.codec import dumps, event_from_json
from tiller.events import CheckpointRequested, StepFinished


def test_solver_events_round_trip_through_the_codec() -> None:
    events = [
        CheckpointRequested(
            solve_id="s1",
            checkpoint="before_step",
            mode="require_approval",
            approval_id="a1",
            context={"step": {"tool": "send_email"}},
            loop_id="solve-s1",
        ),
        StepFinished(solve_id="s1", goal_id="g", step_index=2, status="done", output="ok"),
    ]
    for event in events:
        assert event_from_json(dumps(event)) == event
