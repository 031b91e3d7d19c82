"""The `tiller` command itself: version, help."""

from __future__ import annotations

from pathlib import Path

from tests.cli.cli_process import tiller
from tiller import __version__


def test_version(tmp_path: Path) -> None:
    out = tiller("--version", cwd=tmp_path)
    assert out.returncode == 0
    assert out.stdout.strip() == f"tiller {__version__}"


def test_help_lists_the_commands(tmp_path: Path) -> None:
    out = tiller("--help", cwd=tmp_path)
    assert out.returncode == 0
    for command in ("run", "chat", "models"):
        assert command in out.stdout
