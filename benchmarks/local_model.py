"""The embedded model: Tiller's end-to-end generation against bare llama-cpp-python,
and tool-use accuracy on a small task set. Prints JSON.

    .venv/bin/python benchmarks/local_model.py [--trials N] [--max-tokens N] [--skip-speed]

Speed: the same prompt, sampling settings and thread count on both sides; the
KV cache is cleared before every trial so neither side reuses a prefix.
Tool use: each task runs a real `Agent` on `local:smollm2` with real tools.
`TASKS`, `HELD_OUT` and `FRESH` are the first development tasks. The test sets
were written by someone else, each to be measured once before anyone looks at
its prompts, and used for development after that: `TEST_TASKS` to
`TEST_TASKS_3` have been (the tool-choice rule, its threshold and the argument
patterns were chosen on all 202 tasks). `TEST_TASKS_4` was then measured once
(2026-11-23, commit 03bc16e): tool called when needed 93.8%, right tool 90.6%,
text when none needed 81.2%, arguments valid 100%, answer uses the result 100%.
It has been read since, so the next honest figure needs a fifth set.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local_model_test_tasks import TEST_TASKS
from local_model_test_tasks_2 import TEST_TASKS_2
from local_model_test_tasks_3 import TEST_TASKS_3
from local_model_test_tasks_4 import TEST_TASKS_4
from tiller import Agent, tool
from tiller.events import AgentEvent, ToolExecutionStart
from tiller.messages import AssistantMessage, UserMessage
from tiller.models import ModelRequest, ModelSettings
from tiller.models.local import LocalModel, runtime
from tiller.models.local.chat import chat_messages
from tiller.models.local.decoding import Sampling
from tiller.tools import FunctionTool

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


# ── tool use ────────────────────────────────────────────────────────────────

WEATHER = {"paris": "18°C and sunny", "tokyo": "light rain, 12°C", "oslo": "snow, -3°C"}
RATES = {"USD": 1.1, "GBP": 0.85, "JPY": 160.0}
FILES = {"notes.txt": "Buy milk. Call Ana at 5.", "version.txt": "4.2.7"}


def make_tools(workdir: Path) -> dict[str, FunctionTool]:
    @tool
    def calculator(expression: str) -> str:
        """Evaluate an arithmetic expression such as 17 * 23."""
        allowed = set("0123456789+-*/(). ")
        if not set(expression) <= allowed:
            return "error: only numbers and + - * / ( ) are allowed"
        try:
            value = eval(expression, {"__builtins__": {}})
        except Exception as exc:
            return f"error: {exc}"
        return str(int(value)) if float(value).is_integer() else f"{value:.4g}"

    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return WEATHER.get(city.strip().lower(), f"no weather data for {city}")

    @tool
    def read_file(path: str) -> str:
        """Read a text file from the working directory."""
        target = workdir / Path(path).name
        return target.read_text() if target.exists() else f"error: no file {path}"

    @tool
    def convert_currency(amount: float, currency: str) -> str:
        """Convert an amount in euros to another currency (USD, GBP or JPY)."""
        rate = RATES.get(currency.strip().upper())
        if rate is None:
            return f"error: unknown currency {currency}; known: {', '.join(RATES)}"
        return f"{amount:g} EUR = {amount * rate:.2f} {currency.strip().upper()}"

    @tool
    def word_count(text: str) -> str:
        """Count the words in a text."""
        return str(len(text.split()))

    return {t.name: t for t in (calculator, get_weather, read_file, convert_currency, word_count)}


@dataclass
class Task:
    kind: str  # single | choice | none | two_step
    prompt: str
    tools: list[str]
    expect_tool: str | None
    expect_in_answer: str | None = None


TASKS = [
    Task("single", "What is 17 * 23?", ["calculator"], "calculator"),
    Task("single", "Compute 1024 / 16.", ["calculator"], "calculator"),
    Task("single", "Calculate 45 + 67 + 89.", ["calculator"], "calculator"),
    Task("single", "What's the weather in Paris?", ["get_weather"], "get_weather"),
    Task("single", "Read the file notes.txt", ["read_file"], "read_file"),
    Task("choice", "What is 99 * 99?", ["calculator", "get_weather", "read_file"], "calculator"),
    Task(
        "choice", "How much is 250 - 75?", ["calculator", "get_weather", "read_file"], "calculator"
    ),
    Task(
        "choice",
        "Is it raining in Tokyo?",
        ["calculator", "get_weather", "read_file"],
        "get_weather",
    ),
    Task(
        "choice",
        "What's the weather like in Oslo today?",
        ["calculator", "get_weather", "read_file"],
        "get_weather",
    ),
    Task(
        "choice",
        "Show me the contents of version.txt",
        ["calculator", "get_weather", "read_file"],
        "read_file",
    ),
    Task(
        "choice",
        "Open notes.txt and tell me what it says.",
        ["calculator", "get_weather", "read_file"],
        "read_file",
    ),
    Task("none", "Hello! How are you?", ["calculator", "get_weather", "read_file"], None),
    Task("none", "Tell me a joke.", ["calculator", "get_weather", "read_file"], None),
    Task(
        "none", "What is the capital of France?", ["calculator", "get_weather", "read_file"], None
    ),
    Task("none", "Write a haiku about the sea.", ["calculator", "get_weather", "read_file"], None),
    Task("none", "Who wrote Hamlet?", ["calculator", "get_weather", "read_file"], None),
    Task("none", "Thanks, that's all for today.", ["calculator", "get_weather", "read_file"], None),
    Task("two_step", "What is 12 * 12? Use the calculator.", ["calculator"], "calculator", "144"),
    Task("two_step", "Use the calculator to add 350 and 275.", ["calculator"], "calculator", "625"),
    Task(
        "two_step", "What is the weather in Paris right now?", ["get_weather"], "get_weather", "18"
    ),
    Task("two_step", "What version is in version.txt?", ["read_file"], "read_file", "4.2.7"),
    Task("two_step", "Read notes.txt: who should I call?", ["read_file"], "read_file", "Ana"),
]


ALL = ["calculator", "get_weather", "read_file"]

# Held out from the first design's calibration; part of the development tasks since.
HELD_OUT = [
    Task("single", "Work out 81 / 9 for me.", ["calculator"], "calculator"),
    Task("single", "How warm is it in Tokyo?", ["get_weather"], "get_weather"),
    Task("choice", "Multiply 36 by 12.", ALL, "calculator"),
    Task("choice", "Give me the forecast for Paris.", ALL, "get_weather"),
    Task("choice", "Print the file version.txt", ALL, "read_file"),
    Task("choice", "What is 1000 minus 1?", ALL, "calculator"),
    Task("none", "Good morning!", ALL, None),
    Task("none", "What colour is the sky?", ALL, None),
    Task("none", "Translate 'cat' into French.", ALL, None),
    Task("none", "Name a famous painter.", ALL, None),
    Task("two_step", "What does notes.txt say about milk?", ["read_file"], "read_file", "milk"),
    Task("two_step", "Use the calculator: 7 * 8", ["calculator"], "calculator", "56"),
]


# Written after the first design was fixed; adds two tools it never saw. Part of the
# development tasks since.
FIVE = [*ALL, "convert_currency", "word_count"]
FRESH = [
    Task("single", "Convert 20 euros to USD.", ["convert_currency"], "convert_currency"),
    Task("single", "Divide 144 by 12.", ["calculator"], "calculator"),
    Task("single", "Weather in Oslo, please.", ["get_weather"], "get_weather"),
    Task(
        "single",
        "Count the words in this sentence: I love green apples.",
        ["word_count"],
        "word_count",
    ),
    Task("choice", "What is 15% of 80?", FIVE, "calculator"),
    Task("choice", "Do I need an umbrella in Paris today?", FIVE, "get_weather"),
    Task("choice", "Display notes.txt", FIVE, "read_file"),
    Task("choice", "What's inside version.txt?", FIVE, "read_file"),
    Task("choice", "How many words are in 'the quick brown fox'?", FIVE, "word_count"),
    Task("choice", "How much is 100 euros in yen?", FIVE, "convert_currency"),
    Task("choice", "Add 19 and 23.", FIVE, "calculator"),
    Task("choice", "Is it cold in Oslo right now?", FIVE, "get_weather"),
    Task("none", "Tell me about the Roman Empire.", FIVE, None),
    Task("none", "What's your name?", FIVE, None),
    Task("none", "Give me three tips for better sleep.", FIVE, None),
    Task("none", "Can you recommend a good book?", FIVE, None),
    Task("none", "Explain photosynthesis simply.", FIVE, None),
    Task("none", "Goodbye!", FIVE, None),
    Task("none", "Why is the ocean salty?", FIVE, None),
    Task("none", "Suggest a name for my dog.", FIVE, None),
    Task("two_step", "Convert 10 euros to GBP.", ["convert_currency"], "convert_currency", "8.5"),
    Task("two_step", "What is 6 * 7?", ["calculator"], "calculator", "42"),
    Task("two_step", "What's the weather in Oslo?", ["get_weather"], "get_weather", "-3"),
    Task("two_step", "What does version.txt contain?", ["read_file"], "read_file", "4.2.7"),
]


TEST_1 = [Task(*row) for row in TEST_TASKS]
TEST_2 = [Task(*row) for row in TEST_TASKS_2]
TEST_3 = [Task(*row) for row in TEST_TASKS_3]
TEST_4 = [Task(*row) for row in TEST_TASKS_4]


@dataclass
class Outcome:
    task: Task
    called: list[str] = field(default_factory=list)
    arguments: list[dict[str, Any]] = field(default_factory=list)
    arguments_valid: list[bool] = field(default_factory=list)
    answer: str = ""
    error: str | None = None


async def run_task(task: Task, tools: dict[str, FunctionTool]) -> Outcome:
    outcome = Outcome(task)
    chosen = [tools[n] for n in task.tools]

    def watch(event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionStart):
            outcome.called.append(event.tool_name)
            outcome.arguments.append(event.arguments)
            try:
                tools[event.tool_name].validate(event.arguments)
                outcome.arguments_valid.append(True)
            except Exception:
                outcome.arguments_valid.append(False)

    from tiller.loop import Limits

    agent = Agent("local:smollm2", tools=chosen, limits=Limits(max_turns=3))
    agent.subscribe(watch)
    result = await agent.run(task.prompt)
    outcome.answer = result.text
    outcome.error = result.error
    return outcome


def tool_use(tasks: list[Task]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for name, text in FILES.items():
            (workdir / name).write_text(text)
        tools = make_tools(workdir)
        outcomes = [asyncio.run(run_task(task, tools)) for task in tasks]

    def rate(rows: list[bool]) -> float | None:
        return round(sum(rows) / len(rows), 3) if rows else None

    needed = [o for o in outcomes if o.task.expect_tool is not None]
    not_needed = [o for o in outcomes if o.task.expect_tool is None]
    two_step = [o for o in outcomes if o.task.expect_in_answer is not None and o.called]
    all_args = [v for o in outcomes for v in o.arguments_valid]
    report = {
        "tasks": len(outcomes),
        "tool_called_when_needed": rate([bool(o.called) for o in needed]),
        "right_tool_when_needed": rate([o.called[:1] == [o.task.expect_tool] for o in needed]),
        "text_when_no_tool_needed": rate([not o.called for o in not_needed]),
        "arguments_schema_valid": rate(all_args),
        "answer_uses_tool_result": rate(
            [(o.task.expect_in_answer or "") in o.answer for o in two_step]
        ),
        "details": [
            {
                "kind": o.task.kind,
                "prompt": o.task.prompt,
                "expected": o.task.expect_tool,
                "called": o.called,
                "arguments": o.arguments,
                "answer": o.answer[:120],
                "error": o.error,
            }
            for o in outcomes
        ],
    }
    report["bars"] = {
        "tool_called_when_needed >= 0.9": (report["tool_called_when_needed"] or 0) >= 0.9,
        "text_when_no_tool_needed >= 0.8": (report["text_when_no_tool_needed"] or 0) >= 0.8,
        "arguments_schema_valid == 1.0": report["arguments_schema_valid"] in (1.0, None),
        "answer_uses_tool_result >= 0.9": (report["answer_uses_tool_result"] or 0) >= 0.9,
    }
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-tools", action="store_true")
    parser.add_argument(
        "--sets",
        default="development,test1,test2,test3,test4",
        help="tool-use task sets: development, test1-3 (development data now), test4",
    )
    args = parser.parse_args()
    sets = set(args.sets.split(","))
    report: dict[str, Any] = {"model": "local:smollm2"}
    if not args.skip_speed:
        report["speed"] = speed(args.trials, args.max_tokens)
    if not args.skip_tools and "development" in sets:
        report["tool_use_development"] = tool_use(TASKS + HELD_OUT + FRESH)
    if not args.skip_tools and "test1" in sets:
        report["tool_use_test_1"] = tool_use(TEST_1)
    if not args.skip_tools and "test2" in sets:
        report["tool_use_test_2"] = tool_use(TEST_2)
    if not args.skip_tools and "test3" in sets:
        report["tool_use_test_3"] = tool_use(TEST_3)
    if not args.skip_tools and "test4" in sets:
        report["tool_use_test_4"] = tool_use(TEST_4)
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
