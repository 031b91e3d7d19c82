"""Running the `tiller` command as a real subprocess, with a controlled environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Variables that choose the default model: tests set the ones they need.
MODEL_VARIABLES = ("TILLER_MODEL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY")

# Runs the CLI with fake providers registered under the real prefixes, so the default
# model can be checked without a network or the embedded model: each answers with its
# own "PROVIDER:NAME".
WITH_FAKE_PROVIDERS = """
import sys
from tiller.models.registry import register_provider
from tiller.models.scripted import ScriptedModel

def fake(prefix):
    return lambda name: ScriptedModel([f"answered by {prefix}:{name}"], name=name)

for prefix in ("anthropic", "openai", "local"):
    register_provider(prefix, fake(prefix))
sys.argv[0] = "tiller"
from tiller.cli import main
main()
"""

# Runs the CLI with the provider `test` registered (`tests/cli/cli_models.py`).
WITH_TEST_MODELS = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from tests.cli.cli_models import register

register()
sys.argv[0] = "tiller"
from tiller.cli import main
main()
"""


def tiller_command(*, fake_providers: bool = False, test_models: bool = False) -> list[str]:
    """The command line that starts `tiller` (before its arguments)."""
    if fake_providers:
        return [sys.executable, "-c", WITH_FAKE_PROVIDERS]
    if test_models:
        return [sys.executable, "-c", WITH_TEST_MODELS]
    return [sys.executable, "-m", "tiller"]


def clean_env(env: dict[str, str] | None = None) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES and k != "TMUX"}
    return {**base, "COLUMNS": "120", **(env or {})}


def tiller(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    fake_providers: bool = False,
    test_models: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`tiller ARGS...` in `cwd`; with `fake_providers`, hosted and local models are fakes;
    with `test_models`, `test:NAME` models are the scripts of `cli_models`."""
    command = tiller_command(fake_providers=fake_providers, test_models=test_models)
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        env=clean_env(env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
