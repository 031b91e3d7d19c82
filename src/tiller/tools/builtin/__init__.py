"""Built-in tools, each opt-in by name and confined to a workspace.

    tools = builtin_tools(["read_file", "edit_file", "shell"], "path/to/project")
    agent = Agent(model, tools=tools)

| name | effect | dry-run / rollback |
|---|---|---|
| `read_file` | reads | runs as usual in dry-run mode |
| `list_files` | reads | runs as usual in dry-run mode |
| `search` | reads | runs as usual in dry-run mode |
| `write_file` | writes locally | both |
| `edit_file` | writes locally | both |
| `shell` | acts externally | neither |

Every path goes through a descriptor walk (`tiller.tools.confined_fs`): each
component is opened relative to its parent directory's descriptor without
following links out, so nothing outside the root is read, written, listed or
searched, even while the tree changes underneath. `shell` runs its commands in
a bubblewrap `Sandbox` (the workspace the only writable place, no network, an
allow-listed environment); where bubblewrap is missing it refuses to be built unless
`shell_sandbox=False` opts in to an unsandboxed shell. The tool classes take
options (size caps, timeouts) for when the defaults do not fit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Literal

from tiller.errors import ConfigError
from tiller.tools.base import Tool
from tiller.tools.builtin.edit import EditFileTool
from tiller.tools.builtin.files import ListFilesTool, ReadFileTool, WriteFileTool
from tiller.tools.builtin.sandbox import Sandbox
from tiller.tools.builtin.search import SearchTool
from tiller.tools.builtin.shell import DEFAULT_SANDBOX, ShellTool
from tiller.tools.workspace import Workspace

BUILTIN_TOOLS: dict[str, Callable[[Workspace], Tool]] = {
    "read_file": ReadFileTool,
    "write_file": WriteFileTool,
    "edit_file": EditFileTool,
    "list_files": ListFilesTool,
    "search": SearchTool,
    "shell": ShellTool,
}


def builtin_tools(
    names: Iterable[str],
    workspace: Workspace | str | os.PathLike[str] = ".",
    *,
    shell_sandbox: Sandbox | Literal[False] = DEFAULT_SANDBOX,
    shell_env_allow: Iterable[str] = (),
) -> list[Tool]:
    """The built-in tools called `names` (in that order, once each), confined to `workspace`.

    `shell_sandbox` is where `shell` runs its commands (`Sandbox(network=True)` lets them
    reach the network; `False` runs them unsandboxed, with the user's own reach);
    `shell_env_allow` names environment variables its commands may see besides the usual.
    """
    if not isinstance(workspace, Workspace):
        workspace = Workspace(workspace)
    tools: list[Tool] = []
    seen: set[str] = set()
    for name in names:
        name = name.strip()
        if not name or name in seen:
            continue
        factory = BUILTIN_TOOLS.get(name)
        if factory is None:
            known = ", ".join(BUILTIN_TOOLS)
            raise ConfigError(f"unknown built-in tool {name!r}; the built-in tools are: {known}")
        seen.add(name)
        if factory is ShellTool:
            tools.append(ShellTool(workspace, sandbox=shell_sandbox, env_allow=shell_env_allow))
        else:
            tools.append(factory(workspace))
    return tools


__all__ = [
    "BUILTIN_TOOLS",
    "EditFileTool",
    "ListFilesTool",
    "ReadFileTool",
    "Sandbox",
    "SearchTool",
    "ShellTool",
    "Workspace",
    "WriteFileTool",
    "builtin_tools",
]
