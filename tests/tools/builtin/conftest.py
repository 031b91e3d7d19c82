from __future__ import annotations

from pathlib import Path

import pytest

from tiller.tools.workspace import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty workspace directory, with a sibling `outside/secret.txt` to try to escape to."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("top secret\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace(root)
