"""The Anthropic provider: `anthropic:claude-sonnet-4-5`.

    model = resolve_model("anthropic:claude-sonnet-4-5", api_key="...", thinking=4096)

The `anthropic` SDK is imported when the first request is made, not here.
"""

from __future__ import annotations

from typing import Any

from tiller.errors import ConfigError
from tiller.models.anthropic.model import AnthropicModel

__all__ = ["AnthropicModel", "anthropic_model"]

_OPTIONS = frozenset({"api_key", "base_url", "timeout", "max_tokens", "prompt_caching", "thinking"})


def anthropic_model(name: str, **options: Any) -> AnthropicModel:
    """Registry factory: `anthropic:NAME` with `api_key=`, `base_url=`, `timeout=`,
    `max_tokens=`, `prompt_caching=` and `thinking=` (options given as None are unset)."""
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ConfigError(
            f"anthropic: unknown option(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(_OPTIONS))}"
        )
    given = {key: value for key, value in options.items() if value is not None}
    return AnthropicModel(name, **given)
