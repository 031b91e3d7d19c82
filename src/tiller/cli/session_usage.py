"""What a chat session has spent so far: tokens and cost over its runs."""

from __future__ import annotations

from dataclasses import dataclass, field

from tiller.cli.rendering import cost_text
from tiller.events import RunStats
from tiller.messages import Usage


@dataclass(slots=True)
class SessionUsage:
    """Totals over the runs of a session.

    The cost is known only while every model that spent tokens had a price: once one
    had none, the session's cost is unknown (and says which models), never the sum of
    the known part presented as the whole.
    """

    usage: Usage = field(default_factory=Usage)
    runs: int = 0
    unpriced_models: list[str] = field(default_factory=list)

    def add(self, stats: RunStats) -> None:
        self.runs += 1
        self.usage = self.usage + stats.usage
        for name in stats.unpriced_models:
            if name not in self.unpriced_models:
                self.unpriced_models.append(name)

    def describe(self) -> str:
        """One line, e.g. `120 in / 45 out tokens (165 total) over 2 runs · cost $0.0012`."""
        u = self.usage
        runs = f"{self.runs} run" + ("" if self.runs == 1 else "s")
        cache = ""
        if u.cache_read_tokens or u.cache_write_tokens:
            cache = f", cache {u.cache_read_tokens} read / {u.cache_write_tokens} written"
        cost = cost_text(u.cost_usd, self.unpriced_models)
        cost = cost if self.unpriced_models else f"cost {cost}"
        return (
            f"{u.input_tokens} in / {u.output_tokens} out tokens{cache} "
            f"({u.total_tokens} total) over {runs} · {cost}"
        )
