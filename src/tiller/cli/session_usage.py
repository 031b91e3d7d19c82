"""What a chat session has spent so far: tokens and cost over its runs."""

from __future__ import annotations

from dataclasses import dataclass, field

from tiller.events import RunStats
from tiller.messages import Usage


@dataclass(slots=True)
class SessionUsage:
    """Totals over the runs of a session. Cost is summed over the runs that had a price."""

    usage: Usage = field(default_factory=Usage)
    runs: int = 0
    unpriced_runs: int = 0

    def add(self, stats: RunStats) -> None:
        self.runs += 1
        self.usage = self.usage + stats.usage
        if stats.usage.cost_usd is None:
            self.unpriced_runs += 1

    def describe(self) -> str:
        """One line, e.g. `120 in / 45 out tokens (165 total) over 2 runs · cost $0.0012`."""
        u = self.usage
        runs = f"{self.runs} run" + ("" if self.runs == 1 else "s")
        cache = ""
        if u.cache_read_tokens or u.cache_write_tokens:
            cache = f", cache {u.cache_read_tokens} read / {u.cache_write_tokens} written"
        return (
            f"{u.input_tokens} in / {u.output_tokens} out tokens{cache} "
            f"({u.total_tokens} total) over {runs} · cost {self._cost()}"
        )

    def _cost(self) -> str:
        cost = self.usage.cost_usd  # None until a run with a price is added
        if cost is None:
            return "n/a"
        text = f"${cost:.4f}"
        if self.unpriced_runs:
            runs = "run" if self.unpriced_runs == 1 else "runs"
            text += f" (+ n/a for {self.unpriced_runs} unpriced {runs})"
        return text
