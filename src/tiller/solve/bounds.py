"""What a solve may spend, what it has spent, and when it must stop and escalate.

`ResourceBounds` holds every limit (None: unbounded). `SolveUsage` is what the
solve has used so far; it is part of the saved state, so the bounds hold across
a restart. `exceeded` names the first bound that is spent, as the reason of the
escalation that ends the solve: `max_iterations_reached`, `max_steps_reached`,
`time_limit`, `cost_limit`, `token_limit` or `no_progress` (no goal completed
or step succeeded within `no_progress_window_s`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True, frozen=True)
class ResourceBounds:
    max_iterations: int | None = 50
    max_depth: int | None = 3
    max_steps: int | None = None
    max_wall_time_s: float | None = None
    max_cost_usd: float | None = None
    max_tokens: int | None = None
    no_progress_window_s: float | None = 600.0
    # Transient failures (rate limited, timeout, network) of a plan are retried this often.
    retry_limit: int = 2
    retry_backoff_s: float = 1.0
    # How long a halting checkpoint or an approval waits when it sets no timeout.
    approval_timeout_s: float | None = 3600.0
    # A summary of the plan's progress every N steps (None: only at checkpoints).
    summary_every_n: int | None = 5
    max_steps_per_plan: int = 12

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if isinstance(value, int | float) and value < 0:
                raise ValueError(f"ResourceBounds({name}={value!r}): a bound cannot be negative")

    def to_data(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ResourceBounds:
        return cls(**data)


@dataclass(slots=True)
class SolveUsage:
    iterations: int = 0
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    # Seconds the solve has run, summed over every process that ran it.
    elapsed_s: float = 0.0
    # `elapsed_s` when the last goal was completed or step succeeded.
    last_progress_s: float = 0.0
    unpriced: bool = False  # some model's price is unknown: `cost_usd` is a lower bound

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_data(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SolveUsage:
        return cls(**data)


def exceeded(bounds: ResourceBounds, usage: SolveUsage) -> str | None:
    """The reason to escalate and stop, or None while every bound holds."""
    if bounds.max_iterations is not None and usage.iterations >= bounds.max_iterations:
        return "max_iterations_reached"
    if bounds.max_steps is not None and usage.steps >= bounds.max_steps:
        return "max_steps_reached"
    if bounds.max_wall_time_s is not None and usage.elapsed_s >= bounds.max_wall_time_s:
        return "time_limit"
    if bounds.max_cost_usd is not None and usage.cost_usd >= bounds.max_cost_usd:
        return "cost_limit"
    if bounds.max_tokens is not None and usage.tokens >= bounds.max_tokens:
        return "token_limit"
    window = bounds.no_progress_window_s
    if window is not None and usage.elapsed_s - usage.last_progress_s > window:
        return "no_progress"
    return None


@dataclass(slots=True)
class Escalation:
    reason: str
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict)
