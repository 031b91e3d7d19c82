"""The embedded model as a tool user, for real: several calls, workspace tools, retries,
and decisions that do not depend on what was asked before."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tiller import Agent, tool
from tiller.messages import AssistantMessage, ToolCall, UserMessage
from tiller.models import ModelRequest, ModelSettings, ToolSpec
from tiller.models.local import LocalModel
from tiller.tools.builtin import builtin_tools

WORKSPACE_TOOLS = ["read_file", "list_files", "search", "write_file", "edit_file", "shell"]
TIMES = {"lisbon": "14:05", "seoul": "22:05"}


@tool(effect="read")
def get_time(city: str) -> str:
    """The current local time in a city."""
    return TIMES.get(city.strip().lower(), f"unknown city {city}")


@tool(effect="read")
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


@tool(effect="read")
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 17 * 23."""
    return str(eval(expression, {"__builtins__": {}}))  # digits and operators only here


def first_calls(messages: Sequence[Any]) -> list[ToolCall]:
    replies = [m for m in messages if isinstance(m, AssistantMessage)]
    return replies[0].tool_calls if replies else []


def workspace(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("Meeting on Tuesday.\nAsk Marco.\nBuy paper.\n")
    (tmp_path / "config.toml").write_text('name = "tally"\nport = 8080\n')
    return tmp_path


async def test_a_request_naming_two_subjects_gets_a_call_for_each() -> None:
    agent = Agent("local:smollm2", tools=[get_time])
    result = await agent.run("What time is it in Lisbon and in Seoul?")
    calls = first_calls(result.messages)
    assert [(c.name, c.arguments["city"].lower()) for c in calls] == [
        ("get_time", "lisbon"),
        ("get_time", "seoul"),
    ]
    assert not result.error


async def test_a_list_of_subjects_gets_a_call_for_each() -> None:
    agent = Agent("local:smollm2", tools=[get_time])
    result = await agent.run("What time is it in Lisbon, Seoul and Paris?")
    calls = first_calls(result.messages)
    assert [c.arguments["city"].lower() for c in calls] == ["lisbon", "seoul", "paris"]


async def test_there_is_the_place_named_before() -> None:
    agent = Agent("local:smollm2", tools=[get_weather, get_time])
    result = await agent.run("What's the weather in Lisbon, and what time is it there?")
    calls = first_calls(result.messages)
    assert [(c.name, c.arguments["city"].lower()) for c in calls] == [
        ("get_weather", "lisbon"),
        ("get_time", "lisbon"),
    ]


async def test_two_tools_in_one_sentence_are_both_called() -> None:
    agent = Agent("local:smollm2", tools=[calculator, get_time])
    result = await agent.run("What is 12 * 7, and what time is it in Seoul?")
    calls = first_calls(result.messages)
    assert [c.name for c in calls] == ["calculator", "get_time"]
    assert calls[1].arguments["city"].lower() == "seoul"


async def test_arithmetic_joined_by_and_is_one_call() -> None:
    agent = Agent("local:smollm2", tools=[calculator, get_time])
    result = await agent.run("Add 19 and 23.")
    calls = first_calls(result.messages)
    assert [(c.name, c.arguments) for c in calls] == [("calculator", {"expression": "19 + 23"})]


async def test_requests_to_look_never_call_a_tool_that_changes_files(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    before = {p.name: p.read_text() for p in root.iterdir()}
    tools = builtin_tools(WORKSPACE_TOOLS, root, shell_sandbox=False)
    for request in (
        "Show me what's in notes.txt",
        "Print lines 1 to 2 of notes.txt",
        "What files are in this folder?",
        "List the files here.",
        "Find where port is set",
    ):
        result = await Agent("local:smollm2", tools=tools).run(request)
        called = [
            c.name for m in result.messages if isinstance(m, AssistantMessage) for c in m.tool_calls
        ]
        assert not {"write_file", "edit_file", "shell"} & set(called), (request, called)
    assert {p.name: p.read_text() for p in root.iterdir()} == before


async def test_the_right_workspace_tool_without_invented_options(tmp_path: Path) -> None:
    tools = builtin_tools(WORKSPACE_TOOLS, workspace(tmp_path), shell_sandbox=False)
    listing = first_calls(
        (await Agent("local:smollm2", tools=tools).run("List the files here.")).messages
    )
    assert [(c.name, c.arguments) for c in listing] == [("list_files", {})]
    ranged = first_calls(
        (await Agent("local:smollm2", tools=tools).run("Print lines 2 to 3 of notes.txt")).messages
    )
    assert [(c.name, c.arguments["path"]) for c in ranged] == [("read_file", "notes.txt")]
    assert set(ranged[0].arguments) <= {"path", "start_line", "end_line"}
    assert {ranged[0].arguments.get("start_line", 2), ranged[0].arguments.get("end_line", 3)} <= {
        2,
        3,
    }
    shown = first_calls(
        (await Agent("local:smollm2", tools=tools).run("Show me notes.txt")).messages
    )
    assert [(c.name, c.arguments) for c in shown] == [("read_file", {"path": "notes.txt"})]


async def test_an_error_naming_another_tool_gets_one_more_tool_turn(tmp_path: Path) -> None:
    """A directory given to read_file: its error says to use list_files, and the model can."""
    (tmp_path / "docs" / "old.md").mkdir(parents=True)  # a directory named like a file
    (tmp_path / "docs" / "old.md" / "guide.md").write_text("# Guide\n")
    tools = builtin_tools(["read_file", "list_files"], tmp_path)
    result = await Agent("local:smollm2", tools=tools).run("Read docs/old.md")
    called = [
        c.name for m in result.messages if isinstance(m, AssistantMessage) for c in m.tool_calls
    ]
    assert called == ["read_file", "list_files"]
    assert not result.error


async def test_a_decision_and_its_answer_do_not_depend_on_earlier_requests() -> None:
    model = LocalModel()
    specs = [ToolSpec(t.name, t.description, t.parameters, "read") for t in (get_time, calculator)]

    async def reply(text: str, tools: Sequence[ToolSpec]) -> AssistantMessage:
        request = ModelRequest(
            [UserMessage.of(text)], tools=tools, settings=ModelSettings(max_tokens=40)
        )
        items = [item async for item in model.stream(request)]
        assert isinstance(items[-1], AssistantMessage)
        return items[-1]

    question = "Tell me something nice about the sea."
    first = await reply(question, specs)
    for other in ("What is 3 * 3?", "Write a limerick about a cat.", "Hi!"):
        await reply(other, specs[:1])
        await reply(other, [])
    again = await reply(question, specs)
    assert first.content == again.content
    assert first.usage.output_tokens == again.usage.output_tokens


async def test_a_forced_tool_is_called_with_arguments_that_fit_its_schema() -> None:
    """`tool_choice` makes even a greeting a call of the named tool (a structured answer)."""
    model = LocalModel()
    plan = ToolSpec(
        "submit_plan",
        "Hand in the plan.",
        {
            "type": "object",
            "properties": {
                "steps": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "urgent": {"type": "boolean"},
            },
            "required": ["steps", "urgent"],
        },
    )
    for choice in ("submit_plan", "required"):
        request = ModelRequest(
            [UserMessage.of("Plan how to bake a cake.")],
            tools=[plan],
            settings=ModelSettings(tool_choice=choice),
        )
        items = [item async for item in model.stream(request)]
        reply = items[-1]
        assert isinstance(reply, AssistantMessage)
        (made,) = reply.tool_calls
        assert made.name == "submit_plan"
        assert made.invalid_arguments is None
        assert isinstance(made.arguments["steps"], list)
        assert made.arguments["steps"]
        assert isinstance(made.arguments["urgent"], bool)


ROASTING = ToolSpec(
    "roast_minutes",
    "How many minutes to roast a joint of meat, from the meat and its weight.",
    {
        "type": "object",
        "properties": {
            "meat": {"type": "string", "description": "chicken, beef, lamb or pork"},
            "kilograms": {"type": "number", "minimum": 0.3, "maximum": 12},
        },
        "required": ["meat", "kilograms"],
    },
)


async def test_no_call_breaks_its_schemas_bounds_or_invents_a_required_number() -> None:
    """A later clause without the number a call needs gets no call; a forced call whose
    request has none still gets a number within the bounds."""
    model = LocalModel()
    for text in (
        "How long do I roast 2 kg of chicken, and some beef?",
        "Roast 1.5 kg of lamb and a 2 kg pork joint. Roasting times?",
    ):
        request = ModelRequest([UserMessage.of(text)], tools=[ROASTING])
        reply = [item async for item in model.stream(request)][-1]
        assert isinstance(reply, AssistantMessage)
        assert reply.tool_calls, text
        given = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)}
        for call in reply.tool_calls:
            assert call.arguments["kilograms"] in given, (text, call.arguments)
    forced = ModelRequest(
        [UserMessage.of("What goes well with roast beef?")],
        tools=[ROASTING],
        settings=ModelSettings(tool_choice="roast_minutes"),
    )
    reply = [item async for item in model.stream(forced)][-1]
    assert isinstance(reply, AssistantMessage)
    (made,) = reply.tool_calls
    assert 0.3 <= made.arguments["kilograms"] <= 12
