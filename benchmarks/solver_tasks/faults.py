"""A noisy model: the oracle's steps with faults planted, the same for the same (task, seed).

Each tool step of an answer gets a fault with probability `p` (0.2), one of:

- `wrong_arguments`: one argument is changed (an id to its neighbour, a number made
  larger, an address or a path to another, a word to another of its kind, a text cut
  to its first half);
- `skipped_step`: the step is left out;
- `false_done`: the answer stops at this step and claims that everything is done;
- `stall`: from this step on the model makes no progress: it repeats one read-only call
  forever (the step itself when it only reads, else the last read before it, else
  `list_products`). A stall is endless: every later answer of the same stream is that
  call again, so only stopping the run (an escalation) ends it.

The draws come from `random.Random(f"{task_id}:{seed}")`, one stream per (task, seed):
the same sequence of `Faults.perturb` calls gives the same faults in any process. A
caller that asks the model several times (a solver re-planning) calls `perturb` for
each answer, and each answer draws afresh from the stream.

`noisy_actions(task, seed)` is the whole run of a model that follows the oracle as
tool calls (questions first, then the steps, then "done"), with faults planted; it is
what `baseline.py` replays.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .tasks import Step, Task

KINDS = ("wrong_arguments", "skipped_step", "false_done", "stall")
DEFAULT_P = 0.2
DONE = "Done."
FALSE_DONE = "Done: everything you asked for is finished."
STALL_FALLBACK = Step("list_products", {}, "Read the stock levels")

# Words of a kind, for a wrong argument that is still a plausible value.
_SWAPS = {
    "gold": "standard",
    "standard": "gold",
    "low": "high",
    "normal": "low",
    "high": "normal",
    "placed": "shipped",
    "shipped": "delivered",
    "delivered": "placed",
}
_TRAILING_NUMBER = re.compile(r"(\d+)$")


@dataclass(frozen=True, slots=True)
class PlantedFault:
    position: int  # the index of the oracle step it replaced, in the answer it was planted in
    kind: str
    detail: str


@dataclass(slots=True)
class Perturbed:
    """One answer with its faults: the steps the noisy model gives, and how it ends."""

    steps: list[Step]
    ending: Literal["complete", "false_done", "stall"] = "complete"
    stall: Step | None = None  # the call repeated forever, when `ending` is "stall"
    faults: list[PlantedFault] = field(default_factory=list)


class Faults:
    """The seeded fault stream of one (task, seed); `planted` lists every fault so far."""

    def __init__(self, task_id: str, seed: int, p: float = DEFAULT_P) -> None:
        self.p = p
        self.rng = random.Random(f"{task_id}:{seed}")
        self.planted: list[PlantedFault] = []
        self.stalled: Step | None = None  # the call repeated forever, once a stall is planted

    def perturb(self, steps: Sequence[Step]) -> Perturbed:
        """The noisy model's version of an answer made of `steps`."""
        if self.stalled is not None:
            return Perturbed([], "stall", self.stalled)
        out = Perturbed([])
        last_read: Step | None = None
        for position, step in enumerate(steps):
            if step.effect == "read":
                last_read = step
            if self.rng.random() >= self.p:
                out.steps.append(step)
                continue
            kinds = KINDS if step.arguments else tuple(k for k in KINDS if k != "wrong_arguments")
            kind = self.rng.choice(kinds)
            if kind == "wrong_arguments":
                wrong, detail = self.wrong_arguments(step)
                out.steps.append(wrong)
            elif kind == "skipped_step":
                detail = f"skipped {step.tool}({step.arguments})"
            elif kind == "false_done":
                out.ending = "false_done"
                detail = f"claimed done before {step.tool}({step.arguments})"
            else:
                out.ending = "stall"
                out.stall = self.stalled = last_read or STALL_FALLBACK
                detail = f"stalled repeating {out.stall.tool}({out.stall.arguments})"
            fault = PlantedFault(position, kind, detail)
            out.faults.append(fault)
            self.planted.append(fault)
            if out.ending != "complete":
                break
        return out

    def wrong_arguments(self, step: Step) -> tuple[Step, str]:
        """The step with one argument changed, and what was changed."""
        name = self.rng.choice(sorted(step.arguments))
        old = step.arguments[name]
        new = _wrong_value(old, self.rng)
        wrong = Step(step.tool, {**step.arguments, name: new}, step.description)
        return wrong, f"{step.tool}.{name}: {old!r} → {new!r}"


def _wrong_value(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice([value + 1, value * 10]) if value else 1
    if not isinstance(value, str):
        return value
    if value in _SWAPS:
        return _SWAPS[value]
    number = _TRAILING_NUMBER.search(value)
    if number is not None and " " not in value:  # an id or a SKU: its neighbour
        digits = number.group(1)
        return value[: number.start()] + str(int(digits) + 1).zfill(len(digits))
    if "@" in value and " " not in value:
        local, _, domain = value.partition("@")
        return f"{local}@old.{domain}"
    if "/" in value and " " not in value:
        folder, _, name = value.rpartition("/")
        return f"{folder}/old_{name}"
    words = value.split(" ")
    if len(words) > 1:
        return " ".join(words[: len(words) // 2])
    return value + "x" if value else "?"


# ── a whole run of the oracle as tool calls ─────────────────────────────────


@dataclass(frozen=True, slots=True)
class Say:
    """Reply with this text and stop: a question for the user, or a last word."""

    text: str


@dataclass(frozen=True, slots=True)
class CallTool:
    tool: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Stall:
    """Make this call, again and again, forever."""

    tool: str
    arguments: Mapping[str, Any]


Action: TypeAlias = Say | CallTool | Stall


def oracle_actions(task: Task) -> list[Action]:
    """The oracle as a conversation: its questions, then every step, then "Done."."""
    return _actions(task, Perturbed(list(task.steps)))


def noisy_actions(
    task: Task, seed: int, p: float = DEFAULT_P
) -> tuple[list[Action], list[PlantedFault]]:
    """The oracle's conversation with faults planted in its steps (the questions are asked
    as the oracle asks them)."""
    perturbed = Faults(task.id, seed, p).perturb(task.steps)
    return _actions(task, perturbed), perturbed.faults


def _actions(task: Task, perturbed: Perturbed) -> list[Action]:
    actions: list[Action] = [Say(question) for question in task.questions]
    actions += [CallTool(s.tool, s.arguments) for s in perturbed.steps]
    if perturbed.ending == "stall" and perturbed.stall is not None:
        actions.append(Stall(perturbed.stall.tool, perturbed.stall.arguments))
    else:
        actions.append(Say(FALSE_DONE if perturbed.ending == "false_done" else DONE))
    return actions
