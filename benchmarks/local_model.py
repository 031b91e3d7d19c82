"""The embedded model: Tiller's end-to-end generation against bare llama-cpp-python,
and tool-use accuracy on the task sets of `benchmarks/local_tasks/`. Prints JSON.

    .venv/bin/python benchmarks/local_model.py [--trials N] [--max-tokens N] [--skip-speed]
        [--skip-tools] [--sets NAME|FILE.jsonl,...] [--tools FILE]... [--details]
        [--output FILE] [--expect FILE] [--jobs N] [--keep DIR]

Speed: the same prompt, sampling settings and thread count on both sides; the
KV cache is cleared before every trial so neither side reuses a prefix.

Tool use: each task runs a real `Agent` on `local:smollm2` with real tools. The
tools, the tasks and the meaning of every figure are data and prose in
`benchmarks/local_tasks/` (see its README.md); this file only runs and counts.
The tool-use part of the report has sorted keys and no timings, so two runs can
be diffed. A set that cannot be scored as written (an unknown tool or argument,
a duplicate id, an `answer_contains` its expected call does not return) stops the
run before anything is measured, with exit status 2 and one line naming the file
and line. Arguments are checked with `jsonschema` (in the `dev` extra).

The sets' history. `development` holds the first development tasks. `test1` to
`test4` were each written by someone else, measured once, and used for
development after that; the figures once published for `test4` belonged to an
earlier threshold and did not reproduce. `multi_development` and
`workspace_development` were written while building the chooser. The
`unseen5_*` to `unseen10_*` sets (with the tools of their own `tools_unseenN.jsonl`)
were written by someone else before the chooser was frozen at commits a532528,
8d61dc1, cd53027, aa86bdb, 43347d8 and 2b09f03, kept outside the repository until then
and measured once each (docs/benchmarks.md has the figures); they are development data
now, so the next honest figure needs new unseen sets. The tool threshold is fitted on
the development sets named in `fit_tool_threshold.py` (`unseen8_*` and later not among
them yet).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import hashlib
import json
import multiprocessing
import operator
import shutil
import statistics
import string
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]

from tiller import Agent
from tiller.cancellation import CancelToken
from tiller.errors import ToolError
from tiller.events import AgentEvent, ToolExecutionStart
from tiller.loop import Limits
from tiller.loop.options import Execution
from tiller.messages import AssistantMessage, TextContent, ToolResult, UserMessage
from tiller.models import ModelRequest, ModelSettings
from tiller.models.local import LocalModel, runtime
from tiller.models.local.chat import chat_messages
from tiller.models.local.decoding import Sampling
from tiller.tools import Tool, ToolContext
from tiller.tools.builtin import builtin_tools
from tiller.tools.effects import ToolEffect, effect_of

PROMPT = "Explain in a few sentences why the sky is blue."
SAMPLING = Sampling(temperature=0.0)  # greedy: both sides generate the same tokens

# ── speed ───────────────────────────────────────────────────────────────────


def bare_trial(llama: Any, prompt: str, max_tokens: int) -> tuple[float, float, int]:
    llama.reset()
    start = time.perf_counter()
    first = None
    count = 0
    for _chunk in llama.create_completion(
        prompt,
        max_tokens=max_tokens,
        temperature=SAMPLING.temperature,
        top_p=SAMPLING.top_p,
        top_k=SAMPLING.top_k,
        repeat_penalty=SAMPLING.repeat_penalty,
        stream=True,
    ):
        if first is None:
            first = time.perf_counter()
        count += 1
    end = time.perf_counter()
    assert first is not None
    return first - start, (count - 1) / (end - first) if count > 1 else 0.0, count


async def tiller_trial(model: LocalModel, max_tokens: int) -> tuple[float, float, int]:
    decoder, _ = model._load()
    decoder.llama.reset()
    request = ModelRequest(
        [UserMessage.of(PROMPT)],
        settings=ModelSettings(max_tokens=max_tokens, temperature=SAMPLING.temperature),
    )
    start = time.perf_counter()
    first = None
    deltas = 0
    tokens = 0
    async for item in model.stream(request):
        if isinstance(item, AssistantMessage):
            tokens = item.usage.output_tokens
        else:
            deltas += 1
            if first is None:
                first = time.perf_counter()
    end = time.perf_counter()
    assert first is not None
    return first - start, (tokens - 1) / (end - first) if tokens > 1 else 0.0, tokens


def speed(trials: int, max_tokens: int) -> dict[str, Any]:
    from llama_cpp import Llama

    model = LocalModel()
    model.load()
    decoder, template = model._load()
    prompt = template.render(
        chat_messages(ModelRequest([UserMessage.of(PROMPT)]), offer_tools=False)
    )
    threads = runtime.decode_threads()
    bare = Llama(
        model_path=str(model.path),
        n_ctx=decoder.model.n_ctx,
        n_threads=threads,
        n_threads_batch=decoder.llama.n_threads_batch,
        verbose=False,
    )
    rows: dict[str, list[tuple[float, float, int]]] = {"bare": [], "tiller": []}
    for _ in range(trials):  # interleaved, so drift in machine load hits both alike
        rows["bare"].append(bare_trial(bare, prompt, max_tokens))
        rows["tiller"].append(asyncio.run(tiller_trial(model, max_tokens)))
    out: dict[str, Any] = {"trials": trials, "max_tokens": max_tokens, "threads": threads}
    for side, samples in rows.items():
        out[side] = {
            "ttft_ms": round(statistics.median(s[0] for s in samples) * 1000, 1),
            "tokens_per_s": round(statistics.median(s[1] for s in samples), 1),
            "tokens": round(statistics.median(s[2] for s in samples)),
        }
    ratio = out["tiller"]["tokens_per_s"] / out["bare"]["tokens_per_s"]
    added = out["tiller"]["ttft_ms"] - out["bare"]["ttft_ms"]
    out["tokens_per_s_ratio"] = round(ratio, 3)
    out["ttft_added_ms"] = round(added, 1)
    out["bars"] = {
        "tokens_per_s_ratio >= 0.95": ratio >= 0.95,
        "ttft_added_ms <= 20": added <= 20,
    }
    return out


# ── tool use: files and names ───────────────────────────────────────────────

MODEL = "local:smollm2"
TASKS_DIR = Path(__file__).resolve().parent / "local_tasks"
TOOLS_FILE = TASKS_DIR / "tools.jsonl"


def tool_files() -> list[Path]:
    """Every tools file of the task sets: `tools.jsonl`, and `tools_*.jsonl` a set added."""
    return sorted(TASKS_DIR.glob("tools*.jsonl"))


def set_tool_files(path: Path) -> list[Path]:
    """The tools a set may offer: `tools.jsonl` and its own `tools_PREFIX.jsonl` (the sets
    `unseen5_*` take `tools_unseen5.jsonl`), so sets written apart may reuse a name."""
    own = [
        t
        for t in tool_files()
        if t != TOOLS_FILE and path.stem.startswith(t.stem.removeprefix("tools_") + "_")
    ]
    return [TOOLS_FILE, *own]


WORKSPACE_DIR = TASKS_DIR / "workspace"
WORKSPACE = "workspace"  # in a task's `tools`: the six built-in tools, as `tiller chat` offers
WORKSPACE_TOOLS = ("read_file", "list_files", "search", "write_file", "edit_file", "shell")
ANSWER_SHOWN = 160  # characters of each answer in --details


class SetError(Exception):
    """A tool or task file that cannot be used as written; the text names file and line."""


def shown(path: Path) -> str:
    """`path` relative to the working directory when under it: short messages."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def jsonl_objects(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each non-blank line's place (`file:line`) and its object."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SetError(f"{shown(path)}: cannot be read: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{shown(path)}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SetError(f"{where}: not JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise SetError(f"{where}: not a JSON object")
        yield where, data


TYPE_NAMES: dict[type, str] = {
    str: "a string",
    dict: "an object",
    list: "a list",
    bool: "true or false",
}


def take(data: dict[str, Any], key: str, kind: type, where: str, *, prefix: str = "") -> Any:
    """`data[key]`, which must be there and of type `kind` (a JSON type)."""
    if key not in data:
        raise SetError(f"{where}: {prefix}{key!r} is missing")
    value = data[key]
    if not isinstance(value, kind):
        raise SetError(f"{where}: {prefix}{key!r} should be {TYPE_NAMES[kind]}")
    return value


def refuse_unknown(data: dict[str, Any], known: set[str], where: str, prefix: str = "") -> None:
    """A misspelt field would otherwise be ignored and its task scored on the wrong terms."""
    unknown = sorted(data.keys() - known)
    if unknown:
        raise SetError(f"{where}: unknown field {prefix}{unknown[0]!r}")


# ── tool use: values as the tools and the checks read them ─────────────────

ARITHMETIC_CHARS = frozenset("0123456789+-*/(). ")
OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def evaluate(text: str) -> float | None:
    """The value of an arithmetic expression (digits, `+ - * / ( ) .`, spaces), else None.

    It walks the syntax tree rather than calling `eval`, so nothing but numbers and
    the four operations can run, whatever a model or a task file puts there.
    """
    if not text.strip() or len(text) > 200 or not set(text) <= ARITHMETIC_CHARS:
        return None
    try:
        return float(_arithmetic(ast.parse(text, mode="eval").body))
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
        return None


def _arithmetic(node: ast.expr) -> float:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _arithmetic(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        return OPERATORS[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    raise ValueError("not arithmetic")


def is_number(value: object) -> bool:
    return type(value) in (int, float)  # JSON true/false are not numbers


def number_text(value: float) -> str:
    """A number as a person writes it (6400, 8.5, 0.3333), so results read naturally
    and `answer_contains` can name the figure a person would."""
    rounded = round(value, 4)
    if rounded == int(rounded):
        return str(int(rounded))
    return f"{rounded:.4f}".rstrip("0")


def text_of(value: Any) -> str:
    """How a value is written into a tool's answer or looked for in a prompt."""
    if is_number(value):
        return number_text(float(value))
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def contains_token(text: str, value: str) -> bool:
    """Whether `value` occurs in `text` as a whole token, ignoring case: "12" is not
    found in "120" or "12.5", "5" not in "4.5", "ana" not in "banana"."""
    text, value = text.casefold(), value.casefold()
    start = text.find(value)
    while start >= 0:
        end = start + len(value)
        if not _joins(text, start - 1, -1, value[:1]) and not _joins(text, end, 1, value[-1:]):
            return True
        start = text.find(value, start + 1)
    return False


def _joins(text: str, at: int, step: int, edge: str) -> bool:
    """Whether the character at `at` continues the token whose edge character is `edge`."""
    if not 0 <= at < len(text):
        return False
    char = text[at]
    if char.isalnum() and edge.isalnum():
        return True
    # "8.5" inside "8.50", "5" inside "4.5": a separator between digits continues a number
    beyond = at + step
    return char in ".," and edge.isdigit() and 0 <= beyond < len(text) and text[beyond].isdigit()


PUNCTUATION = string.punctuation + string.whitespace + "“”‘’«»"


def values_match(expected: Any, actual: Any) -> bool:
    """The README's rule: numbers and arithmetic by value, strings without case and
    surrounding punctuation, anything else exactly."""
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(values_match, expected, actual))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    expected_value, actual_value = _value(expected), _value(actual)
    if expected_value is not None and actual_value is not None:
        return abs(expected_value - actual_value) <= 1e-9 * max(1.0, abs(expected_value))
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip(PUNCTUATION).casefold() == actual.strip(PUNCTUATION).casefold()
    return bool(expected == actual)


def _value(value: Any) -> float | None:
    if is_number(value):
        return float(value)
    return evaluate(value) if isinstance(value, str) else None


def arguments_match(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> bool:
    """Every listed argument is there with a matching value; others are not checked."""
    return all(key in actual and values_match(v, actual[key]) for key, v in expected.items())


def schema_problem(schema: dict[str, Any], arguments: Any) -> str | None:
    """Why `arguments` fail `schema` (the most relevant error), or None when they pass."""
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(arguments)
    )
    if error is None:
        return None
    place = "/".join(str(part) for part in error.absolute_path)
    return f"{place}: {error.message}" if place else str(error.message)


# ── tool use: declared tools ────────────────────────────────────────────────


class _Fields(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""  # an optional argument left out


def fill(template: str, values: Mapping[str, Any]) -> str:
    """`template` with `{name}` replaced by each value, numbers written as people do."""
    return template.format_map(_Fields({key: text_of(v) for key, v in values.items()}))


def template_fields(template: str, where: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}
    except ValueError as exc:
        raise SetError(f"{where}: template {template!r}: {exc}") from None


def do_lookup(does: dict[str, Any], arguments: dict[str, Any]) -> str:
    found = does["table"].get(str(arguments[does["argument"]]).strip().lower())
    return fill(does["missing"], arguments) if found is None else text_of(found)


def do_arithmetic(does: dict[str, Any], arguments: dict[str, Any]) -> str:
    expression = str(arguments[does["argument"]])
    value = evaluate(expression)
    if value is None:
        raise ToolError(
            f"cannot evaluate {expression!r}: numbers with + - * / and parentheses only, "
            "and no division by zero"
        )
    return number_text(value)


def do_word_count(does: dict[str, Any], arguments: dict[str, Any]) -> str:
    return str(len(str(arguments[does["argument"]]).split()))


def do_rate(does: dict[str, Any], arguments: dict[str, Any]) -> str:
    rate = does["rates"].get(str(arguments[does["argument"]]).strip().upper())
    if rate is None:
        return fill(does["missing"], arguments)
    result = float(arguments[does["amount"]]) * float(rate)
    return fill(does["template"], {**arguments, "result": result})


def do_template(does: dict[str, Any], arguments: dict[str, Any]) -> str:
    return fill(does["template"], arguments)


# What each `does.kind` returns, and the fields it takes besides `kind`.
KINDS: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "lookup": do_lookup,
    "arithmetic": do_arithmetic,
    "word_count": do_word_count,
    "rate": do_rate,
    "template": do_template,
}
KIND_FIELDS: dict[str, dict[str, type]] = {
    "lookup": {"argument": str, "table": dict, "missing": str},
    "arithmetic": {"argument": str},
    "word_count": {"argument": str},
    "rate": {"argument": str, "amount": str, "rates": dict, "template": str, "missing": str},
    "template": {"template": str},
}


@dataclass(frozen=True, eq=False)  # hashed by identity, as tools are
class DeclaredTool:
    """A tool declared in a tools file: it answers from data (`does`), not code.

    The loop sees an ordinary `Tool`. It checks its arguments against its own schema,
    as a real tool's validation would, so a malformed call fails with a message the
    model can read (a `ToolError`) instead of an answer computed from nonsense.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    effect: ToolEffect
    does: dict[str, Any]
    timeout_s: float | None = None

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult([TextContent(self.answer(arguments))])

    def answer(self, arguments: dict[str, Any]) -> str:
        """What a call returns; also how a task's `answer_contains` is checked."""
        problem = schema_problem(self.parameters, arguments)
        if problem is not None:
            raise ToolError(f"invalid arguments for {self.name}: {problem}")
        return KINDS[self.does["kind"]](self.does, arguments)


def load_tools(paths: Sequence[Path]) -> dict[str, DeclaredTool]:
    """The tools declared in `paths`, by name; a name declared twice is refused."""
    tools: dict[str, DeclaredTool] = {}
    for path in paths:
        for where, data in jsonl_objects(path):
            declared = parse_tool(data, where)
            if declared.name in tools:
                raise SetError(f"{where}: a tool named {declared.name!r} is already declared")
            tools[declared.name] = declared
    return tools


def parse_tool(data: dict[str, Any], where: str) -> DeclaredTool:
    refuse_unknown(data, {"name", "description", "parameters", "effect", "does"}, where)
    parameters = take(data, "parameters", dict, where)
    try:
        jsonschema.Draft202012Validator.check_schema(parameters)
    except jsonschema.SchemaError as exc:
        raise SetError(f"{where}: 'parameters' is not a JSON schema: {exc.message}") from None
    if parameters.get("type") != "object":
        raise SetError(f"{where}: 'parameters' should be an object schema")
    effect = take(data, "effect", str, where)
    if effect not in set(ToolEffect):
        raise SetError(f"{where}: 'effect' should be one of {', '.join(ToolEffect)}")
    does = take(data, "does", dict, where)
    check_does(does, parameters, where)
    return DeclaredTool(
        take(data, "name", str, where),
        take(data, "description", str, where),
        parameters,
        ToolEffect(effect),
        does,
    )


def check_does(does: dict[str, Any], parameters: dict[str, Any], where: str) -> None:
    """A `does` that runs for every schema-valid call: its fields are there, the
    arguments it reads are required ones, and its templates name only parameters."""
    kind = take(does, "kind", str, where, prefix="does.")
    fields = KIND_FIELDS.get(kind)
    if fields is None:
        raise SetError(f"{where}: does.kind {kind!r} should be one of {', '.join(KINDS)}")
    refuse_unknown(does, {"kind", *fields}, where, "does.")
    for key, kind_of_value in fields.items():
        take(does, key, kind_of_value, where, prefix="does.")
    required = set(parameters.get("required", []))
    for key in ("argument", "amount"):
        if key in does and does[key] not in required:
            raise SetError(f"{where}: does.{key} {does[key]!r} is not a required parameter")
    if kind == "rate" and not all(is_number(rate) for rate in does["rates"].values()):
        raise SetError(f"{where}: does.rates should map codes to numbers")
    unreachable = [key for key in does.get("table", {}) if key != key.strip().lower()]
    if unreachable:  # looked up lower-cased and trimmed, such a key would never be found
        raise SetError(f"{where}: does.table key {unreachable[0]!r} is not lower-case")
    names = set(parameters.get("properties", {}))
    for key in ("template", "missing"):
        allowed = names | ({"result"} if (kind, key) == ("rate", "template") else set())
        stray = sorted(template_fields(does.get(key, ""), where) - allowed)
        if stray:
            raise SetError(f"{where}: does.{key} names {{{stray[0]}}}, which is not a parameter")


# ── tool use: task sets ─────────────────────────────────────────────────────


@dataclass(frozen=True)
class Expected:
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Task:
    id: str
    kind: str
    prompt: str
    tools: tuple[str, ...]
    expect: tuple[Expected, ...]
    answer_contains: str | None = None
    asks_change: bool = False

    @property
    def in_workspace(self) -> bool:
        return WORKSPACE in self.tools


@dataclass(frozen=True)
class TaskSet:
    name: str
    tasks: tuple[Task, ...]
    unchecked: tuple[str, ...]  # places whose answer_contains could not be simulated
    tools: Mapping[str, DeclaredTool]  # the tools its tasks may offer
    path: Path  # the file it was read from


TASK_FIELDS = {"id", "kind", "prompt", "tools", "expect", "answer_contains", "asks_change"}


def set_paths(spec: str | None) -> list[Path]:
    """The files `--sets` names (NAME for local_tasks/NAME.jsonl, or a .jsonl path);
    without it, every set in local_tasks/."""
    if spec is None:
        tools = set(tool_files())
        return sorted(p for p in TASKS_DIR.glob("*.jsonl") if p not in tools)
    paths: list[Path] = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        path = Path(item) if item.endswith(".jsonl") else TASKS_DIR / f"{item}.jsonl"
        if not path.is_file():
            raise SetError(f"--sets {item}: no such task set ({shown(path)})")
        if path.resolve() in {t.resolve() for t in tool_files()}:
            raise SetError(f"--sets {item}: {shown(path)} declares tools, not tasks")
        if any(p.stem == path.stem for p in paths):
            raise SetError(f"--sets {item}: two sets are named {path.stem!r}")
        paths.append(path)
    return paths


def load_set(path: Path, declared: Mapping[str, DeclaredTool]) -> TaskSet:
    """The tasks of `path`, each checked against the tools before anything runs."""
    tasks: list[Task] = []
    first_seen: dict[str, str] = {}
    unchecked: list[str] = []
    for where, data in jsonl_objects(path):
        task = parse_task(data, where)
        if task.id in first_seen:
            raise SetError(
                f"{where}: duplicate id {task.id!r} (also on line {first_seen[task.id]})"
            )
        first_seen[task.id] = where.rsplit(":", 1)[1]
        if not check_task(task, declared, where):
            unchecked.append(where)
        tasks.append(task)
    return TaskSet(path.stem, tuple(tasks), tuple(unchecked), declared, path)


def parse_task(data: dict[str, Any], where: str) -> Task:
    refuse_unknown(data, TASK_FIELDS, where)
    tools = data.get("tools")
    if tools == WORKSPACE:  # the README's short form for the six built-in tools
        tools = [WORKSPACE]
    tools = take({"tools": tools}, "tools", list, where)
    expect = take(data, "expect", list, where)
    if not tools or not all(isinstance(name, str) for name in tools):
        raise SetError(f"{where}: 'tools' should be a non-empty list of tool names")
    answer = take(data, "answer_contains", str, where) if "answer_contains" in data else None
    if answer is not None and not answer.strip():
        raise SetError(f"{where}: 'answer_contains' is empty")
    return Task(
        id=take(data, "id", str, where),
        kind=take(data, "kind", str, where),
        prompt=take(data, "prompt", str, where),
        tools=tuple(tools),
        expect=tuple(parse_expected(call, where) for call in expect),
        answer_contains=answer,
        asks_change=take(data, "asks_change", bool, where) if "asks_change" in data else False,
    )


def parse_expected(call: Any, where: str) -> Expected:
    if not isinstance(call, dict):
        raise SetError(f"{where}: each 'expect' entry should be an object")
    refuse_unknown(call, {"tool", "arguments"}, where, "expect.")
    arguments = (
        take(call, "arguments", dict, where, prefix="expect.") if "arguments" in call else {}
    )
    return Expected(take(call, "tool", str, where, prefix="expect."), arguments)


def offered_tools(
    names: Sequence[str], declared: Mapping[str, DeclaredTool], root: Path
) -> dict[str, Tool]:
    """The tools a task offers, by name, the workspace's working in `root`."""
    offered: dict[str, Tool] = {}
    for name in names:
        if name == WORKSPACE:
            found: list[Tool] = builtin_tools(WORKSPACE_TOOLS, root)
        elif name in declared:
            found = [declared[name]]
        else:
            known = ", ".join([*sorted(declared), WORKSPACE])
            raise SetError(f"unknown tool {name!r} (known: {known})")
        for tool in found:
            if tool.name in offered:
                raise SetError(f"the tool {tool.name!r} is offered twice")
            offered[tool.name] = tool
    return offered


def check_task(task: Task, declared: Mapping[str, DeclaredTool], where: str) -> bool:
    """Refuse a task that cannot be scored as written; False when its `answer_contains`
    could not be checked (no expected call complete enough to simulate)."""
    try:
        offered = offered_tools(task.tools, declared, WORKSPACE_DIR)
    except SetError as exc:
        raise SetError(f"{where}: {exc}") from None
    for call in task.expect:
        tool = offered.get(call.tool)
        if tool is None:
            raise SetError(f"{where}: expects a call to {call.tool!r}, which is not offered")
        properties = tool.parameters.get("properties", {})
        unknown = sorted(call.arguments.keys() - properties.keys())
        if unknown:
            raise SetError(f"{where}: {call.tool} has no argument {unknown[0]!r}")
    if task.answer_contains is None:
        return True
    results = [possible_results(offered[call.tool], call, where) for call in task.expect]
    known = [text for found in results if found is not None for text in found]
    if any(contains_token(text, task.answer_contains) for text in known):
        return True
    if known and all(found is not None for found in results):
        raise SetError(
            f"{where}: answer_contains {task.answer_contains!r} does not occur in what the "
            f"expected call can return: {' | '.join(known)[:200]!r}"
        )
    return False


def possible_results(tool: Tool, call: Expected, where: str) -> list[str] | None:
    """What the expected call can return: its result when its arguments are complete,
    a lookup's table when they are not, None when that cannot be known (a tool that
    computes, acts, or changes the workspace)."""
    required = set(tool.parameters.get("required", []))
    complete = required <= call.arguments.keys()
    try:
        if isinstance(tool, DeclaredTool):
            if complete:
                return [tool.answer(call.arguments)]
            if tool.does["kind"] == "lookup":
                return [text_of(value) for value in tool.does["table"].values()]
            return None
        if complete and effect_of(tool) is ToolEffect.READ:
            return [run_workspace_read(tool.name, call.arguments)]
    except ToolError as exc:
        raise SetError(f"{where}: the expected call to {tool.name} fails: {exc}") from None
    return None


def run_workspace_read(name: str, arguments: dict[str, Any]) -> str:
    """A read-only built-in tool's answer on a fresh copy of the workspace."""
    with fresh_workspace() as root:
        (tool,) = builtin_tools([name], root)
        ctx = ToolContext("check", name, CancelToken())
        result = asyncio.run(tool.execute(arguments, ctx))
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


@contextmanager
def fresh_workspace() -> Iterator[Path]:
    """A temporary copy of workspace/, so no task sees what another one changed."""
    with tempfile.TemporaryDirectory(prefix="tiller-tasks-") as tmp:
        root = Path(tmp) / "workspace"
        shutil.copytree(WORKSPACE_DIR, root)
        yield root


# ── tool use: running ───────────────────────────────────────────────────────


@dataclass(frozen=True)
class Call:
    id: str
    tool: str
    arguments: dict[str, Any]


@dataclass
class Outcome:
    """What one task's run did: every call, the first reply's calls, the answer."""

    task: Task
    offered: dict[str, Tool]
    first_reply: list[Call] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    unparsed: set[str] = field(default_factory=set)  # ids of calls whose JSON did not parse
    answer: str = ""
    error: str | None = None


async def run_task(task: Task, declared: Mapping[str, DeclaredTool]) -> Outcome:
    with fresh_workspace() as root:
        outcome = Outcome(task, offered_tools(task.tools, declared, root))

        def watch(event: AgentEvent) -> None:
            if isinstance(event, ToolExecutionStart):
                outcome.calls.append(Call(event.tool_call_id, event.tool_name, event.arguments))

        agent = Agent(
            MODEL,
            tools=list(outcome.offered.values()),
            execution=Execution(limits=Limits(max_turns=3)),
        )
        agent.subscribe(watch)
        result = await agent.run(task.prompt)
    replies = [m for m in result.messages if isinstance(m, AssistantMessage)]
    if replies:
        outcome.first_reply = [Call(c.id, c.name, c.arguments) for c in replies[0].tool_calls]
    outcome.unparsed = {
        c.id for m in replies for c in m.tool_calls if c.invalid_arguments is not None
    }
    outcome.answer = result.text
    outcome.error = result.error
    return outcome


# ── tool use: scoring ───────────────────────────────────────────────────────

# metric -> (hits, of). A metric is present when it applies to the task, even at 0 of 0.
Tally = dict[str, tuple[int, int]]
# Metrics that count failures: a task passes them with no hits.
COUNTS_FAILURES = {"invented_optional_arguments", "changing_calls_on_read_requests"}


def one(passed: bool) -> tuple[int, int]:
    return int(passed), 1


def score(outcome: Outcome) -> Tally:
    """Every metric of the README that applies to the task, for this run."""
    task, calls = outcome.task, outcome.calls
    tally: Tally = {}
    if task.expect:
        tally["right_tool_when_needed"] = one(right_tools(task.expect, outcome.first_reply))
        tally["any_tool_when_needed"] = one(bool(outcome.first_reply))
    else:
        answered = bool(outcome.answer.strip()) and outcome.error is None
        tally["text_when_no_tool_needed"] = one(not calls and answered)
    pairs = pair_calls(task.expect, outcome.first_reply)
    if any(expected.arguments for expected in task.expect):
        listed = [(e, c) for e, c in pairs if c is not None and e.arguments]
        hits = sum(arguments_match(e.arguments, c.arguments) for e, c in listed)
        tally["arguments_right"] = (hits, len(listed))
    if len(task.expect) > 1:
        tally["every_call_right"] = one(every_call_right(pairs, outcome.first_reply))
    if task.answer_contains is not None:
        called = {call.tool for call in calls}
        if any(expected.tool in called for expected in task.expect):
            uses = contains_token(outcome.answer, task.answer_contains)
            tally["answer_uses_tool_result"] = one(uses)
    valid = sum(schema_valid(call, outcome) for call in calls)
    tally["arguments_schema_valid"] = (valid, len(calls))
    inventing = sum(bool(invented_arguments(call, outcome)) for call in calls)
    tally["invented_optional_arguments"] = (inventing, len(calls))
    if task.in_workspace and not task.asks_change:
        changing = sum(changes_things(call, outcome) for call in calls)
        tally["changing_calls_on_read_requests"] = (changing, len(calls))
    return tally


def right_tools(expect: Sequence[Expected], reply: Sequence[Call]) -> bool:
    """One expected call: the reply's first call is to that tool. Several: the reply
    calls exactly those tools, in any order."""
    wanted = [expected.tool for expected in expect]
    names = [call.tool for call in reply]
    return names[:1] == wanted if len(wanted) == 1 else sorted(names) == sorted(wanted)


def pair_calls(
    expect: Sequence[Expected], reply: Sequence[Call]
) -> list[tuple[Expected, Call | None]]:
    """Each expected call with the reply's call that answers it: one to the same tool,
    with matching arguments when there is one; each call answers once."""
    free = list(reply)
    pairs: list[tuple[Expected, Call | None]] = []
    for expected in expect:
        same = [call for call in free if call.tool == expected.tool]
        matching = [c for c in same if arguments_match(expected.arguments, c.arguments)]
        candidates = matching or same
        chosen = candidates[0] if candidates else None
        if chosen is not None:
            free.remove(chosen)
        pairs.append((expected, chosen))
    return pairs


def every_call_right(pairs: Sequence[tuple[Expected, Call | None]], reply: Sequence[Call]) -> bool:
    return len(reply) == len(pairs) and all(
        call is not None and arguments_match(expected.arguments, call.arguments)
        for expected, call in pairs
    )


def schema_valid(call: Call, outcome: Outcome) -> bool:
    tool = outcome.offered.get(call.tool)
    if tool is None or call.id in outcome.unparsed:
        return False
    return schema_problem(tool.parameters, call.arguments) is None


def invented_arguments(call: Call, outcome: Outcome) -> list[str]:
    """The call's optional arguments whose values the request does not contain and the
    task does not list: a small model filling in what nobody asked for."""
    tool = outcome.offered.get(call.tool)
    if tool is None:
        return []
    required = set(tool.parameters.get("required", []))
    listed = {name for e in outcome.task.expect if e.tool == call.tool for name in e.arguments}
    prompt = outcome.task.prompt.casefold()
    return sorted(
        name
        for name, value in call.arguments.items()
        if name not in required | listed and text_of(value).casefold() not in prompt
    )


def changes_things(call: Call, outcome: Outcome) -> bool:
    tool = outcome.offered.get(call.tool)
    return tool is not None and effect_of(tool) is not ToolEffect.READ


def passed(metric: str, hits: int, of: int) -> bool:
    return hits == 0 if metric in COUNTS_FAILURES else hits == of


# ── tool use: the report ────────────────────────────────────────────────────

# (metric, comparison, threshold): a bar shows only where its metric applies.
Bar = tuple[str, str, float]
GENERAL_BARS: list[Bar] = [
    ("right_tool_when_needed", ">=", 0.9),
    ("text_when_no_tool_needed", ">=", 0.8),
    ("arguments_schema_valid", "==", 1.0),
    ("every_call_right", ">=", 0.7),
]
WORKSPACE_BARS: list[Bar] = [
    ("right_tool_when_needed", ">=", 0.8),
    ("text_when_no_tool_needed", ">=", 0.8),
    ("arguments_schema_valid", "==", 1.0),
    ("invented_optional_arguments", "==", 0),
    ("changing_calls_on_read_requests", "==", 0),
]


def block_report(tallies: Sequence[Tally], bars: Sequence[Bar]) -> dict[str, Any]:
    """The figures of some tasks, each with its numerator and denominator, and the bars."""
    totals: Tally = {}
    for tally in tallies:
        for metric, (hits, of) in tally.items():
            before_hits, before_of = totals.get(metric, (0, 0))
            totals[metric] = (before_hits + hits, before_of + of)
    metrics = {
        metric: {"rate": round(hits / of, 3) if of else None, "hits": hits, "of": of}
        for metric, (hits, of) in totals.items()
    }
    return {
        "tasks": len(tallies),
        "metrics": metrics,
        "bars": {
            f"{metric} {comparison} {threshold}": meets(*totals[metric], comparison, threshold)
            for metric, comparison, threshold in bars
            if metric in totals
        },
    }


def meets(hits: int, of: int, comparison: str, threshold: float) -> bool:
    """Compares the exact fraction, not the rounded rate; `== 0` counts hits, so it
    holds with no calls at all, and `== 1.0` holds when nothing failed."""
    if comparison == "==":
        return hits == 0 if threshold == 0 else hits == of
    return of > 0 and hits >= threshold * of


def details(outcome: Outcome, tally: Tally) -> dict[str, Any]:
    task = outcome.task
    return {
        "id": task.id,
        "kind": task.kind,
        "prompt": task.prompt,
        "expected": [{"tool": e.tool, "arguments": e.arguments} for e in task.expect],
        "first_reply": [call.tool for call in outcome.first_reply],
        "calls": [{"tool": c.tool, "arguments": c.arguments} for c in outcome.calls],
        "answer": outcome.answer[:ANSWER_SHOWN],
        "error": outcome.error,
        "checks": {  # True: passed
            f"no_{metric}" if metric in COUNTS_FAILURES else metric: passed(metric, hits, of)
            for metric, (hits, of) in tally.items()
            if of or metric in COUNTS_FAILURES
        },
    }


def set_report(task_set: TaskSet, with_details: bool) -> dict[str, Any]:
    """Run every task of the set and report general and workspace tasks apart: they
    are held to different bars."""
    print(f"{task_set.name}: {len(task_set.tasks)} tasks", file=sys.stderr, flush=True)
    outcomes = [asyncio.run(run_task(task, task_set.tools)) for task in task_set.tasks]
    tallies = [score(outcome) for outcome in outcomes]
    general = [t for o, t in zip(outcomes, tallies, strict=True) if not o.task.in_workspace]
    workspace = [t for o, t in zip(outcomes, tallies, strict=True) if o.task.in_workspace]
    report: dict[str, Any] = {"tasks": len(outcomes)}
    if general:
        report["general"] = block_report(general, GENERAL_BARS)
    if workspace:
        report["workspace"] = block_report(workspace, WORKSPACE_BARS)
    if with_details:
        report["details"] = list(map(details, outcomes, tallies))

    return report


def set_reports(sets: list[TaskSet], args: argparse.Namespace) -> dict[str, Any]:
    """Every set's report, the sets shared out among `--jobs` processes (each decision
    depends only on its request and tools, so the figures do not change with them).
    With `--keep DIR`, each report is kept in DIR as its set finishes, and a set whose
    kept report was made by the same code on the same files is not run again."""
    kept = KeptReports(args.keep, args) if args.keep is not None else None
    found = {s.name: kept.report(s) for s in sets} if kept is not None else {}
    todo = [s for s in sets if found.get(s.name) is None]
    if todo:
        print(f"running {len(todo)} of {len(sets)} sets", file=sys.stderr, flush=True)

    def finished(task_set: TaskSet, report: dict[str, Any]) -> None:
        found[task_set.name] = report
        if kept is not None:
            kept.keep(task_set, report)

    if args.jobs <= 1 or len(todo) < 2:
        for s in todo:
            finished(s, set_report(s, args.details))
        return {s.name: found[s.name] for s in sets}
    # Largest first, so the longest sets do not start last.
    order = sorted(todo, key=lambda s: len(s.tasks), reverse=True)
    spawn = multiprocessing.get_context("spawn")  # a fresh process: no state from this one
    with ProcessPoolExecutor(min(args.jobs, len(todo)), mp_context=spawn) as pool:
        futures = {
            pool.submit(report_of_set_file, s.path, list(args.tools), args.details): s
            for s in order
        }
        for future in as_completed(futures):
            finished(futures[future], future.result())
    return {s.name: found[s.name] for s in sets}


class KeptReports:
    """Set reports kept in a directory, each under the fingerprint of what made it: the
    `tiller` package, this script, the set's file, its tools, the workspace fixture, the
    model file and llama-cpp-python. A run stopped halfway resumes with the sets it had
    not finished; a report made by other code or files is run again."""

    def __init__(self, directory: Path, args: argparse.Namespace) -> None:
        import llama_cpp

        import tiller
        from tiller.models.local.weights import bundled_smollm2

        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        package = Path(tiller.__file__).parent
        common = [
            *sorted(package.rglob("*.py")),
            Path(__file__),
            *sorted(p for p in WORKSPACE_DIR.rglob("*") if p.is_file()),
            *(Path(t) for t in args.tools),
        ]
        self._common = hashlib.sha256()
        for path in common:
            self._common.update(_file_digest(path))
        model = bundled_smollm2()
        self._common.update(f"{model.name}:{model.stat().st_size}".encode())
        self._common.update(f"llama-cpp-python {llama_cpp.__version__}".encode())
        self._common.update(f"details={args.details}".encode())

    def fingerprint(self, task_set: TaskSet) -> str:
        digest = self._common.copy()
        for path in [task_set.path, *set_tool_files(task_set.path)]:
            digest.update(_file_digest(path))
        return digest.hexdigest()

    def report(self, task_set: TaskSet) -> dict[str, Any] | None:
        path = self.directory / f"{task_set.name}.json"
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(kept, dict) or kept.get("fingerprint") != self.fingerprint(task_set):
            return None
        report: dict[str, Any] = kept["report"]
        return report

    def keep(self, task_set: TaskSet, report: dict[str, Any]) -> None:
        path = self.directory / f"{task_set.name}.json"
        kept = {"fingerprint": self.fingerprint(task_set), "report": report}
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(kept, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        partial.replace(path)  # a run killed while writing leaves no half report behind


def _file_digest(path: Path) -> bytes:
    return hashlib.sha256(path.name.encode() + b"\0" + path.read_bytes()).digest()


def report_of_set_file(path: Path, tools: list[str], with_details: bool) -> dict[str, Any]:
    """`set_report` of the set in `path`, in a worker process."""
    extra = [Path(p) for p in tools]
    return set_report(load_set(path, load_tools([*set_tool_files(path), *extra])), with_details)


def load(args: argparse.Namespace) -> list[TaskSet]:
    """The sets with their tools, all checked before anything is measured."""
    extra = [Path(p) for p in args.tools]
    sets = [
        load_set(path, load_tools([*set_tool_files(path), *extra])) for path in set_paths(args.sets)
    ]
    for task_set in sets:
        if task_set.unchecked:
            lines = ", ".join(where.rsplit(":", 1)[1] for where in task_set.unchecked)
            print(
                f"{task_set.name}: answer_contains not checked on lines {lines}: the expected "
                "call lists too few arguments to simulate it",
                file=sys.stderr,
            )
    return sets


def main() -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-tools", action="store_true")
    parser.add_argument(
        "--sets",
        help="comma-separated task sets: NAME (benchmarks/local_tasks/NAME.jsonl) or "
        "FILE.jsonl; default: every set in benchmarks/local_tasks/",
    )
    parser.add_argument(
        "--tools", action="append", default=[], metavar="FILE", help="more tool declarations"
    )
    parser.add_argument("--details", action="store_true", help="include every task's run")
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="run the sets in N processes at once"
    )
    parser.add_argument("--output", type=Path, help="also write the JSON report here")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each set's report in DIR as it finishes; a run stopped halfway and "
        "started again with the same code and files runs only the sets left",
    )
    parser.add_argument(
        "--expect",
        type=Path,
        metavar="FILE",
        help="published figures: exit 1 naming each figure of this run that differs",
    )
    args = parser.parse_args()
    sets: list[TaskSet] = []
    if not args.skip_tools:
        try:
            sets = load(args)
        except SetError as exc:
            print(exc, file=sys.stderr)
            return 2
    report: dict[str, Any] = {"model": MODEL}
    if not args.skip_speed:
        report["speed"] = speed(args.trials, args.max_tokens)
    if sets:
        report["tool_use"] = set_reports(sets, args)
    text = json.dumps(report, indent=2, ensure_ascii=False, sort_keys=True)
    print(text)
    if args.output is not None:
        args.output.write_text(text + "\n", encoding="utf-8")
    if args.expect is not None:
        return compare_figures(report, json.loads(args.expect.read_text(encoding="utf-8")))
    return 0


def compare_figures(report: dict[str, Any], published: dict[str, Any]) -> int:
    """0 when every set's figures equal the published ones, else 1 after naming each
    figure that differs (details and timings are not figures)."""

    def figures(found: dict[str, Any]) -> dict[str, Any]:
        sets = found.get("tool_use", {})
        return {name: {k: v for k, v in r.items() if k != "details"} for name, r in sets.items()}

    ours, theirs = _flat(figures(report)), _flat(figures(published))
    differing = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
    for key in differing:
        print(f"{key}: published {theirs.get(key)!r}, this run {ours.get(key)!r}", file=sys.stderr)
    if differing:
        print(f"{len(differing)} figures differ from the published ones", file=sys.stderr)
        return 1
    print("every figure equals the published one", file=sys.stderr)
    return 0


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(value, dict):
        return {prefix: value}
    found: dict[str, Any] = {}
    for key, item in value.items():
        found.update(_flat(item, f"{prefix}.{key}" if prefix else key))
    return found


if __name__ == "__main__":
    sys.exit(main())
