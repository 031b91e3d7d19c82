"""The registry's factories for the OpenAI-protocol prefixes (`openai:`, `ollama:`, ...).

Apart from `presets.py` so the models can read their presets without presets
having to know the models.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from tiller.errors import ConfigError
from tiller.models.openai.chat import OpenAIChatModel
from tiller.models.openai.presets import CHAT_OPTIONS, RESPONSES_OPTIONS
from tiller.models.openai.responses import OpenAIResponsesModel


def check_options(provider: str, options: Mapping[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ConfigError(
            f"{provider}: unknown option(s) {', '.join(unknown)}; "
            f"accepted: {', '.join(sorted(allowed))}"
        )


def chat_model(prefix: str, name: str, **options: Any) -> OpenAIChatModel:
    """The registry's factory for `PREFIX:NAME` on the Chat Completions protocol."""
    check_options(prefix, options, CHAT_OPTIONS)
    return OpenAIChatModel(name, provider=prefix, **options)


def responses_model(name: str, **options: Any) -> OpenAIResponsesModel:
    """The registry's factory for `openai-responses:NAME`."""
    check_options("openai-responses", options, RESPONSES_OPTIONS)
    return OpenAIResponsesModel(name, **options)


# One factory per prefix, for `tiller.models.registry` ("module:attribute").
openai = partial(chat_model, "openai")
ollama = partial(chat_model, "ollama")
vllm = partial(chat_model, "vllm")
llamacpp = partial(chat_model, "llamacpp")
lmstudio = partial(chat_model, "lmstudio")
openrouter = partial(chat_model, "openrouter")
groq = partial(chat_model, "groq")
deepseek = partial(chat_model, "deepseek")
mistral = partial(chat_model, "mistral")
xai = partial(chat_model, "xai")
