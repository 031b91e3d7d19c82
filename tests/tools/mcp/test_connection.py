"""`MCPConnection` and `MCPTool` against real MCP servers, over stdio and Streamable HTTP."""

from __future__ import annotations

import asyncio
import base64
import logging

import pytest

from tests.helpers import Recorder, config
from tests.tools.mcp.conftest import PYTHON, HttpToolbox, eventually, is_gone, stdio_server
from tiller import Agent, CancelToken
from tiller.errors import ToolError
from tiller.events import Progress, ToolExecutionEnd
from tiller.loop import agent_loop
from tiller.loop.tool_execution import ABORTED_TEXT
from tiller.messages import ImageContent, TextContent, ToolResultMessage
from tiller.models import Reply, ScriptedModel, call
from tiller.tools.base import Tool, ToolContext
from tiller.tools.mcp import MCPConnectError, MCPConnection, MCPServerSpec, MCPTool, StdioServer

# Generous: a bound that turns a hang into a failure, never a timing assertion.
NO_HANG_S = 30


def ctx() -> ToolContext:
    return ToolContext("call_1", "mcp", CancelToken())


def tools_of(connection: MCPConnection) -> list[Tool]:
    return list(connection.tools)


def by_name(connection: MCPConnection) -> dict[str, MCPTool]:
    return {t.name: t for t in connection.tools}


async def test_lists_the_servers_tools(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox) as server:
        tools = by_name(server)
        assert server.connected
        assert server.instructions == "Test tools."
        assert server.skipped == []
        assert {"add", "echo", "refuse", "picture", "crash", "stall"} <= set(tools)
        add = tools["add"]
        assert add.description == "Add two integers."
        assert add.parameters["type"] == "object"
        assert add.parameters["required"] == ["a", "b"]
        assert add.parameters["properties"]["a"]["type"] == "integer"
        # A name providers refuse is made safe; the server is still called by its own name.
        lookup = tools["lookup_word"]
        assert lookup.remote_name == "lookup.word"
        assert (await lookup.execute({"word": "vole"}, ctx())).text == "vole: a small rodent"
    assert not server.connected


async def test_results_text_structured_error_image_and_resource(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox) as server:
        tools = by_name(server)

        added = await tools["add"].execute({"a": 2, "b": 3}, ctx())
        assert added.text == "5"
        assert not added.is_error
        assert added.details == {"structured_content": {"result": 5}}

        refused = await tools["refuse"].execute({"reason": "not today"}, ctx())
        assert refused.is_error
        assert "not today" in refused.text

        (image,) = (await tools["picture"].execute({}, ctx())).content
        assert isinstance(image, ImageContent)
        assert image.mime_type == "image/png"
        assert base64.b64decode(image.data).startswith(b"\x89PNG")

        weather = await tools["forecast"].execute({"city": "Lyon"}, ctx())
        assert weather.details == {"structured_content": {"city": "Lyon", "rain_mm": 2.5}}
        assert '"rain_mm": 2.5' in weather.text

        document = await tools["document"].execute({}, ctx())
        assert [b.text for b in document.content if isinstance(b, TextContent)] == [
            "see the notes",
            "[resource <file:///notes.txt> (text/plain)]\nline one",
        ]


async def test_arguments_are_checked_against_the_schema_before_the_call(
    toolbox: MCPServerSpec,
) -> None:
    async with MCPConnection(toolbox) as server:
        add = by_name(server)["add"]
        result = await add.execute({"a": "two"}, ctx())
        assert result.is_error
        text = result.text
        assert text.startswith("Invalid arguments for tool 'add':")
        assert "- a: 'two' is not of type 'integer'" in text
        assert "'b' is a required property" in text
        assert text.endswith("Fix the arguments to match the tool's schema and call it again.")


async def test_an_agent_calls_an_mcp_tool_end_to_end(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox) as server:
        model = ScriptedModel(
            [Reply(calls=[call("add", a=20, b=22), call("echo", text="hi")]), "It is 42."]
        )
        agent = Agent(model, tools=server.tools)
        ends: list[ToolExecutionEnd] = []
        agent.subscribe(lambda e: ends.append(e) if isinstance(e, ToolExecutionEnd) else None)
        result = await agent.run("What is 20 + 22?")

        assert result.text == "It is 42."
        results = [m for m in result.messages if isinstance(m, ToolResultMessage)]
        assert [(r.tool_name, r.text, r.is_error) for r in results] == [
            ("add", "42", False),
            ("echo", "hi", False),
        ]
        # The model was offered the server's tools with their schemas.
        offered = {t.name: t for t in model.requests[0].tools}
        assert offered["add"].parameters == by_name(server)["add"].parameters
        # Both ran at once (the default strategy), so they may end in either order.
        assert sorted(e.tool_name for e in ends) == ["add", "echo"]
        model.assert_complete()


async def test_progress_notifications_become_progress_events(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox) as server:
        model = ScriptedModel([Reply(calls=[call("count", steps=3)]), "done"])
        rec = Recorder()
        new = await agent_loop("count", [], config(model, tools_of(server)), rec)
        result = next(m for m in new if isinstance(m, ToolResultMessage))
        assert result.text == "counted to 3"
        assert [p.text for p in rec.of(Progress)] == ["1/3 step 1", "2/3 step 2", "3/3 step 3"]


async def test_a_hanging_call_times_out_and_the_server_stays_usable(
    toolbox: MCPServerSpec,
) -> None:
    async with MCPConnection(toolbox, call_timeout_s=0.5) as server:
        tools = by_name(server)
        stalled = await asyncio.wait_for(tools["stall"].execute({}, ctx()), NO_HANG_S)
        assert stalled.is_error
        assert stalled.text.startswith("MCP tool 'stall' (server '")
        assert "did not answer within 0.5s; the call was cancelled" in stalled.text
        assert (await tools["add"].execute({"a": 1, "b": 1}, ctx())).text == "2"


async def test_a_hanging_call_in_a_run_is_an_error_result(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox, call_timeout_s=0.5) as server:
        model = ScriptedModel([Reply(calls=[call("stall")]), "gave up waiting"])
        new = await asyncio.wait_for(
            agent_loop("go", [], config(model, tools_of(server))), NO_HANG_S
        )
        result = next(m for m in new if isinstance(m, ToolResultMessage))
        assert result.is_error
        assert "did not answer within 0.5s" in result.text


async def test_error_results_are_errors_in_their_events_too(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox, call_timeout_s=0.5) as server:
        calls = [call("refuse", reason="not today"), call("stall"), call("add", a="x", b=1)]
        model = ScriptedModel([Reply(calls=calls), "noted"])
        rec = Recorder()
        await asyncio.wait_for(
            agent_loop("go", [], config(model, tools_of(server)), rec), NO_HANG_S
        )
        ends = rec.of(ToolExecutionEnd)
        assert len(ends) == 3
        # The event's flag and its result's agree (both go to --json output).
        assert [(e.is_error, e.result.is_error) for e in ends] == [(True, True)] * 3


async def test_a_huge_result_reaches_the_model_capped(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox) as server:
        model = ScriptedModel([Reply(calls=[call("flood", lines=50_000, width=100)]), "seen"])
        new = await asyncio.wait_for(
            agent_loop("go", [], config(model, tools_of(server))), NO_HANG_S
        )
        result = next(m for m in new if isinstance(m, ToolResultMessage))
        sent = model.requests[1].messages[-1]
        assert sent == result
        text = result.text
        assert len(text) < 30_000  # 5 MB came back from the server
        assert text.startswith("0000001 xxx")
        assert "\n\n[... 49800 lines truncated ...]\n\n0049901 xxx" in text
        assert text.endswith("0050000 " + "x" * 92)
        assert result.details is not None
        assert "structured_content" not in result.details


async def test_a_server_printing_garbage_on_stdout_fails_at_once_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG), pytest.raises(MCPConnectError) as caught:
        # The connect timeout is only a bound: the failure comes at the first bad line.
        await asyncio.wait_for(
            MCPConnection(stdio_server("garbage.py"), connect_timeout_s=NO_HANG_S).connect(),
            NO_HANG_S * 2,
        )
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith("MCP server 'garbage' broke the protocol: it sent ")
    assert "'Weather service v1.2 starting' on stdout" in text
    assert "did not finish connecting" not in text
    # The SDK's tracebacks are not shown; they stay at DEBUG on tiller.mcp.
    sdk = [r for r in caplog.records if r.name.startswith("mcp.")]
    assert [r for r in sdk if r.levelno >= logging.WARNING] == []
    kept = [r for r in caplog.records if r.name == "tiller.mcp" and r.exc_info]
    assert kept
    assert {r.levelno for r in kept} == {logging.DEBUG}
    assert "Failed to parse JSONRPC message" in kept[0].getMessage()


async def test_aborting_a_run_cancels_the_mcp_call(toolbox: MCPServerSpec) -> None:
    async with MCPConnection(toolbox) as server:
        model = ScriptedModel([Reply(calls=[call("stall")])])
        rec = Recorder()
        cancel = CancelToken()
        started = asyncio.Event()

        def sink(event: object) -> None:
            rec(event)  # type: ignore[arg-type]
            if getattr(event, "type", "") == "tool_execution_start":
                started.set()

        run = asyncio.create_task(
            agent_loop("go", [], config(model, tools_of(server)), sink, cancel)
        )
        await asyncio.wait_for(started.wait(), NO_HANG_S)
        cancel.cancel()
        new = await asyncio.wait_for(run, NO_HANG_S)
        result = next(m for m in new if isinstance(m, ToolResultMessage))
        assert result.text == ABORTED_TEXT
        # The connection survives a cancelled call.
        assert (await by_name(server)["add"].execute({"a": 1, "b": 2}, ctx())).text == "3"


async def test_a_stdio_server_that_dies_mid_call_gives_an_error_result() -> None:
    async with MCPConnection(stdio_server("toolbox.py")) as server:
        tools = by_name(server)
        pid = int((await tools["pid"].execute({}, ctx())).text)
        model = ScriptedModel(
            [Reply(calls=[call("crash")]), Reply(calls=[call("add", a=1, b=2)]), "ok"]
        )
        new = await asyncio.wait_for(
            agent_loop("go", [], config(model, tools_of(server))), NO_HANG_S
        )
        crashed, after = [m for m in new if isinstance(m, ToolResultMessage)]
        assert crashed.is_error
        assert crashed.text.startswith(
            "MCP server 'toolbox' closed the connection during the call to 'crash'"
        )
        assert "toolbox: crashing on purpose" in crashed.text  # the tail of its stderr
        assert after.is_error
        assert "'toolbox'" in after.text
        assert "cannot" in after.text
    assert not server.connected
    # Reaped once the connection is closed (on a busy machine that can take a moment).
    assert await eventually(lambda: is_gone(pid))


async def test_an_http_server_that_dies_mid_call_gives_an_error_result(
    fresh_http_toolbox: HttpToolbox,
) -> None:
    async with MCPConnection(fresh_http_toolbox.spec) as server:
        model = ScriptedModel(
            [Reply(calls=[call("crash")]), Reply(calls=[call("add", a=1, b=2)]), "ok"]
        )
        agent = Agent(model, tools=server.tools)
        result = await asyncio.wait_for(agent.run("go"), NO_HANG_S)

        # The crash did not tear down the run: it went on and finished normally.
        assert result.stop_reason == "stop"
        assert result.text == "ok"
        crashed, after = [m for m in result.messages if isinstance(m, ToolResultMessage)]
        assert crashed.is_error
        assert "MCP server '127.0.0.1:" in crashed.text
        assert "'crash'" in crashed.text
        assert after.is_error
        assert not server.connected
    assert fresh_http_toolbox.process.wait(timeout=10) == 3


async def test_closing_stops_the_stdio_server_process() -> None:
    async with MCPConnection(stdio_server("toolbox.py")) as server:
        pid = int((await by_name(server)["pid"].execute({}, ctx())).text)
        assert not is_gone(pid)
    assert is_gone(pid)
    after = await by_name(server)["add"].execute({"a": 1, "b": 2}, ctx())
    assert after.is_error
    assert "is not connected" in after.text
    with pytest.raises(ToolError, match="is not connected"):
        await server.call("add", {"a": 1, "b": 2}, ctx())


async def test_closing_in_the_middle_of_a_call_ends_it() -> None:
    server = MCPConnection(stdio_server("toolbox.py"))
    await server.connect()
    stall = asyncio.create_task(by_name(server)["stall"].execute({}, ctx()))
    await asyncio.sleep(0.2)
    await asyncio.wait_for(server.aclose(), NO_HANG_S)
    assert (await asyncio.wait_for(stall, NO_HANG_S)).is_error


async def test_the_server_environment_is_the_safe_default_plus_what_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    # Not an MCP server: it writes what it sees to stderr and exits, which the
    # connection error then quotes.
    probe = StdioServer(
        PYTHON,
        (
            "-c",
            "import os, sys; e = os.environ; "
            "sys.stderr.write('key=' + e.get('ANTHROPIC_API_KEY', 'none') + "
            "' greeting=' + e.get('GREETING', 'none'))",
        ),
        env={"GREETING": "hello"},
    )
    with pytest.raises(MCPConnectError) as caught:
        await MCPConnection(probe, connect_timeout_s=NO_HANG_S).connect()
    assert "key=none greeting=hello" in str(caught.value)
    assert "sk-secret" not in str(caught.value)
