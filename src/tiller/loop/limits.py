"""Run limits: turns, total tokens, wall time and cost. Hitting one ends the run with a marker."""

from __future__ import annotations

from dataclasses import dataclass

from tiller.events import RunStats
from tiller.messages import ExtensionMessage


@dataclass(slots=True, frozen=True)
class Limits:
    """Bounds on one run; None means unbounded.

    A limit is checked before every model call, the first one included, so a limit
    of 0 means nothing runs: `Limits(max_turns=0)` ends the run at once with its
    marker and makes no model call. Negative limits are refused.
    """

    max_turns: int | None = None
    max_total_tokens: int | None = None
    max_wall_time_s: float | None = None
    max_cost_usd: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_turns", "max_total_tokens", "max_wall_time_s", "max_cost_usd"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(
                    f"Limits({name}={value!r}): a limit cannot be negative; "
                    "use None for no limit, or 0 to allow nothing"
                )


UNLIMITED = Limits()  # a run with these limits has nothing to check


def run_stopped_marker(limit: str, text: str, **figures: object) -> ExtensionMessage:
    return ExtensionMessage(
        kind="run_stopped", text=f"[Run stopped: {text}]", data={"limit": limit, **figures}
    )


def exceeded_limit(limits: Limits, stats: RunStats, elapsed_s: float) -> ExtensionMessage | None:
    """The marker for the first limit the run has reached, or None to go on."""
    if limits.max_turns is not None and stats.turns >= limits.max_turns:
        return run_stopped_marker(
            "max_turns",
            f"max_turns limit reached ({stats.turns} of {limits.max_turns} turns used)",
            used=stats.turns,
            max=limits.max_turns,
        )
    tokens = stats.usage.total_tokens
    if limits.max_total_tokens is not None and tokens >= limits.max_total_tokens:
        return run_stopped_marker(
            "max_total_tokens",
            f"max_total_tokens limit reached ({tokens} of {limits.max_total_tokens} tokens used)",
            used=tokens,
            max=limits.max_total_tokens,
        )
    if limits.max_wall_time_s is not None and elapsed_s >= limits.max_wall_time_s:
        return wall_time_marker(limits.max_wall_time_s, elapsed_s)
    cost = stats.usage.cost_usd
    if limits.max_cost_usd == 0 and cost is None:
        cost = 0.0  # a zero budget allows nothing, priced or not
    if limits.max_cost_usd is not None and cost is not None and cost >= limits.max_cost_usd:
        return run_stopped_marker(
            "max_cost_usd",
            f"max_cost_usd limit reached (${cost:.4f} of ${limits.max_cost_usd:.4f} spent)",
            used=cost,
            max=limits.max_cost_usd,
        )
    return None


def wall_time_marker(max_s: float, elapsed_s: float) -> ExtensionMessage:
    return run_stopped_marker(
        "max_wall_time_s",
        f"max_wall_time_s limit reached ({elapsed_s:.2f}s of {max_s:.2f}s elapsed)",
        used=round(elapsed_s, 3),
        max=max_s,
    )
