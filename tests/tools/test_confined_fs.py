"""The descriptor walk: where a path leads, which links it follows, what it refuses."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from tiller.errors import ToolError
from tiller.tools.confined_fs import (
    MAX_LINK_HOPS,
    WorkspaceError,
    locate,
    make_directories,
    open_directory,
)
from tiller.tools.workspace import Workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (tmp_path / "outside").mkdir()
    return Workspace(root)


def where(ws: Workspace, path: str, **options: bool) -> tuple[str | None, str, tuple[str, ...]]:
    with locate(ws, path, **options) as location:
        return location.name, location.rel, location.missing


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_path_leads_to_a_name_in_its_directory(ws: Workspace) -> None:
    assert where(ws, "src/main.py") == ("main.py", "src/main.py", ())
    assert where(ws, "src") == ("src", "src", ())
    assert where(ws, "src/.") == (None, "src", ())
    assert where(ws, ".") == (None, ".", ())
    assert where(ws, str(ws.root / "src" / "main.py")) == ("main.py", "src/main.py", ())


def test_missing_directories_are_listed_and_made_relative_to_their_parent(ws: Workspace) -> None:
    assert where(ws, "src/new/deep/f.txt") == ("f.txt", "src/new/deep/f.txt", ("new", "deep"))
    with locate(ws, "src/new/deep/f.txt") as location:
        fd = make_directories(location)
        os.close(fd)
    assert (ws.root / "src" / "new" / "deep").is_dir()
    assert not (ws.root / "src" / "new" / "deep" / "f.txt").exists()


def test_dotdot_out_of_a_missing_directory_walks_on_from_where_it_was(ws: Workspace) -> None:
    assert where(ws, "nope/../src/main.py") == ("main.py", "src/main.py", ())
    assert where(ws, "nope/a/../b.txt") == ("b.txt", "nope/b.txt", ("nope",))
    assert where(ws, "nope/..") == (None, ".", ())


def test_the_last_link_is_followed_unless_asked_not_to(ws: Workspace) -> None:
    (ws.root / "entry.py").symlink_to("src/main.py")
    assert where(ws, "entry.py") == ("main.py", "src/main.py", ())
    assert where(ws, "entry.py", follow_last=False) == ("entry.py", "entry.py", ())


def test_a_dangling_link_inside_leads_to_what_it_would_create(ws: Workspace) -> None:
    (ws.root / "later.txt").symlink_to("gen/later.txt")
    assert where(ws, "later.txt") == ("later.txt", "gen/later.txt", ("gen",))


def test_an_absolute_link_is_followed_only_inside(ws: Workspace) -> None:
    (ws.root / "abs").symlink_to(ws.root / "src", target_is_directory=True)
    (ws.root / "out").symlink_to(ws.root.parent / "outside", target_is_directory=True)
    assert where(ws, "abs/main.py") == ("main.py", "src/main.py", ())
    with pytest.raises(WorkspaceError, match=r"symbolic link 'out', which points outside"):
        where(ws, "out/x")


def test_a_link_that_leaves_and_comes_back_is_refused(ws: Workspace) -> None:
    # It is not followed out, not even to come back in.
    (ws.root / "round").symlink_to(f"../{ws.root.name}/src", target_is_directory=True)
    with pytest.raises(WorkspaceError, match="symbolic link 'round'"):
        where(ws, "round/main.py")


def test_a_loop_of_links_is_refused_with_a_bound(ws: Workspace) -> None:
    (ws.root / "a").symlink_to("b")
    (ws.root / "b").symlink_to("a")
    with pytest.raises(ToolError, match=f"more than {MAX_LINK_HOPS} symbolic links") as info:
        where(ws, "a/x")
    assert not isinstance(info.value, WorkspaceError)


def test_a_file_in_the_middle_of_a_path_is_explained(ws: Workspace) -> None:
    with pytest.raises(ToolError, match=r"goes through 'src/main\.py', which is a file"):
        where(ws, "src/main.py/x")


def test_escaped_names_reach_the_real_file(ws: Workspace) -> None:
    real = os.fsdecode(b"caf\xe9")
    (ws.root / real).mkdir()
    assert where(ws, "caf\\xe9/n.txt") == ("n.txt", f"{real}/n.txt", ())


def test_a_given_path_with_lone_surrogates_is_refused(ws: Workspace) -> None:
    with pytest.raises(WorkspaceError, match="unpaired surrogates") as info:
        where(ws, "a\ud800b")
    str(info.value).encode("utf-8")


def test_open_directory_gives_its_own_descriptor(ws: Workspace) -> None:
    with locate(ws, "src") as location:
        fd = open_directory(location)
    try:
        assert os.listdir(fd) == ["main.py"]
    finally:
        os.close(fd)


def test_no_descriptor_is_left_open(ws: Workspace) -> None:
    (ws.root / "a").symlink_to("b")
    (ws.root / "b").symlink_to("a")
    before = open_descriptors()
    for path in ("src/main.py", "src/new/x", "../x", "a/x", "src/main.py/x", "."):
        with contextlib.suppress(ToolError):
            where(ws, path)
    assert open_descriptors() == before
