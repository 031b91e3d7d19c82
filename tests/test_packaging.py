"""The built wheel, installed without extras into a fresh virtualenv: no tracebacks.

`pip install tiller` brings only pydantic, typer and rich. Whatever the user then
asks for, a missing optional package is one line naming the extra to install.
The wheel's dependencies come from pip's configured package index; when pip
cannot reach one, the test is skipped and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What pip prints when the index is out of reach or lacks the packages.
UNREACHABLE = (
    "Could not find a version",
    "No matching distribution",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ProxyError",
)


def _pip(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _skip_if_unreachable(step: str, out: subprocess.CompletedProcess[str]) -> None:
    text = out.stdout + out.stderr
    if out.returncode != 0 and any(phrase in text for phrase in UNREACHABLE):
        pytest.skip(f"pip cannot reach a package index ({step}): {text.strip()[-300:]}")
    assert out.returncode == 0, f"{step} failed:\n{text}"


@pytest.fixture(scope="module")
def base_install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin` directory of a fresh virtualenv holding the wheel, without extras."""
    work = tmp_path_factory.mktemp("packaging")
    built = _pip(
        Path(sys.executable), "wheel", "--no-deps", "-w", str(work / "dist"), str(ROOT), cwd=work
    )
    _skip_if_unreachable("building the wheel", built)
    (wheel,) = (work / "dist").glob("tiller-*.whl")
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(work / "env")
    bin_dir = work / "env" / "bin"
    installed = _pip(bin_dir / "python", "install", str(wheel), cwd=work)
    _skip_if_unreachable("installing the wheel", installed)
    return bin_dir


def _tiller(bin_dir: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    base = {k: v for k, v in os.environ.items() if k in keep}
    return subprocess.run(
        [str(bin_dir / "tiller"), *args],
        cwd=bin_dir.parent,
        env={**base, "COLUMNS": "200", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_base_install_has_no_optional_packages(base_install: Path) -> None:
    out = subprocess.run(
        [
            str(base_install / "python"),
            "-c",
            "import importlib.util as u; "
            "print([m for m in ('numpy', 'llama_cpp', 'anthropic', 'openai') if u.find_spec(m)])",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == "[]", out.stderr


@pytest.mark.parametrize(
    ("env", "hint"),
    [
        ({}, "pip install 'tiller[local]'"),
        ({"ANTHROPIC_API_KEY": "sk-test"}, "pip install 'tiller[anthropic]'"),
        ({"OPENAI_API_KEY": "sk-test"}, "pip install 'tiller[openai]'"),
        ({"TILLER_MODEL": "ollama:qwen3"}, "pip install 'tiller[openai]'"),
    ],
)
def test_a_missing_extra_is_one_line_naming_it(
    base_install: Path, env: dict[str, str], hint: str
) -> None:
    out = _tiller(base_install, "run", "hi", env=env)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().count("\n") == 0, out.stderr
    assert hint in out.stderr
    assert out.stdout == ""


def test_the_commands_that_need_no_model_work(base_install: Path) -> None:
    version = _tiller(base_install, "--version", env={})
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("tiller ")
    models = _tiller(base_install, "models", env={})
    assert models.returncode == 0, models.stderr
    assert "pip install 'tiller[local]'" in models.stdout
    scripted = _tiller(base_install, "run", "hi", "-m", "scripted:none.json", env={})
    assert scripted.returncode == 2
    assert "Traceback" not in scripted.stderr
