"""edit_file: exact, unique matches; refusals that tell the model how to fix its call."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tools.builtin.helpers import run, text, wait
from tiller.errors import ToolError
from tiller.tools.builtin import EditFileTool
from tiller.tools.workspace import Workspace, WorkspaceError

SOURCE = """def greet(name):
    print("hello", name)


def part(name):
    print("bye", name)
    return None
"""


@pytest.fixture
def source(root: Path) -> Path:
    path = root / "app.py"
    path.write_text(SOURCE)
    return path


def test_replaces_a_unique_match_and_shows_the_result(ws: Workspace, source: Path) -> None:
    out = text(
        EditFileTool(ws), path="app.py", old_text='print("bye", name)', new_text='print("ciao")'
    )
    assert source.read_text() == SOURCE.replace('print("bye", name)', 'print("ciao")')
    assert out.startswith("Edited 'app.py': replaced 1 match (at line 6).\n")
    assert '>6|     print("ciao")' in out


def test_an_ambiguous_match_is_refused_with_count_and_places(ws: Workspace, source: Path) -> None:
    with pytest.raises(ToolError) as info:
        text(EditFileTool(ws), path="app.py", old_text="name)", new_text="who)")
    message = str(info.value)
    assert message.startswith("old_text matches 4 times in 'app.py' (at lines 1, 2, 5, 6)")
    assert "Include more of the surrounding lines" in message
    assert "replace_all" in message
    assert '>2|     print("hello", name)' in message
    assert source.read_text() == SOURCE


def test_replace_all_replaces_every_match(ws: Workspace, source: Path) -> None:
    out = text(EditFileTool(ws), path="app.py", old_text="name", new_text="who", replace_all=True)
    assert "replaced 4 matches" in out
    assert "name" not in source.read_text()


def test_a_match_with_wrong_indentation_points_at_the_line(ws: Workspace, source: Path) -> None:
    with pytest.raises(ToolError) as info:
        text(
            EditFileTool(ws),
            path="app.py",
            old_text='def greet(name):\n  print("hello", name)\n',
            new_text="def greet(name):\n  pass\n",
        )
    message = str(info.value)
    assert message.startswith("old_text was not found in 'app.py'. It must match the file exactly")
    assert "Its first line appears at line 1 with different indentation" in message
    assert '2|     print("hello", name)' in message


def test_a_near_miss_shows_the_closest_lines(ws: Workspace, source: Path) -> None:
    with pytest.raises(ToolError) as info:
        text(EditFileTool(ws), path="app.py", old_text="def parts(nam):", new_text="x")
    message = str(info.value)
    assert "The lines most like its first line ('def parts(nam):') are marked >:" in message
    assert ">5| def part(name):" in message


def test_nothing_like_it_says_read_first(ws: Workspace, source: Path) -> None:
    with pytest.raises(ToolError, match="No line resembles its first line"):
        text(EditFileTool(ws), path="app.py", old_text="zzzz qqqq", new_text="x")


def test_pointless_edits_are_refused(ws: Workspace, source: Path) -> None:
    with pytest.raises(ToolError, match="old_text is empty"):
        text(EditFileTool(ws), path="app.py", old_text="", new_text="x")
    with pytest.raises(ToolError, match="the same; there is nothing to change"):
        text(EditFileTool(ws), path="app.py", old_text="def", new_text="def")
    with pytest.raises(ToolError, match=r"No file 'new\.py'.*Use write_file to create"):
        text(EditFileTool(ws), path="new.py", old_text="a", new_text="b")


def test_binary_and_non_utf8_files_are_not_edited(ws: Workspace, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"abc\0def")
    (root / "latin1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolError, match="looks like a binary file"):
        text(EditFileTool(ws), path="blob.bin", old_text="abc", new_text="x")
    with pytest.raises(ToolError, match="is not UTF-8 text"):
        text(EditFileTool(ws), path="latin1.txt", old_text="caf", new_text="x")
    assert (root / "latin1.txt").read_bytes() == "café".encode("latin-1")


def test_windows_line_endings_match_and_are_kept(ws: Workspace, root: Path) -> None:
    (root / "win.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    text(EditFileTool(ws), path="win.txt", old_text="a\nb\n", new_text="A\nB\n")
    assert (root / "win.txt").read_bytes() == b"A\r\nB\r\nc\r\n"


def test_edits_outside_the_workspace_are_refused(ws: Workspace, root: Path) -> None:
    (root / "leak.txt").symlink_to(root.parent / "outside" / "secret.txt")
    for path in ("../outside/secret.txt", "leak.txt"):
        with pytest.raises(WorkspaceError):
            text(EditFileTool(ws), path=path, old_text="top", new_text="no")
    assert (root.parent / "outside" / "secret.txt").read_text() == "top secret\n"


def test_dry_run_shows_the_diff_or_the_same_refusal(ws: Workspace, source: Path) -> None:
    tool = EditFileTool(ws)
    result = wait(tool.dry_run({"path": "app.py", "old_text": "bye", "new_text": "ciao"}))
    assert result.text.startswith("Would edit 'app.py', replacing 1 match:\n--- a/app.py")
    assert '-    print("bye", name)\n+    print("ciao", name)' in result.text
    assert source.read_text() == SOURCE
    with pytest.raises(ToolError, match="matches 4 times"):
        wait(tool.dry_run({"path": "app.py", "old_text": "name)", "new_text": "x"}))


def test_rollback_restores_the_previous_content(ws: Workspace, source: Path) -> None:
    tool = EditFileTool(ws)
    arguments = {"path": "app.py", "old_text": "hello", "new_text": "hi"}
    rollback = wait(tool.prepare_rollback(arguments))
    run(tool, **arguments)
    assert "hi" in source.read_text()
    wait(rollback.apply())
    assert source.read_text() == SOURCE


def test_a_file_named_with_bytes_that_are_not_utf8_is_edited_by_its_shown_name(
    ws: Workspace, root: Path
) -> None:
    real = root / os.fsdecode(b"caf\xe9.py")
    real.write_text("x = 1\n")
    out = text(EditFileTool(ws), path="caf\\xe9.py", old_text="1", new_text="2")
    assert out.startswith("Edited 'caf\\xe9.py': replaced 1 match (at line 1).")
    out.encode("utf-8")
    assert real.read_text() == "x = 2\n"


def test_new_text_with_a_lone_surrogate_is_refused(ws: Workspace, source: Path) -> None:
    tool = EditFileTool(ws)
    with pytest.raises(ToolError, match="new_text contains an unpaired surrogate"):
        text(tool, path="app.py", old_text="bye", new_text="caf\udce9")
    with pytest.raises(ToolError, match="new_text contains an unpaired surrogate"):
        wait(tool.dry_run({"path": "app.py", "old_text": "bye", "new_text": "caf\udce9"}))
    assert source.read_text() == SOURCE


def test_a_file_with_several_hard_links_is_not_edited(ws: Workspace, root: Path) -> None:
    outside = root.parent / "outside" / "secret.txt"
    os.link(outside, root / "linked.txt")
    with pytest.raises(ToolError, match=r"'linked\.txt' has 2 hard links"):
        text(EditFileTool(ws), path="linked.txt", old_text="top", new_text="no")
    assert outside.read_text() == "top secret\n"
