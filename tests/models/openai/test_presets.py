"""OpenAI-protocol prefixes: default base URLs and key variables, explicit options."""

from __future__ import annotations

import sys

import pytest

from tests.models.openai.wire import ask, collect
from tests.servers.openai_api import OpenAIServer, chat_text
from tiller.errors import ConfigError
from tiller.models.openai.chat import OpenAIChatModel
from tiller.models.openai.presets import NO_KEY, PRESETS
from tiller.models.registry import known_providers, resolve_model

EXPECTED = {
    # prefix: (default base URL, API-key variable or None when none is needed)
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "ollama": ("http://localhost:11434/v1", None),
    "vllm": ("http://localhost:8000/v1", None),
    "llamacpp": ("http://localhost:8080/v1", None),
    "lmstudio": ("http://localhost:1234/v1", None),
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "deepseek": ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    "xai": ("https://api.x.ai/v1", "XAI_API_KEY"),
}


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in {env for _, env in EXPECTED.values() if env} | {"OPENAI_BASE_URL"}:
        monkeypatch.delenv(variable, raising=False)


def test_every_prefix_is_registered() -> None:
    assert set(EXPECTED) | {"openai-responses"} <= set(known_providers())
    assert set(PRESETS) == set(EXPECTED)


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_presets_resolve_with_their_base_url_and_key(
    prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, env = EXPECTED[prefix]
    if env:
        monkeypatch.setenv(env, f"key-for-{prefix}")
    model = resolve_model(f"{prefix}:some-model", circuit_breaker=False)
    assert isinstance(model, OpenAIChatModel)
    assert (model.name, model.provider, model.endpoint) == ("some-model", prefix, url)
    assert model.connection.api_key == (f"key-for-{prefix}" if env else NO_KEY)


@pytest.mark.parametrize("prefix", sorted(p for p, (_, env) in EXPECTED.items() if env))
def test_a_missing_key_names_the_variable(prefix: str) -> None:
    env = EXPECTED[prefix][1]
    with pytest.raises(ConfigError, match=f"set {env} or pass api_key="):
        resolve_model(f"{prefix}:m")


def test_the_responses_prefix_needs_the_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        resolve_model("openai-responses:gpt-5")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    model = resolve_model("openai-responses:gpt-5", circuit_breaker=False)
    assert getattr(model, "endpoint") == "https://api.openai.com/v1"  # noqa: B009


def test_explicit_options_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "from-env")
    model = resolve_model(
        "groq:llama", base_url="http://proxy.local/v1/", api_key="explicit", circuit_breaker=False
    )
    assert isinstance(model, OpenAIChatModel)
    assert (model.endpoint, model.connection.api_key) == ("http://proxy.local/v1", "explicit")


def test_openai_base_url_variable_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gateway.local/v1")
    model = resolve_model("openai:gpt-4.1", circuit_breaker=False)
    assert getattr(model, "endpoint") == "http://gateway.local/v1"  # noqa: B009


def test_unknown_options_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"unknown option\(s\) temprature; accepted: "):
        resolve_model("ollama:qwen3", temprature=0.1)


async def test_base_url_and_api_key_options_are_used_on_the_wire(server: OpenAIServer) -> None:
    server.add(chat_text("from the test server"))
    model = resolve_model("groq:llama-3.3-70b", base_url=server.url, api_key="gsk-explicit")
    _, message = await collect(model, ask("x"))
    assert message.text == "from the test server"
    assert message.provider == "groq"
    sent = server.requests[0]
    assert sent.headers["authorization"] == "Bearer gsk-explicit"
    assert sent.body["model"] == "llama-3.3-70b"


async def test_a_base_url_alone_needs_no_key(server: OpenAIServer) -> None:
    """An OpenAI-compatible server given by URL may have no key; a placeholder is sent."""
    server.add(chat_text("ok"))
    model = resolve_model("openai:local-model", base_url=server.url)
    await collect(model, ask("x"))
    assert server.requests[0].headers["authorization"] == f"Bearer {NO_KEY}"


async def test_no_openai_account_headers_go_to_other_providers(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-private")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-private")
    server.add(chat_text("ok"))
    await collect(resolve_model("ollama:qwen3", base_url=server.url), ask("x"))
    headers = server.requests[0].headers
    assert "openai-organization" not in headers
    assert headers["authorization"] == f"Bearer {NO_KEY}"


async def test_mistral_is_not_sent_stream_options(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", "m")
    server.add(chat_text("bonjour"))
    _, message = await collect(
        resolve_model("mistral:mistral-small", base_url=server.url), ask("x")
    )
    assert message.text == "bonjour"
    assert "stream_options" not in server.requests[0].body


def test_importing_the_presets_does_not_import_the_sdk() -> None:
    import subprocess

    code = (
        "import sys\n"
        "from tiller.models.registry import resolve_model\n"
        "resolve_model('ollama:qwen3', circuit_breaker=False)\n"
        "print('openai' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "False"
