"""Checkpoints: events and modes, conditions checked when made, which fire, and files."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest

from tiller.solve.checkpoints import (
    Checkpoint,
    CheckpointError,
    CheckpointEvent,
    CheckpointFileError,
    CheckpointMode,
    checkpoints_for,
    checkpoints_from_data,
    load_checkpoints,
    parse_timeout,
)
from tiller.solve.conditions import (
    ConditionEvaluationError,
    ConditionSyntaxError,
    parse_condition,
)


def test_the_nine_events_in_the_order_a_solve_meets_them() -> None:
    assert [event.value for event in CheckpointEvent] == [
        "loop_iteration_start",
        "goal_selected",
        "plan_created",
        "pre_execution",
        "before_step",
        "after_step",
        "post_execution",
        "post_review_passed",
        "after_goal_execution",
    ]


def test_pause_and_require_approval_halt_and_notify_does_not() -> None:
    assert [mode.value for mode in CheckpointMode] == ["notify", "pause", "require_approval"]
    assert not CheckpointMode.NOTIFY.halts
    assert CheckpointMode.PAUSE.halts
    assert CheckpointMode.REQUIRE_APPROVAL.halts
    assert not Checkpoint("post_execution", "notify").halts
    assert Checkpoint("post_execution", "pause").halts
    assert Checkpoint("post_execution", "require_approval").halts


def test_a_checkpoint_made_in_python_from_names_or_members() -> None:
    by_name = Checkpoint(
        "loop_iteration_start",
        "require_approval",
        timeout="5m",
        condition="iteration_count > 20",
        name="long solve",
        description="ask before a long solve goes on",
    )
    by_member = Checkpoint(
        CheckpointEvent.LOOP_ITERATION_START,
        CheckpointMode.REQUIRE_APPROVAL,
        timeout=300,
        condition=parse_condition("iteration_count>20"),
        name="long solve",
        description="ask before a long solve goes on",
    )
    assert by_name == by_member
    assert by_name.event is CheckpointEvent.LOOP_ITERATION_START
    assert by_name.mode is CheckpointMode.REQUIRE_APPROVAL
    assert by_name.timeout == 300.0
    assert by_name.condition is not None
    assert by_name.condition.text == "iteration_count > 20"
    assert by_name.label == "long solve"
    assert Checkpoint("before_step", "pause").label == "before_step (pause)"
    assert Checkpoint("before_step", "pause").timeout is None
    assert hash(by_name) == hash(by_member)


def test_a_checkpoint_is_immutable_and_replace_makes_a_checked_copy() -> None:
    checkpoint = Checkpoint("before_step", "pause", condition="step_index > 2")
    with pytest.raises(AttributeError):
        checkpoint.mode = CheckpointMode.NOTIFY  # type: ignore[misc]
    longer = dataclasses.replace(checkpoint, timeout=60.0)
    assert longer.timeout == 60.0
    assert longer.condition == checkpoint.condition
    with pytest.raises(CheckpointError, match="does not wait"):
        dataclasses.replace(longer, mode=CheckpointMode.NOTIFY)


def test_a_malformed_condition_is_rejected_when_the_checkpoint_is_made() -> None:
    with pytest.raises(ConditionSyntaxError, match="found 'step' at column 12") as caught:
        Checkpoint("before_step", "pause", condition='"external" step.effects')
    assert caught.value.column == 12
    assert "^" in str(caught.value)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"event": "before_stpe", "mode": "pause"}, r"unknown event 'before_stpe' \(did you mean "),
        (
            {"event": "before_step", "mode": "ask"},
            r"unknown mode 'ask'; the modes are notify, pause",
        ),
        ({"event": 3, "mode": "pause"}, r"unknown event 3 \(int\)"),
        ({"event": "before_step", "mode": "pause", "timeout": "soon"}, "cannot read the timeout"),
        ({"event": "before_step", "mode": "pause", "timeout": 0}, "above 0"),
        ({"event": "before_step", "mode": "notify", "timeout": 5}, "does not wait"),
        ({"event": "before_step", "mode": "pause", "name": 5}, r"the name is text, not 5"),
        ({"event": "before_step", "mode": "pause", "condition": 5}, "a condition is text"),
    ],
)
def test_bad_arguments_are_rejected(arguments: dict[str, Any], message: str) -> None:
    event, mode = arguments.pop("event"), arguments.pop("mode")
    with pytest.raises(CheckpointError, match=message):
        Checkpoint(event, mode, **arguments)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, None),
        (300, 300.0),
        (1.5, 1.5),
        ("300", 300.0),
        ("300s", 300.0),
        ("5m", 300.0),
        ("5 min", 300.0),
        ("1.5m", 90.0),
        ("2h", 7200.0),
        ("1h 30m", 5400.0),
        ("1h30m15s", 5415.0),
        ("1 day", 86400.0),
        (" 10 seconds ", 10.0),
        ("5M", 300.0),
    ],
)
def test_timeouts(value: float | str | None, seconds: float | None) -> None:
    assert parse_timeout(value) == seconds


@pytest.mark.parametrize(
    "value",
    [
        "",
        "soon",
        "5 parsecs",
        "m",
        "5m soon",
        "-5",
        "0",
        "0s",
        "5 5",
        True,
        [5],
        -1.0,
        float("inf"),
        float("nan"),
    ],
)
def test_bad_timeouts(value: Any) -> None:
    with pytest.raises(CheckpointError):
        parse_timeout(value)


def test_a_checkpoint_without_a_condition_always_triggers() -> None:
    assert Checkpoint("post_execution", "require_approval").triggers({})
    assert Checkpoint("post_execution", "require_approval").triggers({"plan": None})


def test_a_checkpoint_triggers_when_its_condition_holds() -> None:
    checkpoint = Checkpoint("before_step", "pause", condition='"external" in step.effects')
    assert checkpoint.triggers({"step": {"effects": ["external"]}})
    assert not checkpoint.triggers({"step": {"effects": ["read"]}})


def test_a_condition_that_cannot_be_evaluated_raises_naming_the_checkpoint() -> None:
    checkpoint = Checkpoint("before_step", "pause", condition="step.effects", name="risky")
    with pytest.raises(ConditionEvaluationError, match=r"checkpoint risky: unknown name 'step'"):
        checkpoint.triggers({"plan": {}})


def test_checkpoints_for_an_event_keep_their_order() -> None:
    first = Checkpoint("before_step", "notify", name="first")
    other = Checkpoint("after_step", "pause", name="other")
    second = Checkpoint("before_step", "pause", name="second")
    everything = [first, other, second]
    assert checkpoints_for("before_step", everything) == [first, second]
    assert checkpoints_for(CheckpointEvent.AFTER_STEP, everything) == [other]
    assert checkpoints_for("post_execution", everything) == []
    with pytest.raises(CheckpointError, match="unknown event"):
        checkpoints_for("before_steps", everything)


# ── Files ──────────────────────────────────────────────────────────────────────

TOML = """
[[checkpoints]]
name = "long solve"
event = "loop_iteration_start"
mode = "require_approval"
timeout = "300s"
condition = "iteration_count > 20"

[[checkpoints]]
event = "before_step"
mode = "pause"
condition = '"external" in step.effects'

[[checkpoints]]
event = "post_execution"
mode = "require_approval"
timeout = 120
description = "always, before a plan is complete"
"""

YAML = """
checkpoints:
  - name: long solve
    event: loop_iteration_start
    mode: require_approval
    timeout: 300s
    condition: iteration_count > 20
  - event: before_step
    mode: pause
    condition: '"external" in step.effects'
  - event: post_execution
    mode: require_approval
    timeout: 120
    description: always, before a plan is complete
"""

EXPECTED = [
    Checkpoint(
        "loop_iteration_start",
        "require_approval",
        timeout=300,
        condition="iteration_count > 20",
        name="long solve",
    ),
    Checkpoint("before_step", "pause", condition='"external" in step.effects'),
    Checkpoint(
        "post_execution",
        "require_approval",
        timeout=120,
        description="always, before a plan is complete",
    ),
]


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "text"), [("c.toml", TOML), ("c.yaml", YAML), ("c.yml", YAML)])
def test_a_file_of_checkpoints(tmp_path: Path, name: str, text: str) -> None:
    assert load_checkpoints(write(tmp_path, name, text)) == EXPECTED
    assert load_checkpoints(str(tmp_path / name)) == EXPECTED


def test_an_empty_file_has_no_checkpoints(tmp_path: Path) -> None:
    assert load_checkpoints(write(tmp_path, "c.toml", "")) == []
    assert load_checkpoints(write(tmp_path, "c.yaml", "")) == []
    assert load_checkpoints(write(tmp_path, "d.yaml", "checkpoints: []")) == []


def test_checkpoints_round_trip_through_their_data() -> None:
    data = {"checkpoints": [checkpoint.to_data() for checkpoint in EXPECTED]}
    assert checkpoints_from_data(data) == EXPECTED
    assert EXPECTED[1].to_data() == {
        "event": "before_step",
        "mode": "pause",
        "condition": '"external" in step.effects',
    }


def entry(**fields: Any) -> str:
    lines = [f"    {key}: {value}" for key, value in fields.items()]
    return "  - " + "\n".join(lines).lstrip()


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            [
                entry(event="before_step", mode="pause"),
                entry(name="bad", event="befor_step", mode="pause"),
            ],
            r"c.yaml: checkpoints\[1\] \('bad'\): unknown event 'befor_step' "
            r"\(did you mean 'before_step'\?\); the events are loop_iteration_start, ",
        ),
        (
            [entry(event="before_step", mode="halt")],
            r"c.yaml: checkpoints\[0\]: unknown mode 'halt'; the modes are notify, pause, "
            r"require_approval",
        ),
        (
            [entry(name="t", event="before_step", mode="pause", timeout="soon")],
            r"checkpoints\[0\] \('t'\): cannot read the timeout 'soon'",
        ),
        (
            [entry(event="before_step", mode="pause", timeout=-3)],
            r"checkpoints\[0\]: a timeout is a number of seconds above 0, not -3",
        ),
        (
            [entry(name="k", event="before_step", mode="pause", conditon="true")],
            r"checkpoints\[0\] \('k'\): unknown key 'conditon' \(did you mean 'condition'\?\); "
            r"the keys are event, mode, timeout, condition, name, description",
        ),
        (
            [entry(name="c", event="before_step", mode="pause", condition="'step.effects <'")],
            r"checkpoints\[0\] \('c'\): the condition does not parse: expected a value, found "
            r"the end of the condition at column 15\n  step.effects <\n                \^",
        ),
        (
            [entry(event="before_step", mode="pause", condition="true")],
            r"the condition is text, not True \(bool\); put it in quotes",
        ),
        ([entry(event="before_step")], r"checkpoints\[0\]: the 'mode' is missing"),
        ([entry(mode="pause")], r"checkpoints\[0\]: the 'event' is missing"),
        (["  - before_step"], r"checkpoints\[0\]: an entry is a table of event, mode"),
        (
            [entry(name="x", event="before_step", mode="pause")] * 2,
            r"checkpoints\[1\] \('x'\): the name 'x' is already used by checkpoints\[0\]",
        ),
        (
            [entry(event="before_step", mode="notify", timeout="5m")],
            r"checkpoints\[0\]: a notify checkpoint does not wait, so it takes no timeout",
        ),
    ],
)
def test_each_mistake_in_a_file_names_the_file_the_entry_and_the_problem(
    tmp_path: Path, entries: list[str], message: str
) -> None:
    path = write(tmp_path, "c.yaml", "checkpoints:\n" + "\n".join(entries) + "\n")
    with pytest.raises(CheckpointFileError, match=message) as caught:
        load_checkpoints(path)
    assert caught.value.path == str(path)


def test_the_entry_of_a_mistake_is_given_by_index_and_name(tmp_path: Path) -> None:
    text = TOML + '\n[[checkpoints]]\nname = "fourth"\nevent = "after_step"\nmode = "wait"\n'
    with pytest.raises(CheckpointFileError) as caught:
        load_checkpoints(write(tmp_path, "c.toml", text))
    error = caught.value
    assert (error.index, error.name) == (3, "fourth")
    assert error.problem.startswith("unknown mode 'wait'")
    assert str(error).startswith(f"{tmp_path / 'c.toml'}: checkpoints[3] ('fourth'): unknown mode")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("c.toml", "checkpoints = [", r"c.toml: not valid TOML: "),
        ("c.yaml", "checkpoints: [", r"c.yaml: not valid YAML: "),
        (
            "c.toml",
            "checkpoint = []",
            r"c.toml: unknown key 'checkpoint' \(did you mean 'checkpoints'",
        ),
        ("c.yaml", "- event: before_step", r"c.yaml: expected a table with a 'checkpoints' list"),
        ("c.yaml", "checkpoints: {event: before_step}", r"'checkpoints' is a list, not a table"),
        ("c.toml", "checkpoints = 3", r"'checkpoints' is a list, not 3 \(int\)"),
        ("c.json", "{}", r"c.json: a checkpoint file is TOML \(.toml\) or YAML"),
    ],
)
def test_a_file_that_is_not_a_checkpoint_file(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    with pytest.raises(CheckpointFileError, match=message):
        load_checkpoints(write(tmp_path, name, text))


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CheckpointFileError, match=r"missing.toml: cannot read the file"):
        load_checkpoints(tmp_path / "missing.toml")


def test_yaml_needs_pyyaml_and_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, "c.yaml", YAML)
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(CheckpointFileError, match=r"needs PyYAML: pip install 'tiller\[solve\]'"):
        load_checkpoints(path)
    assert load_checkpoints(write(tmp_path, "c.toml", TOML)) == EXPECTED


def test_checkpoint_errors_are_value_errors() -> None:
    assert issubclass(CheckpointFileError, CheckpointError)
    assert issubclass(CheckpointError, ValueError)
