"""read_file, write_file, edit_file and search stay inside the workspace while a directory on their
path is swapped, over and over, with a symbolic link to a directory outside it.

A separate process exchanges `ws/d` (a real directory) and `ws/l` (a link to `outside/`)
with `renameat2(RENAME_EXCHANGE)`, or, where that call is missing, with a loop of renames.
Each tool (list_files and search too) is then called on `d/...` for a bounded while: some calls
succeed (inside), some are refused (the link points out), none may read, list, create or
change a file outside, crash, or leave a temporary file behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.tools.builtin.helpers import context
from tiller.errors import ToolError
from tiller.tools.builtin import (
    EditFileTool,
    ListFilesTool,
    ReadFileTool,
    SearchTool,
    WriteFileTool,
)
from tiller.tools.workspace import Workspace

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the swapping attack is Linux's")

ATTACK_SECONDS = 2.5

# Runs in its own process so the swaps go on while the tools run, with no lock in common.
SWAPPER = r"""
import ctypes, os, sys
root = sys.argv[1]
d, link, spare = (os.path.join(root, n) for n in ("d", "l", "spare"))
libc = ctypes.CDLL(None, use_errno=True)
exchange = getattr(libc, "renameat2", None)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if exchange is not None and exchange(AT_FDCWD, d.encode(), AT_FDCWD, link.encode(),
                                     RENAME_EXCHANGE) != 0:
    exchange = None
print("exchange" if exchange is not None else "renames", flush=True)
while True:
    if exchange is not None:
        exchange(AT_FDCWD, d.encode(), AT_FDCWD, link.encode(), RENAME_EXCHANGE)
    else:
        try:
            os.rename(d, spare)
            os.rename(link, d)
            os.rename(spare, link)
        except OSError:
            pass
"""

SECRET = "shared line: top secret\n"


@pytest.fixture
def arena(tmp_path: Path) -> tuple[Workspace, Path]:
    """`ws/d/secret.txt` inside, `outside/secret.txt` with the same text, `ws/l -> outside`."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "secret.txt").write_text(SECRET)
    (root / "l").symlink_to(outside, target_is_directory=True)
    return Workspace(root), outside


@contextmanager
def swapping(root: Path) -> Iterator[None]:
    process = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, os.fspath(root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() in {"exchange", "renames"}
        yield
    finally:
        process.kill()
        process.wait()


def outside_state(outside: Path) -> dict[str, tuple[bytes, int] | str]:
    """Every entry under `outside`: a file's bytes and inode, or that it is a directory."""
    return {
        os.fspath(p.relative_to(outside)): "dir"
        if p.is_dir()
        else (p.read_bytes(), p.stat().st_ino)
        for p in sorted(outside.rglob("*"))
    }


def leftovers(*directories: Path) -> list[str]:
    return [os.fspath(p) for d in directories for p in d.rglob("*") if ".tiller-" in p.name]


@dataclass
class Outcomes:
    """What the calls made under attack gave: their results, how many were refused with a
    `ToolError` (fine), and anything else they raised (a crash the model cannot read)."""

    results: list[str] = field(default_factory=list)
    refused: int = 0
    crashes: list[str] = field(default_factory=list)


def attack(root: Path, action: Callable[[int], str]) -> Outcomes:
    """Call `action(0)`, `action(1)`, ... for a bounded while, `root/d` being swapped."""
    outcomes = Outcomes()
    with swapping(root):
        deadline = time.monotonic() + ATTACK_SECONDS
        n = 0
        while time.monotonic() < deadline:
            try:
                outcomes.results.append(action(n))
            except ToolError:
                outcomes.refused += 1
            except Exception as exc:
                outcomes.crashes.append(f"{type(exc).__name__}: {exc}")
            n += 1
    return outcomes


def assert_untouched(
    outside: Path, before: dict[str, tuple[bytes, int] | str], seen: Outcomes, root: Path
) -> None:
    assert outside_state(outside) == before
    assert leftovers(root, outside) == []
    assert seen.crashes == []
    assert seen.results  # the attack let some calls through, inside


def test_read_file_never_returns_an_outside_file(arena: tuple[Workspace, Path]) -> None:
    ws, outside = arena
    (outside / "secret.txt").write_text("OUTSIDE ONLY\n")
    tool = ReadFileTool(ws)
    seen = attack(ws.root, lambda _: tool.read_file(path="d/secret.txt"))
    outside_reads = sum("OUTSIDE" in r for r in seen.results)
    assert outside_reads == 0, f"{outside_reads} of {len(seen.results)} reads were outside"
    assert seen.crashes == []
    assert seen.results  # the attack let some calls through, inside


def test_write_file_never_creates_or_replaces_an_outside_file(
    arena: tuple[Workspace, Path],
) -> None:
    ws, outside = arena
    before = outside_state(outside)
    tool = WriteFileTool(ws)

    def write(n: int) -> str:
        tool.write_file(path=f"d/new-{n % 50}.txt", content="pwned\n")
        return tool.write_file(path="d/secret.txt", content="pwned\n")

    seen = attack(ws.root, write)
    assert_untouched(outside, before, seen, ws.root)


def test_write_file_never_creates_parent_directories_outside(
    arena: tuple[Workspace, Path],
) -> None:
    ws, outside = arena
    before = outside_state(outside)
    tool = WriteFileTool(ws)
    seen = attack(
        ws.root, lambda n: tool.write_file(path=f"d/made-{n % 50}/deeper/f.txt", content="x")
    )
    assert_untouched(outside, before, seen, ws.root)


def test_edit_file_never_changes_an_outside_file(arena: tuple[Workspace, Path]) -> None:
    ws, outside = arena
    before = outside_state(outside)
    tool = EditFileTool(ws)

    def edit(n: int) -> str:
        old, new = ("shared", "edited") if n % 2 == 0 else ("edited", "shared")
        return tool.edit_file(path="d/secret.txt", old_text=old, new_text=new)

    seen = attack(ws.root, edit)
    assert_untouched(outside, before, seen, ws.root)


def test_list_files_never_lists_an_outside_directory(arena: tuple[Workspace, Path]) -> None:
    ws, outside = arena
    (outside / "only-outside.txt").write_text("")
    tool = ListFilesTool(ws)
    seen = attack(ws.root, lambda n: tool.list_files(path="d" if n % 2 else ".", pattern="*"))
    assert [r for r in seen.results if "only-outside" in r] == []
    assert seen.crashes == []
    assert any("secret.txt" in r for r in seen.results)


def test_search_never_returns_an_outside_file(arena: tuple[Workspace, Path]) -> None:
    ws, outside = arena
    (outside / "secret.txt").write_text("OUTSIDE ONLY\n")
    tool = SearchTool(ws)
    ctx = context("search")
    paths = ("d", "d/secret.txt", ".")
    seen = attack(
        ws.root,
        lambda n: tool.search(pattern="OUTSIDE|top secret", ctx=ctx, path=paths[n % 3]),
    )
    outside_hits = sum("OUTSIDE ONLY" in r for r in seen.results)
    assert outside_hits == 0, f"{outside_hits} of {len(seen.results)} searches read outside"
    assert seen.crashes == []
    assert any("secret.txt:1: shared line: top secret" in r for r in seen.results)
