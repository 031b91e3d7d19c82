"""Models the service's tests name (`svc:echo`, `svc:writer`), registered as a provider."""

from __future__ import annotations

from tiller.messages import ToolResultMessage, UserMessage
from tiller.models.base import ModelRequest
from tiller.models.function import FunctionModel
from tiller.models.registry import register_provider
from tiller.models.scripted import Reply, Step, call


def _echo(request: ModelRequest) -> Step:
    last = request.messages[-1]
    return Reply(f"echo: {last.text}")


def _writer(request: ModelRequest) -> Step:
    """Writes note.txt with the user's text, then says how the write went."""
    last = request.messages[-1]
    if isinstance(last, UserMessage):
        return Reply(calls=[call("write_file", path="note.txt", content=last.text)])
    assert isinstance(last, ToolResultMessage)
    return Reply(f"{'failed' if last.is_error else 'done'}: {last.text}")


MODELS = {"echo": _echo, "writer": _writer}


def register() -> None:
    register_provider("svc", lambda name: FunctionModel(MODELS[name], name=name))


def _shell_once(request: ModelRequest) -> Step:
    """Runs the user's text as one shell command, then says it is done."""
    last = request.messages[-1]
    if isinstance(last, UserMessage):
        return Reply(calls=[call("shell", command=last.text)])
    assert isinstance(last, ToolResultMessage)
    return Reply(f"finished: {'error' if last.is_error else 'ok'}: {last.text[:200]}")


MODELS["shell_once"] = _shell_once


def _planner(request: ModelRequest) -> Step:
    """Plans the goal "write note.txt saying hi" as the goal solver asks for it."""
    tool = request.tools[0].name if request.tools else ""
    if tool == "propose_goals":
        check = {"kind": "file_contains", "path": "note.txt", "text": "hi"}
        goal = {
            "id": "note",
            "title": "Write the note",
            "acceptance_criteria": [{"description": "note.txt says hi", "check": check}],
        }
        return Reply(calls=[call("propose_goals", goals=[goal])])
    if tool == "submit_plan":
        step = {
            "description": "write it",
            "tool": "write_file",
            "arguments": {"path": "note.txt", "content": "hi\n"},
        }
        return Reply(calls=[call("submit_plan", steps=[step])])
    return Reply("done")


MODELS["planner"] = _planner
