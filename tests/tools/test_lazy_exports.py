"""Sub-agents and MCP are exported from `tiller` without loading the `mcp` SDK."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import tiller
from tiller.agent import SubAgentTool
from tiller.tools import MCPTool
from tiller.tools.mcp import MCPConnection, parse_server_spec
assert tiller.SubAgentTool is SubAgentTool
assert tiller.MCPConnection is MCPConnection
assert MCPTool.__name__ == "MCPTool"
parse_server_spec("python server.py")
print(sorted({"mcp", "jsonschema", "httpx2", "anyio"} & set(sys.modules)))
"""


def test_exports_load_without_the_mcp_sdk() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"
