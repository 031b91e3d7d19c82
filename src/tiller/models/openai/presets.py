"""OpenAI-protocol providers: each model-string prefix with its base URL and key variable.

    openai:gpt-4.1                  https://api.openai.com/v1      OPENAI_API_KEY
    ollama:qwen3                    http://localhost:11434/v1      (no key)
    groq:llama-3.3-70b-versatile    https://api.groq.com/openai/v1 GROQ_API_KEY
    ...

Every prefix takes `base_url=` and `api_key=` (and the other `CHAT_OPTIONS`) as
keyword options (the registry's factories are in `factories.py`). A missing key
that the provider needs is a `ConfigError` that names the variable to set. Local
servers need no key; one is sent only if given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from tiller.errors import ConfigError
from tiller.models.openai.client import Connection

# Sent when a local server needs no key: the SDK insists on one, the server ignores it.
NO_KEY = "not-needed"


@dataclass(frozen=True, slots=True)
class Preset:
    """How one OpenAI-protocol provider differs from the others.

    `max_tokens_field`: OpenAI deprecated `max_tokens` for `max_completion_tokens`;
    compatible servers mostly know only `max_tokens`.
    `stream_usage`: whether to ask for `stream_options.include_usage` (Mistral
    rejects the field and sends usage anyway).
    `reasoning_replay`: the assistant-message field that carries reasoning back on
    the next turn (DeepSeek requires it after tool calls); None: not sent back.
    """

    prefix: str
    base_url: str
    key_env: str | None = None
    key_required: bool = True
    base_url_env: str | None = None
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_tokens"
    stream_usage: bool = True
    reasoning_replay: str | None = None


PRESETS: dict[str, Preset] = {
    p.prefix: p
    for p in (
        Preset(
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            base_url_env="OPENAI_BASE_URL",
            max_tokens_field="max_completion_tokens",
        ),
        Preset(
            "ollama", "http://localhost:11434/v1", key_required=False, reasoning_replay="reasoning"
        ),
        Preset(
            "vllm",
            "http://localhost:8000/v1",
            key_required=False,
            reasoning_replay="reasoning_content",
        ),
        Preset(
            "llamacpp",
            "http://localhost:8080/v1",
            key_required=False,
            reasoning_replay="reasoning_content",
        ),
        Preset("lmstudio", "http://localhost:1234/v1", key_required=False),
        Preset(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            reasoning_replay="reasoning",
        ),
        Preset("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        Preset(
            "deepseek",
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            reasoning_replay="reasoning_content",
        ),
        Preset("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", stream_usage=False),
        Preset("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
    )
}

# Options every OpenAI-protocol prefix accepts (beyond the model name).
CONNECTION_OPTIONS = frozenset({"base_url", "api_key", "timeout_s", "headers"})
CHAT_OPTIONS = CONNECTION_OPTIONS | {"stream_usage", "max_tokens_field", "reasoning_replay"}
RESPONSES_OPTIONS = CONNECTION_OPTIONS | {"reasoning"}


def preset(prefix: str) -> Preset:
    try:
        return PRESETS[prefix]
    except KeyError:
        raise ConfigError(
            f"no OpenAI-protocol provider {prefix!r}; known: {', '.join(sorted(PRESETS))}"
        ) from None


def connect(
    preset: Preset,
    *,
    provider: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout_s: float | None = None,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
) -> Connection:
    """The connection for `preset`, with explicit options winning over the environment."""
    environ = os.environ if env is None else env
    name = provider or preset.prefix
    url = base_url or (environ.get(preset.base_url_env, "") if preset.base_url_env else "")
    explicit_url = bool(base_url)
    key = api_key or (environ.get(preset.key_env, "").strip() if preset.key_env else "")
    if not key:
        if preset.key_required and not explicit_url:
            raise ConfigError(
                f"{name}: no API key; set {preset.key_env} or pass api_key=... "
                f"(--api-key on the command line)"
            )
        key = NO_KEY
    return Connection(
        provider=name,
        base_url=url or preset.base_url,
        api_key=key,
        timeout_s=timeout_s,
        headers=headers,
        openai_account_headers=preset.prefix == "openai" and not explicit_url,
    )
