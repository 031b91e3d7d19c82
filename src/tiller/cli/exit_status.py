"""The exit status of `tiller run`, from how its run ended."""

from __future__ import annotations

from tiller.cli.error_output import USAGE_EXIT
from tiller.events import RunStats

ANSWERED = 0
RUN_FAILED = 1
USAGE = USAGE_EXIT
INCOMPLETE = 3
INTERRUPTED = 130

# Shown in `tiller run --help` (a paragraph per line, as Typer keeps them).
EXIT_STATUS_HELP = (
    "Exit status: 0 the model answered; "
    "1 the run failed (a model or provider error, shown on stderr); "
    "2 bad usage (an option, model, tool, missing package or API key); "
    "3 the answer is incomplete (cut at the token limit, or the model refused); "
    "130 interrupted (Ctrl-C) or aborted."
)


def exit_status(stats: RunStats) -> int:
    """The status for a run that ended with `stats`."""
    reason = stats.stop_reason
    if reason == "error":
        return RUN_FAILED
    if reason in ("length", "refusal"):
        return INCOMPLETE
    if reason == "aborted":
        return INTERRUPTED
    return ANSWERED
