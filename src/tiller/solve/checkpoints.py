"""Checkpoints: where a solve tells a person what it is doing, or stops for one.

A `Checkpoint` is set on one of the solve's events (`CheckpointEvent`), in a mode
(`CheckpointMode`), with an optional timeout and an optional condition:

    Checkpoint("before_step", "pause", condition='"external" in step.effects')
    Checkpoint("loop_iteration_start", "require_approval", timeout="5m",
               condition="iteration_count > 20")

When the solve reaches an event, the checkpoints set on it are taken in the order
they were given (`checkpoints_for`); each whose condition holds over the event's
context (`Checkpoint.triggers`; no condition means always) fires. A `notify`
checkpoint is reported and the solve goes on; `pause` and `require_approval`
halt it (`halts`) until a person decides, or until the timeout: the checkpoint's
own, or the solve's approval timeout when it has none.

The condition is written in the language of `tiller.solve.conditions` and parsed
when the checkpoint is made, so a malformed one is rejected then, with its
position, rather than when the event comes.

Checkpoints can also be read from a TOML or YAML file (`load_checkpoints`): a
list under the key `checkpoints`, each entry with `event`, `mode`, and optionally
`timeout`, `condition`, `name` and `description`:

    # checkpoints.toml
    [[checkpoints]]
    name = "long solve"
    event = "loop_iteration_start"
    mode = "require_approval"
    timeout = "5m"
    condition = "iteration_count > 20"

    # checkpoints.yaml
    checkpoints:
      - event: before_step
        mode: pause
        condition: '"external" in step.effects'

A timeout is a number of seconds or a text such as `"300"`, `"300s"`, `"5m"`,
`"1h 30m"` (units `s`, `m`, `h`, `d`, also spelled out). Any mistake in a file (an
unknown event, mode or key, a bad timeout, a condition that does not parse) is a
`CheckpointFileError` that names the file, the entry (its index, from 0, and its
name) and the problem.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from tiller.errors import ConfigError
from tiller.solve.conditions import (
    Condition,
    ConditionEvaluationError,
    ConditionSyntaxError,
    parse_condition,
)

__all__ = [
    "Checkpoint",
    "CheckpointError",
    "CheckpointEvent",
    "CheckpointFileError",
    "CheckpointMode",
    "checkpoints_for",
    "checkpoints_from_data",
    "load_checkpoints",
    "parse_timeout",
]

_E = TypeVar("_E", bound=StrEnum)

# The keys of a checkpoint in a file.
KEYS = ("event", "mode", "timeout", "condition", "name", "description")


class CheckpointEvent(StrEnum):
    """The points of a solve where checkpoints can be set, in the order they occur in
    one turn of the solve, with the names each event's context holds for conditions:

    - `loop_iteration_start`: `goal_tree`, `iteration_count` (turns done so far)
    - `goal_selected`: `current_goal`
    - `plan_created`: `goal`, `plan`
    - `pre_execution`: `goal`, `plan`, `constraints`
    - `before_step`: `plan`, `goal`, `step`, `step_index` (from 1)
    - `after_step`: `plan`, `goal`, `step`, `step_index`, `step_result`
    - `post_execution`: `plan`, `goal`
    - `post_review_passed`: `goal`, `execution_result`, `review_result`
    - `after_goal_execution`: `current_goal`, `result`

    `before_step` and `after_step` come once for each step of the plan. A condition
    that reads a name its event's context lacks fails when evaluated, naming it."""

    LOOP_ITERATION_START = "loop_iteration_start"
    GOAL_SELECTED = "goal_selected"
    PLAN_CREATED = "plan_created"
    PRE_EXECUTION = "pre_execution"
    BEFORE_STEP = "before_step"
    AFTER_STEP = "after_step"
    POST_EXECUTION = "post_execution"
    POST_REVIEW_PASSED = "post_review_passed"
    AFTER_GOAL_EXECUTION = "after_goal_execution"


class CheckpointMode(StrEnum):
    """What a checkpoint does when it fires."""

    NOTIFY = "notify"  # tell a person, and go on
    PAUSE = "pause"  # stop until a person lets the solve go on, or stops it
    REQUIRE_APPROVAL = "require_approval"  # stop until a person approves or rejects

    @property
    def halts(self) -> bool:
        """Whether the solve stops and waits for a person: `pause` and
        `require_approval` do, `notify` does not."""
        return self is not CheckpointMode.NOTIFY


class CheckpointError(ConfigError, ValueError):
    """A checkpoint that cannot be made as given: an unknown event or mode, a bad
    timeout, a name or description that is not text."""


class CheckpointFileError(CheckpointError):
    """A checkpoint file that cannot be read or holds a mistake. `path` is the file;
    `index` (from 0) and `name` say which entry, when the mistake is in one;
    `problem` is what is wrong."""

    def __init__(
        self, path: str, problem: str, index: int | None = None, name: str | None = None
    ) -> None:
        self.path = path
        self.problem = problem
        self.index = index
        self.name = name
        where = path
        if index is not None:
            where += f": checkpoints[{index}]" + (f" ({name!r})" if name else "")
        super().__init__(f"{where}: {problem}")


def _choice(kind: type[_E], value: object, what: str) -> _E:
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    choices = [member.value for member in kind]
    shown = repr(value) if isinstance(value, str) else f"{value!r} ({type(value).__name__})"
    raise CheckpointError(
        f"unknown {what} {shown}{_close(str(value), choices)}; the {what}s are {', '.join(choices)}"
    )


_UNITS = {
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
}
_PART = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)", re.IGNORECASE)


def parse_timeout(value: float | str | None) -> float | None:
    """Seconds from a number of seconds or a text like `"300"`, `"300s"`, `"5m"`,
    `"1h 30m"`; `None` stays `None` (the solve's own approval timeout applies).
    Raises `CheckpointError` for anything else, or a timeout that is not above 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise CheckpointError(
            f"a timeout is a number of seconds or a text like '5m', not {type(value).__name__}"
        )
    if isinstance(value, str):
        seconds = 0.0
        at = 0
        text = value.strip()
        while at < len(text) and (part := _PART.match(text, at)):
            number, unit = part.groups()
            if unit.lower() not in _UNITS and not (unit == "" and part.end() == len(text)):
                break
            seconds += float(number) * _UNITS.get(unit.lower(), 1)
            at = part.end()
        if not text or at < len(text):
            raise CheckpointError(
                f"cannot read the timeout {value!r}: write a number of seconds, or a number "
                "with a unit (s, m, h, d), as in '300', '300s', '5m' or '1h 30m'"
            )
        value = seconds
    if not math.isfinite(value) or value <= 0:
        raise CheckpointError(f"a timeout is a number of seconds above 0, not {value!r}")
    return float(value)


def _text(value: object, what: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise CheckpointError(f"the {what} is text, not {value!r} ({type(value).__name__})")


@dataclass(frozen=True, init=False)
class Checkpoint:
    """A checkpoint: an event of the solve, a mode, a timeout in seconds (`None`: the
    solve's approval timeout), an optional condition over the event's context, and
    optionally a name and a description for people.

    The event and mode may be given as their names, the timeout as a text like
    `"5m"`, and the condition as text, which is parsed here: a malformed condition
    raises `ConditionSyntaxError` with its position, and an unknown event or mode or
    a bad timeout raises `CheckpointError`. A `notify` checkpoint does not wait, so
    it takes no timeout."""

    event: CheckpointEvent
    mode: CheckpointMode
    timeout: float | None
    condition: Condition | None
    name: str | None
    description: str | None

    def __init__(
        self,
        event: CheckpointEvent | str,
        mode: CheckpointMode | str,
        *,
        timeout: float | str | None = None,
        condition: Condition | str | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        event = _choice(CheckpointEvent, event, "event")
        mode = _choice(CheckpointMode, mode, "mode")
        seconds = parse_timeout(timeout)
        if seconds is not None and not mode.halts:
            raise CheckpointError(
                "a notify checkpoint does not wait, so it takes no timeout "
                "(use pause or require_approval to wait)"
            )
        if isinstance(condition, str):
            condition = parse_condition(condition)
        elif condition is not None and not isinstance(condition, Condition):
            raise CheckpointError(
                f"a condition is text, not {condition!r} ({type(condition).__name__})"
            )
        object.__setattr__(self, "event", event)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "timeout", seconds)
        object.__setattr__(self, "condition", condition)
        object.__setattr__(self, "name", _text(name, "name"))
        object.__setattr__(self, "description", _text(description, "description"))

    @property
    def halts(self) -> bool:
        """Whether the solve stops and waits for a person when this checkpoint fires."""
        return self.mode.halts

    @property
    def label(self) -> str:
        """The name, or the event and mode when there is none: for messages."""
        return self.name or f"{self.event.value} ({self.mode.value})"

    def triggers(self, context: Mapping[str, Any]) -> bool:
        """Whether the checkpoint fires over its event's context: always when it has
        no condition, else when the condition holds. A condition that cannot be
        evaluated over the context raises `ConditionEvaluationError`, naming the
        checkpoint."""
        if self.condition is None:
            return True
        try:
            return self.condition.evaluate(context)
        except ConditionEvaluationError as error:
            raise ConditionEvaluationError(f"checkpoint {self.label}: {error}") from None

    def to_data(self) -> dict[str, Any]:
        """The checkpoint as the data of one entry of a checkpoint file (keys left out
        when unset); `checkpoints_from_data` reads it back."""
        data: dict[str, Any] = {"event": self.event.value, "mode": self.mode.value}
        if self.timeout is not None:
            data["timeout"] = self.timeout
        if self.condition is not None:
            data["condition"] = self.condition.text
        if self.name is not None:
            data["name"] = self.name
        if self.description is not None:
            data["description"] = self.description
        return data


def checkpoints_for(
    event: CheckpointEvent | str, checkpoints: Iterable[Checkpoint]
) -> list[Checkpoint]:
    """The checkpoints set on `event`, in the order given."""
    wanted = _choice(CheckpointEvent, event, "event")
    return [checkpoint for checkpoint in checkpoints if checkpoint.event is wanted]


def checkpoints_from_data(data: object, *, source: str = "<data>") -> list[Checkpoint]:
    """Checkpoints from data shaped like a checkpoint file (`{"checkpoints": [...]}`,
    as loaded from TOML, YAML or JSON). Mistakes raise `CheckpointFileError`, with
    `source` standing for the file."""
    if not isinstance(data, Mapping):
        raise CheckpointFileError(
            source, f"expected a table with a 'checkpoints' list, found {_kind(data)}"
        )
    unknown = [key for key in data if key != "checkpoints"]
    if unknown:
        raise CheckpointFileError(
            source,
            f"unknown key {unknown[0]!r}{_close(unknown[0], ['checkpoints'])}; the "
            "file holds a list under 'checkpoints'",
        )
    entries = data.get("checkpoints", [])
    if not isinstance(entries, list):
        raise CheckpointFileError(source, f"'checkpoints' is a list, not {_kind(entries)}")
    found: list[Checkpoint] = []
    names: dict[str, int] = {}
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, Mapping) else None
        shown = name if isinstance(name, str) else None
        try:
            found.append(_entry(entry))
        except CheckpointError as error:
            raise CheckpointFileError(source, str(error), index, shown) from None
        if shown is not None:
            if shown in names:
                raise CheckpointFileError(
                    source,
                    f"the name {shown!r} is already used by checkpoints[{names[shown]}]",
                    index,
                    shown,
                )
            names[shown] = index
    return found


def _entry(entry: object) -> Checkpoint:
    if not isinstance(entry, Mapping):
        raise CheckpointError(f"an entry is a table of {', '.join(KEYS)}, not {_kind(entry)}")
    for key in entry:
        if key not in KEYS:
            raise CheckpointError(
                f"unknown key {key!r}{_close(str(key), KEYS)}; the keys are {', '.join(KEYS)}"
            )
    for key in ("event", "mode"):
        if key not in entry:
            raise CheckpointError(f"the {key!r} is missing")
    condition = entry.get("condition")
    if condition is not None and not isinstance(condition, str):
        raise CheckpointError(
            f"the condition is text, not {condition!r} ({type(condition).__name__}); "
            "put it in quotes"
        )
    try:
        return Checkpoint(
            entry["event"],
            entry["mode"],
            timeout=entry.get("timeout"),
            condition=condition,
            name=entry.get("name"),
            description=entry.get("description"),
        )
    except ConditionSyntaxError as error:
        raise CheckpointError(f"the condition does not parse: {error}") from None


def load_checkpoints(path: str | os.PathLike[str]) -> list[Checkpoint]:
    """The checkpoints of a TOML (`.toml`) or YAML (`.yaml`, `.yml`) file, in the
    order it lists them. A file that cannot be read or holds a mistake raises
    `CheckpointFileError`, naming the file, the entry and the problem."""
    file = Path(path)
    source = str(file)
    suffix = file.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise CheckpointFileError(source, "a checkpoint file is TOML (.toml) or YAML (.yaml, .yml)")
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CheckpointFileError(source, f"cannot read the file: {error}") from None
    if suffix == ".toml":
        try:
            data: object = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise CheckpointFileError(source, f"not valid TOML: {error}") from None
    else:
        data = _yaml(text, source)
    return checkpoints_from_data({} if data is None else data, source=source)


def _yaml(text: str, source: str) -> object:
    try:
        import yaml
    except ImportError:
        raise CheckpointFileError(
            source, "reading YAML needs PyYAML: pip install 'tiller[solve]'"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise CheckpointFileError(source, f"not valid YAML: {error}") from None


def _kind(value: object) -> str:
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"{value!r} ({type(value).__name__})"


def _close(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
