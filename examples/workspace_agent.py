"""An agent edits a file in a workspace and runs a command there; then the edit is undone.

Runs offline on `ScriptedModel`: the "model" replies with scripted tool calls;
the tools, the workspace confinement and the rollback are real. The documentation's
page on tools (docs/concepts/tools.md) shows this same code.

    python examples/workspace_agent.py [WORKSPACE_DIR]
"""

import asyncio
import sys
import tempfile
from pathlib import Path

from tiller import Agent, Governance, RollbackJournal, ScriptedModel, builtin_tools
from tiller.events import AgentEvent, ToolExecutionEnd
from tiller.testing import Reply, call


def show(event: AgentEvent) -> None:
    if isinstance(event, ToolExecutionEnd):
        print(f"[{event.tool_name}{' error' if event.is_error else ''}] {event.result.text}")


workspace = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
(workspace / "greet.sh").write_text('echo "hello, world"\n')
model = ScriptedModel(
    [
        Reply(calls=[call("edit_file", path="greet.sh", old_text="world", new_text="tiller")]),
        Reply(calls=[call("shell", command="sh greet.sh")]),
        Reply(calls=[call("read_file", path="../secret.txt")]),  # outside: refused
        Reply("greet.sh now greets tiller."),
    ]
)
journal = RollbackJournal()  # an undo for each edit, prepared before it runs
agent = Agent(
    model,
    tools=builtin_tools(["read_file", "edit_file", "shell"], workspace),
    governance=Governance(rollbacks=journal),
)
agent.subscribe(show)
result = agent.run_sync("Make greet.sh greet tiller, then run it.")
print(result.text)

asyncio.run(journal.roll_back())
print("after rollback:", (workspace / "greet.sh").read_text().strip())
