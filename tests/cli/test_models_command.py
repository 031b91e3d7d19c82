"""`tiller models`, run as a real subprocess with the environment it describes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.cli_process import tiller
from tiller.models.defaults import EXAMPLE_MODELS


def rows(stdout: str) -> dict[str, str]:
    """Table rows by their model column (first line of each row)."""
    found: dict[str, str] = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 3 and ":" in cells[0]:
            found[cells[0].removesuffix(" (default)")] = line
    return found


def test_lists_every_provider_and_why(tmp_path: Path) -> None:
    out = tiller("models", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    table = rows(out.stdout)
    assert list(table) == list(EXAMPLE_MODELS.values())
    assert "ANTHROPIC_API_KEY is not set" in table["anthropic:claude-sonnet-4-5"]
    assert "GROQ_API_KEY is not set" in table["groq:llama-3.3-70b-versatile"]
    assert "OPENAI_API_KEY is not set" in table["openai:gpt-4.1"]
    assert "│ no " in table["openai:gpt-4.1"]
    assert "│ yes " in table["scripted:FILE.json"]


def test_without_keys_the_local_model_is_the_default(tmp_path: Path) -> None:
    out = tiller("models", cwd=tmp_path)
    assert "local:smollm2 (default)" in out.stdout
    assert "Default model: local:smollm2" in out.stdout
    assert "runs offline" in out.stdout


def test_a_key_makes_its_provider_the_default(tmp_path: Path) -> None:
    out = tiller("models", cwd=tmp_path, env={"OPENAI_API_KEY": "sk-test"})
    assert out.returncode == 0, out.stderr
    assert "openai:gpt-4.1 (default)" in out.stdout
    assert "Default model: openai:gpt-4.1 (OPENAI_API_KEY is set" in out.stdout
    assert "OPENAI_API_KEY is not set" not in out.stdout


def test_anthropic_comes_before_openai(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a"}
    out = tiller("models", cwd=tmp_path, env=env)
    assert "Default model: anthropic:claude-sonnet-4-5 (ANTHROPIC_API_KEY is set)" in out.stdout


def test_tiller_model_wins(tmp_path: Path) -> None:
    env = {"TILLER_MODEL": "ollama:llama3.2", "ANTHROPIC_API_KEY": "sk-a"}
    out = tiller("models", cwd=tmp_path, env=env)
    assert "Default model: ollama:llama3.2 (TILLER_MODEL is set)" in out.stdout
    assert "(default)" not in out.stdout  # not one of the listed model strings
    env["TILLER_MODEL"] = "ollama:qwen3"
    assert "ollama:qwen3 (default)" in tiller("models", cwd=tmp_path, env=env).stdout


def test_a_default_that_cannot_run_says_why(tmp_path: Path) -> None:
    out = tiller("models", cwd=tmp_path, env={"ANTHROPIC_API_KEY": "sk-a"})
    default_row = rows(out.stdout)["anthropic:claude-sonnet-4-5"]
    if "│ no " in default_row:
        assert "The default model cannot run here:" in out.stdout
    else:
        assert "cannot run here" not in out.stdout


ROOT = Path(__file__).parents[2]
PROVIDER_TABLES = [ROOT / "README.md", ROOT / "docs" / "concepts" / "providers.md"]


def documented_models(page: Path) -> list[str]:
    """The model strings in the first column of a page's table of providers."""
    text = page.read_text(encoding="utf-8")
    return re.findall(r"^\| `([a-z-]+:[^`]+)` \|", text, re.MULTILINE)


@pytest.mark.parametrize("page", PROVIDER_TABLES, ids=lambda p: p.name)
def test_lists_every_provider_and_preset_the_documentation_names(
    page: Path, tmp_path: Path
) -> None:
    documented = documented_models(page)
    assert len(documented) >= 10, f"{page}: its table of providers was not found"
    listed = list(rows(tiller("models", cwd=tmp_path).stdout))
    assert sorted(documented) == sorted(listed)
