"""`tiller run --mcp`: a real MCP server's tools in a CLI run (scripted model)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.cli.cli_process import tiller
from tests.tools.mcp.conftest import PYTHON, SERVERS, is_gone, start_http_toolbox

TOOLBOX = shlex.join([PYTHON, str(SERVERS / "toolbox.py")])


def script(tmp_path: Path, *steps: object) -> str:
    (tmp_path / "script.json").write_text(json.dumps(list(steps)))
    return "scripted:script.json"


def test_a_stdio_server_tools_are_used_and_its_process_stopped(tmp_path: Path) -> None:
    model = script(
        tmp_path,
        {
            "calls": [
                {"name": "add", "arguments": {"a": 2, "b": 3}},
                {"name": "pid", "arguments": {}},
            ]
        },
        "The sum is 5.",
    )
    out = tiller(
        "run", "what is 2+3", "-m", model, "--mcp", TOOLBOX, "--json", "--yes", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    ends = {e["tool_name"]: e for e in events if e["type"] == "tool_execution_end"}
    assert ends["add"]["result"]["content"][0]["text"] == "5"
    assert not ends["add"]["is_error"]
    server_pid = int(ends["pid"]["result"]["content"][0]["text"])
    assert events[-1]["type"] == "agent_end"
    assert is_gone(server_pid)


def test_several_servers_and_an_http_url(tmp_path: Path) -> None:
    http = start_http_toolbox()
    try:
        model = script(
            tmp_path,
            {"calls": [{"name": "good", "arguments": {"n": 4}}]},
            {"calls": [{"name": "echo", "arguments": {"text": "over http"}}]},
            "done",
        )
        bad_schemas = shlex.join([PYTHON, str(SERVERS / "bad_schemas.py")])
        out = tiller(
            "run",
            "go",
            "-m",
            model,
            "--mcp",
            bad_schemas,
            "--mcp",
            http.spec.url,
            "--yes",
            cwd=tmp_path,
        )
    finally:
        http.stop()
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"
    # The broken tools were reported, the others offered and called.
    assert "warning: MCP server 'bad_schemas': tool 'bad_type' skipped:" in out.stderr
    assert "tool 'bad_minimum' skipped" in out.stderr
    assert "over http" in out.stderr  # the tool result, shown by the renderer


def test_a_server_that_cannot_start_is_one_clear_line(tmp_path: Path) -> None:
    model = script(tmp_path, "unused")
    out = tiller("run", "go", "-m", model, "--mcp", "/nonexistent/mcp-server --flag", cwd=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: could not start MCP server 'mcp-server'")


def test_tool_names_that_clash_are_refused(tmp_path: Path) -> None:
    model = script(tmp_path, "unused")
    out = tiller(
        "run", "go", "-m", model, "--mcp", TOOLBOX, "--mcp", TOOLBOX, "--yes", cwd=tmp_path
    )
    assert out.returncode == 2
    assert "its tool 'add' has the same name as another tool" in out.stderr
