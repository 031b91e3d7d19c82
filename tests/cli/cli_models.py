"""Test models for CLI subprocesses: `test:NAME` runs the script `NAME` below.

A CLI started with `test_models=True` (see `cli_process.tiller` and
`tmux_terminal.terminal`) registers the provider `test` before running, so a
test can name a script that a JSON file cannot express (a stream that breaks
mid-way, a refusal, an answer cut at the token limit).
"""

from __future__ import annotations

from collections.abc import Callable

from tiller.context.token_estimates import estimate_tokens
from tiller.errors import ContextOverflowError, RateLimitError
from tiller.messages import AssistantMessage, TextContent, Usage
from tiller.models.base import ModelRequest
from tiller.models.function import FunctionModel
from tiller.models.registry import register_provider
from tiller.models.scripted import Fail, Reply, ScriptedModel, Step, call

FAILED_ATTEMPTS = 4  # the default retry policy retries four times


def _retried_stream() -> list[Step]:
    """Each attempt streams part of an answer, then the connection drops; the last works."""
    failed = [
        Reply(
            f"broken fragment {n} ",
            chunk_size=4,
            fail=RateLimitError("the stream was cut", retry_after=0),
        )
        for n in range(1, FAILED_ATTEMPTS + 1)
    ]
    return [*failed, Reply("The real answer.", chunk_size=4)]


def _refusal() -> list[Step]:
    message = AssistantMessage(
        [TextContent("I can't")],
        "refusal",
        error_message="The request asks for instructions that could cause harm.",
    )
    return [message]


def _length() -> list[Step]:
    return [Reply("The answer goes on and on", stop_reason="length")]


def _unpriced() -> list[Step]:
    """Two replies that spent tokens: one with a price, one without."""
    return [
        Reply(
            calls=[call("write_file", path="a.txt", content="a")], usage=Usage(10, 5, cost_usd=0.5)
        ),
        Reply("Hi.", usage=Usage(10, 5)),
    ]


def _write_file() -> list[Step]:
    return [
        Reply(calls=[call("write_file", path="notes.txt", content="new text\n")]),
        "Done.",
    ]


def _shell() -> list[Step]:
    return [Reply(calls=[call("shell", command="echo ran > ran.txt")]), "Done."]


def _slow_sync_tool() -> list[Step]:
    return [Reply(calls=[call("block")]), "Done."]


SCRIPTS: dict[str, Callable[[], list[Step]]] = {
    "retried_stream": _retried_stream,
    "refusal": _refusal,
    "length": _length,
    "unpriced": _unpriced,
    "write_file": _write_file,
    "shell": _shell,
    "slow_sync_tool": _slow_sync_tool,
}


# A model whose context window holds 300 tokens: a longer prompt cannot be sent.
SMALL_WINDOW = 300


def _small_window(request: ModelRequest) -> Step:
    """Answers like a server with a 300-token window: a longer request is refused."""
    tokens = sum(estimate_tokens(m.text) for m in request.messages if hasattr(m, "text"))
    if tokens > SMALL_WINDOW:
        return Fail(
            ContextOverflowError(
                f"prompt is too long: {tokens} tokens > {SMALL_WINDOW} maximum",
                requested_tokens=tokens,
                context_window=SMALL_WINDOW,
            )
        )
    return "It fits."


def _solver_oracle() -> FunctionModel:
    """Answers the solver's structured requests (`tests/solve/oracle.py`): one goal,
    writing report.md in the workspace, checked by the file's content."""
    from tests.solve.oracle import Oracle, goal, tool_step

    report = goal(
        "report", "Write the report", path="report.md", text="Total: 42", kind="file_contains"
    )
    plan = {"steps": [tool_step("write_file", path="report.md", content="Total: 42\n")]}
    return Oracle([report], {"Write the report": [plan]}).model


def register() -> None:
    def model(name: str) -> ScriptedModel | FunctionModel:
        if name == "small_window":
            return FunctionModel(_small_window, name=name, context_window=SMALL_WINDOW)
        if name == "solver_oracle":
            return _solver_oracle()
        return ScriptedModel(SCRIPTS[name](), name=name)

    register_provider("test", model)
