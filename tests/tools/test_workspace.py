"""Workspace: paths inside resolve; every way out is refused with a message the model can use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tiller.errors import ConfigError, ToolError
from tiller.tools.workspace import Workspace, WorkspaceError


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Workspace, Path]:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    return Workspace(root), outside


def test_relative_paths_resolve_inside(layout: tuple[Workspace, Path]) -> None:
    ws, _ = layout
    assert ws.resolve("src/main.py") == ws.root / "src" / "main.py"
    assert ws.resolve("./src/../src/main.py") == ws.root / "src" / "main.py"
    assert ws.resolve("") == ws.root
    assert ws.resolve(".") == ws.root
    assert ws.resolve("new/dir/file.txt") == ws.root / "new" / "dir" / "file.txt"
    assert ws.relative(ws.resolve("src/main.py")) == "src/main.py"
    assert ws.relative(ws.root) == "."


def test_absolute_path_inside_is_accepted(layout: tuple[Workspace, Path]) -> None:
    ws, _ = layout
    assert ws.resolve(str(ws.root / "src" / "main.py")) == ws.root / "src" / "main.py"


def test_dotdot_above_root_is_refused(layout: tuple[Workspace, Path]) -> None:
    ws, _ = layout
    for path in ("../outside/secret.txt", "src/../../outside", "..", f"../{ws.root.name}/src"):
        with pytest.raises(WorkspaceError, match=r"leaves the workspace with '\.\.'"):
            ws.resolve(path)


def test_absolute_path_outside_is_refused(layout: tuple[Workspace, Path]) -> None:
    ws, outside = layout
    for path in ("/etc/passwd", str(outside / "secret.txt"), f"{ws.root}/../outside"):
        with pytest.raises(WorkspaceError, match=r"outside the workspace|leaves the workspace"):
            ws.resolve(path)
    with pytest.raises(WorkspaceError, match="relative to the workspace root"):
        ws.resolve("/etc/passwd")


def test_symlinked_file_pointing_out_is_refused(layout: tuple[Workspace, Path]) -> None:
    ws, outside = layout
    (ws.root / "leak.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(WorkspaceError, match=r"symbolic link 'leak\.txt'.*outside"):
        ws.resolve("leak.txt")


def test_dangling_symlink_pointing_out_is_refused(layout: tuple[Workspace, Path]) -> None:
    # Writing through it would create a file outside: the target need not exist.
    ws, outside = layout
    (ws.root / "drop.txt").symlink_to(outside / "not-yet.txt")
    with pytest.raises(WorkspaceError, match=r"symbolic link 'drop\.txt'"):
        ws.resolve("drop.txt")


def test_symlinked_parent_dir_pointing_out_is_refused(layout: tuple[Workspace, Path]) -> None:
    ws, outside = layout
    (ws.root / "src" / "vendor").symlink_to(outside, target_is_directory=True)
    with pytest.raises(WorkspaceError, match=r"symbolic link 'src/vendor'"):
        ws.resolve("src/vendor/secret.txt")
    with pytest.raises(WorkspaceError, match=r"symbolic link 'src/vendor'"):
        ws.resolve("src/vendor/new.txt")


def test_relative_symlink_climbing_out_is_refused(layout: tuple[Workspace, Path]) -> None:
    ws, _ = layout
    (ws.root / "up").symlink_to("../outside")
    with pytest.raises(WorkspaceError, match="symbolic link 'up'"):
        ws.resolve("up/secret.txt")


def test_dotdot_through_a_symlinked_dir_is_resolved_physically(
    layout: tuple[Workspace, Path],
) -> None:
    # 'inner/..' means the parent of the link's target, as the OS would see it.
    ws, _ = layout
    (ws.root / "deep" / "er").mkdir(parents=True)
    (ws.root / "inner").symlink_to(ws.root / "deep" / "er", target_is_directory=True)
    assert ws.resolve("inner/../x.txt") == ws.root / "deep" / "x.txt"


def test_symlinks_inside_the_workspace_are_followed(layout: tuple[Workspace, Path]) -> None:
    ws, _ = layout
    (ws.root / "entry.py").symlink_to(ws.root / "src" / "main.py")
    (ws.root / "code").symlink_to("src", target_is_directory=True)
    assert ws.resolve("entry.py") == ws.root / "src" / "main.py"
    assert ws.resolve("code/main.py") == ws.root / "src" / "main.py"


def test_home_and_nul_paths_are_refused(layout: tuple[Workspace, Path]) -> None:
    ws, _ = layout
    with pytest.raises(WorkspaceError, match="home-relative"):
        ws.resolve("~/.ssh/id_rsa")
    with pytest.raises(WorkspaceError, match="NUL"):
        ws.resolve("a\0b")


def test_refusals_are_tool_errors_so_the_loop_returns_them(layout: tuple[Workspace, Path]) -> None:
    ws, _ = layout
    with pytest.raises(ToolError):
        ws.resolve("../x")


def test_root_given_through_a_symlink_accepts_absolute_paths_by_either_name(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    alias = tmp_path / "alias"
    alias.symlink_to(real, target_is_directory=True)
    ws = Workspace(alias)
    assert ws.root == real
    assert ws.resolve(str(alias / "a.txt")) == real / "a.txt"
    assert ws.resolve(str(real / "a.txt")) == real / "a.txt"


def test_root_must_be_an_existing_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a directory"):
        Workspace(tmp_path / "missing")
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="not a directory"):
        Workspace(os.fspath(tmp_path / "file"))


def test_names_that_are_not_utf8_are_given_escaped_and_taken_back(
    layout: tuple[Workspace, Path],
) -> None:
    ws, _ = layout
    real = ws.root / os.fsdecode(b"caf\xe9.txt")
    real.write_text("")
    assert ws.relative(real) == "caf\\xe9.txt"
    assert ws.resolve("caf\\xe9.txt") == real
    assert ws.resolve("caf\\xe9.txt").exists()
