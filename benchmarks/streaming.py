"""Streaming overhead: Tiller's providers against the bare official SDKs, on the same stream.

Run with the project's venv::

    .venv/bin/python benchmarks/streaming.py [--deltas 2000] [--trials 15] [--output FILE]

What it does:

1. Starts the test servers of ``tests/servers`` (the fake OpenAI API, once for Chat
   Completions and once for the Responses API, and the fake Anthropic Messages API
   when it exists) in a separate process, so serving does not share this process's
   interpreter lock with the clients being timed.
2. For each protocol, every request gets the same answer: ``--deltas`` text deltas sent
   back to back, then the protocol's end (usage chunk and ``[DONE]`` for Chat
   Completions; ``response.output_text.done`` ... ``response.completed`` for Responses;
   ``message_delta`` and ``message_stop`` for Anthropic).
3. Times, per trial, from the first streamed item to the finished answer:

   * ``tiller``: the provider's ``stream()`` (deltas, then the assembled
     ``AssistantMessage`` with usage and cost);
   * ``sdk``: the official SDK iterating the same stream (``create(stream=True)`` on
     ``chat.completions``, ``responses`` or ``messages``, ``async for`` over its parsed
     chunks or events), nothing else;
   * ``tiller_agent`` (for information): a whole ``Agent.run`` on the same stream,
     from the first ``message_update`` event to ``message_end``;
   * ``raw_bytes`` (the floor): the same request read as raw bytes, nothing parsed,
     which is how fast the server sends.

   Trials alternate which client goes first; medians are compared.
4. Prints one JSON document: per protocol, each client's median/min in ms, the ratio
   tiller/sdk, and whether it is within the bar (1.5x).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # for tests.servers
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

BAR_RATIO = 1.5
API_KEY = "test-key"
WARMUP = 3


def log(message: str) -> None:
    print(f"[streaming] {message}", file=sys.stderr, flush=True)


def pieces(deltas: int) -> list[str]:
    """Short word-like deltas, as a model streams them."""
    return [f"w{i % 97} " for i in range(deltas)]


# --------------------------------------------------------------------------- servers


def anthropic_available() -> bool:
    return (ROOT / "tests/servers/anthropic_api.py").exists() and (
        ROOT / "src/tiller/models/anthropic"
    ).is_dir()


def serve(deltas: int, requests: int) -> None:
    """The server process: print the base URLs as one JSON line, serve until stdin closes."""
    from contextlib import ExitStack

    from tests.servers.openai_api import ChatStream, OpenAIServer, ResponsesStream

    text = pieces(deltas)
    openai_stream = ChatStream().text(*text).finish("stop").usage(20, deltas).stream()
    responses_stream = (
        ResponsesStream(model="gpt-4.1").message(*text).completed(20, deltas).stream()
    )
    urls: dict[str, str] = {}
    with ExitStack() as stack:
        openai_server = stack.enter_context(OpenAIServer([openai_stream] * requests))
        urls["openai"] = openai_server.url
        responses_server = stack.enter_context(OpenAIServer([responses_stream] * requests))
        urls["openai_responses"] = responses_server.url
        if anthropic_available():
            from tests.servers.anthropic_api import AnthropicAPI, Reply, Text

            anthropic_server = AnthropicAPI(api_key=API_KEY)
            stack.enter_context(anthropic_server.serving())
            size = len(text[0])
            reply = Reply([Text("".join(text), piece=size)])
            anthropic_server.script(*([reply] * requests))
            urls["anthropic"] = anthropic_server.url
        print(json.dumps(urls), flush=True)
        sys.stdin.read()  # the parent closes stdin when it is done


# --------------------------------------------------------------------------- clients

Timed = Callable[[], Awaitable[float]]


async def _model_span(model: Any, request: Any, check: Callable[[Any], bool]) -> float:
    """Seconds from a Tiller model's first stream item to its final message, which
    must pass `check`."""
    from tiller.messages import AssistantMessage

    first: float | None = None
    final: AssistantMessage | None = None
    async for item in model.stream(request):
        if first is None:
            first = time.perf_counter()
        if isinstance(item, AssistantMessage):
            final = item
    end = time.perf_counter()
    assert first is not None
    assert final is not None
    assert check(final), "the final message is not what the stream sent"
    return end - first


async def _span(items: AsyncIterator[Any]) -> float:
    """Seconds from the first item to the end of the stream."""
    first: float | None = None
    async for _ in items:
        if first is None:
            first = time.perf_counter()
    assert first is not None, "the stream yielded nothing"
    return time.perf_counter() - first


def openai_clients(url: str) -> dict[str, Timed]:
    from openai import AsyncOpenAI

    from tiller import Agent
    from tiller.events import MessageEnd, MessageUpdate
    from tiller.messages import UserMessage
    from tiller.models.base import ModelRequest
    from tiller.models.openai.chat import OpenAIChatModel

    model = OpenAIChatModel("gpt-4.1", base_url=url, api_key=API_KEY)
    client = AsyncOpenAI(base_url=url, api_key=API_KEY, max_retries=0)
    request = ModelRequest([UserMessage.of("Stream a long answer.")])

    async def tiller() -> float:
        return await _model_span(model, request, lambda final: final.usage.output_tokens > 0)

    async def sdk() -> float:
        stream = await client.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "user", "content": "Stream a long answer."}],
            stream=True,
            stream_options={"include_usage": True},
        )
        return await _span(aiter(stream))

    async def tiller_agent() -> float:
        return await _agent_span(Agent(model), MessageUpdate, MessageEnd)

    raw = _raw_client(
        f"{url}/chat/completions",
        {"authorization": f"Bearer {API_KEY}"},
        {
            "model": "gpt-4.1",
            "messages": [{"role": "user", "content": "Stream a long answer."}],
            "stream": True,
            "stream_options": {"include_usage": True},
        },
    )
    return {"tiller": tiller, "sdk": sdk, "tiller_agent": tiller_agent, "raw_bytes": raw}


def responses_clients(url: str) -> dict[str, Timed]:
    from openai import AsyncOpenAI

    from tiller import Agent
    from tiller.events import MessageEnd, MessageUpdate
    from tiller.messages import UserMessage
    from tiller.models.base import ModelRequest
    from tiller.models.openai.responses import OpenAIResponsesModel

    model = OpenAIResponsesModel("gpt-4.1", base_url=url, api_key=API_KEY)
    client = AsyncOpenAI(base_url=url, api_key=API_KEY, max_retries=0)
    request = ModelRequest([UserMessage.of("Stream a long answer.")])

    async def tiller() -> float:
        return await _model_span(model, request, lambda final: final.usage.output_tokens > 0)

    async def sdk() -> float:
        stream = await client.responses.create(
            model="gpt-4.1",
            input=[{"role": "user", "content": "Stream a long answer."}],
            stream=True,
        )
        return await _span(aiter(stream))

    async def tiller_agent() -> float:
        return await _agent_span(Agent(model), MessageUpdate, MessageEnd)

    raw = _raw_client(
        f"{url}/responses",
        {"authorization": f"Bearer {API_KEY}"},
        {
            "model": "gpt-4.1",
            "input": [{"role": "user", "content": "Stream a long answer."}],
            "stream": True,
        },
    )
    return {"tiller": tiller, "sdk": sdk, "tiller_agent": tiller_agent, "raw_bytes": raw}


def _raw_client(url: str, headers: dict[str, str], body: dict[str, Any]) -> Timed:
    """The floor: the same request read as raw bytes, nothing parsed (how fast the server sends)."""
    import httpx2

    client = httpx2.AsyncClient(timeout=60)

    async def raw() -> float:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            return await _span(response.aiter_bytes())

    return raw


def anthropic_clients(url: str) -> dict[str, Timed]:
    from anthropic import AsyncAnthropic

    from tiller import Agent
    from tiller.events import MessageEnd, MessageUpdate
    from tiller.messages import UserMessage
    from tiller.models.anthropic import AnthropicModel
    from tiller.models.base import ModelRequest

    model = AnthropicModel("claude-sonnet-4-5", api_key=API_KEY, base_url=url)
    client = AsyncAnthropic(api_key=API_KEY, base_url=url, max_retries=0)
    request = ModelRequest([UserMessage.of("Stream a long answer.")])

    async def tiller() -> float:
        return await _model_span(model, request, lambda final: bool(final.text))

    async def sdk() -> float:
        stream = await client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=4096,
            messages=[{"role": "user", "content": "Stream a long answer."}],
            stream=True,
        )
        return await _span(aiter(stream))

    async def tiller_agent() -> float:
        return await _agent_span(Agent(model), MessageUpdate, MessageEnd)

    raw = _raw_client(
        f"{url}/v1/messages",
        {"x-api-key": API_KEY, "anthropic-version": "2023-06-01"},
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "messages": [{"role": "user", "content": "Stream a long answer."}],
            "stream": True,
        },
    )
    return {"tiller": tiller, "sdk": sdk, "tiller_agent": tiller_agent, "raw_bytes": raw}


async def _agent_span(agent: Any, update: type[Any], end: type[Any]) -> float:
    marks: dict[str, float] = {}

    def listen(event: Any) -> None:
        if isinstance(event, update) and "first" not in marks:
            marks["first"] = time.perf_counter()
        elif isinstance(event, end) and event.message.role == "assistant":
            marks["end"] = time.perf_counter()

    agent.subscribe(listen)
    result = await agent.run("Stream a long answer.")
    assert "end" in marks, "no message_end for the answer"
    assert result.stop_reason == "stop", result.error
    return marks["end"] - marks["first"]


# --------------------------------------------------------------------------- measuring


async def measure(clients: dict[str, Timed], trials: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in clients}
    names = list(clients)
    for _ in range(WARMUP):
        for name in names:
            await clients[name]()
    for trial in range(trials):
        order = names if trial % 2 == 0 else list(reversed(names))
        for name in order:
            samples[name].append(await clients[name]())
    return samples


def summarize(samples: dict[str, list[float]], deltas: int) -> dict[str, Any]:
    report: dict[str, Any] = {}
    for name, values in samples.items():
        median = statistics.median(values)
        report[name] = {
            "median_ms": round(median * 1000, 3),
            "min_ms": round(min(values) * 1000, 3),
            "max_ms": round(max(values) * 1000, 3),
            "per_delta_us": round(median / deltas * 1e6, 3),
            "trials": len(values),
        }
    ratio = statistics.median(samples["tiller"]) / statistics.median(samples["sdk"])
    report["ratio_tiller_to_sdk"] = round(ratio, 3)
    report["sdk_over_floor_ms"] = round(
        (statistics.median(samples["sdk"]) - statistics.median(samples["raw_bytes"])) * 1000, 3
    )
    report["tiller_over_floor_ms"] = round(
        (statistics.median(samples["tiller"]) - statistics.median(samples["raw_bytes"])) * 1000, 3
    )
    report["agent_ratio_to_sdk"] = round(
        statistics.median(samples["tiller_agent"]) / statistics.median(samples["sdk"]), 3
    )
    report["bar"] = f"tiller <= {BAR_RATIO}x the bare SDK (median, first item to finished answer)"
    report["met"] = ratio <= BAR_RATIO
    return report


async def run_all(urls: dict[str, str], deltas: int, trials: int) -> dict[str, Any]:
    protocols: dict[str, Any] = {}
    log(f"openai chat completions: {trials} trials of {deltas} deltas")
    protocols["openai_chat"] = summarize(
        await measure(openai_clients(urls["openai"]), trials), deltas
    )
    log(f"openai responses: {trials} trials of {deltas} deltas")
    protocols["openai_responses"] = summarize(
        await measure(responses_clients(urls["openai_responses"]), trials), deltas
    )
    if "anthropic" in urls:
        log(f"anthropic messages: {trials} trials of {deltas} deltas")
        protocols["anthropic"] = summarize(
            await measure(anthropic_clients(urls["anthropic"]), trials), deltas
        )
    else:
        protocols["anthropic"] = {
            "skipped": "tests/servers/anthropic_api.py or the provider is missing"
        }
    return protocols


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deltas", type=int, default=2_000, help="text deltas per answer")
    parser.add_argument("--trials", type=int, default=15, help="timed trials per client")
    parser.add_argument("--output", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--requests", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.serve:
        serve(args.deltas, args.requests)
        return 0

    requests = (WARMUP + args.trials) * 4 + 5
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}"}
    server = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--serve",
            "--deltas",
            str(args.deltas),
            "--requests",
            str(requests),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        urls = json.loads(server.stdout.readline())
        started = time.perf_counter()
        protocols = asyncio.run(run_all(urls, args.deltas, args.trials))
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=30)

    document = {
        "benchmark": "streaming overhead: Tiller's providers vs the bare official SDKs",
        "workload": {
            "deltas": args.deltas,
            "trials": args.trials,
            "warmup": WARMUP,
            "timed": "first streamed item to the finished answer, same stream for every client",
            "server": "tests/servers fake APIs on 127.0.0.1 in a separate process",
        },
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "protocols": protocols,
        "all_bars_met": all(p.get("met", True) for p in protocols.values()),
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    text = json.dumps(document, indent=2)
    print(text)
    if args.output:
        args.output.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
