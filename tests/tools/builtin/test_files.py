"""read_file, write_file, list_files: confined to the workspace, capped, clear when refusing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.tools.builtin.helpers import text, wait
from tiller.errors import ToolError
from tiller.tools.builtin import ListFilesTool, ReadFileTool, WriteFileTool
from tiller.tools.builtin.walk import MAX_DEPTH, walk
from tiller.tools.workspace import Workspace, WorkspaceError

# ── read_file ───────────────────────────────────────────────────────────────


def test_reads_a_whole_file(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\ntwo\n")
    assert text(ReadFileTool(ws), path="a.txt") == "one\ntwo\n"


def test_reads_a_line_range_and_says_where_it_is(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = text(ReadFileTool(ws), path="a.txt", start_line=3, end_line=4)
    assert out == "line 3\nline 4\n\n[Showed lines 3-4 of 10.]"
    out = text(ReadFileTool(ws), path="a.txt", start_line=9, end_line=50)
    assert out == "line 9\nline 10\n\n[Showed lines 9-10 of 10.]"


def test_a_file_without_final_newline_counts_its_last_line(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("x\ny")
    assert text(ReadFileTool(ws), path="a.txt", start_line=2) == "y\n\n[Showed lines 2-2 of 2.]"


def test_bad_ranges_are_explained(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\ntwo\n")
    with pytest.raises(ToolError, match=r"start_line 5 is past the end of 'a.txt' \(2 lines\)"):
        text(ReadFileTool(ws), path="a.txt", start_line=5)
    with pytest.raises(ToolError, match=r"end_line \(1\) is before start_line \(2\)"):
        text(ReadFileTool(ws), path="a.txt", start_line=2, end_line=1)


def test_line_cap_cuts_with_a_note_and_reading_on_continues(ws: Workspace, root: Path) -> None:
    (root / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 101)))
    tool = ReadFileTool(ws, max_lines=30)
    first = text(tool, path="big.txt")
    assert first.startswith("1\n2\n")
    assert "30\n\n[Output cut at the read_file limit (30 lines" in first
    assert "showed lines 1-30 of 100. Call read_file with start_line=31 to read on.]" in first
    second = text(tool, path="big.txt", start_line=31)
    assert second.startswith("31\n")
    assert "showed lines 31-60 of 100" in second


def test_byte_cap_cuts_at_a_line_boundary(ws: Workspace, root: Path) -> None:
    (root / "wide.txt").write_text("".join(f"{i:04d} {'x' * 94}\n" for i in range(1, 101)))
    out = text(ReadFileTool(ws, max_bytes=1000), path="wide.txt")
    body, note = out.split("\n\n[")
    assert body.splitlines()[-1].startswith("0010 ")
    assert "1000 bytes): showed lines 1-10 of 100" in note


def test_a_line_longer_than_the_cap_shows_its_start(ws: Workspace, root: Path) -> None:
    (root / "min.js").write_text("a" * 5000 + "\nnext\n")
    out = text(ReadFileTool(ws, max_bytes=100), path="min.js")
    assert out.startswith("a" * 100 + "\n\n[Line 1 is longer than the read_file limit")
    assert "Lines 2-2 follow (start_line=2)" in out
    assert text(ReadFileTool(ws, max_bytes=100), path="min.js", start_line=2) == (
        "next\n\n[Showed lines 2-2 of 2.]"
    )


def test_empty_file(ws: Workspace, root: Path) -> None:
    (root / "empty").write_text("")
    assert text(ReadFileTool(ws), path="empty") == "(empty file)"


def test_binary_file_is_refused(ws: Workspace, root: Path) -> None:
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)) * 40)
    with pytest.raises(ToolError, match=r"'logo.png' looks like a binary file \(10.0 KiB"):
        text(ReadFileTool(ws), path="logo.png")


def test_non_utf8_text_is_shown_with_a_note(ws: Workspace, root: Path) -> None:
    (root / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    out = text(ReadFileTool(ws), path="latin1.txt")
    assert out.startswith("caf\ufffd")
    assert "[Not valid UTF-8" in out


def test_missing_file_and_directory_say_what_to_do(ws: Workspace, root: Path) -> None:
    (root / "src").mkdir()
    with pytest.raises(ToolError, match=r"No file 'nope\.txt' in the workspace\. Use list_files"):
        text(ReadFileTool(ws), path="nope.txt")
    with pytest.raises(ToolError, match="'src' is a directory; use list_files"):
        text(ReadFileTool(ws), path="src")


def test_a_fifo_is_refused_without_blocking(ws: Workspace, root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(ToolError, match="not a regular file"):
        text(ReadFileTool(ws), path="pipe")


@pytest.mark.parametrize("path", ["../outside/secret.txt", "escape/secret.txt", "leak.txt"])
def test_reading_outside_the_workspace_is_refused(ws: Workspace, root: Path, path: str) -> None:
    (root / "escape").symlink_to(root.parent / "outside", target_is_directory=True)
    (root / "leak.txt").symlink_to(root.parent / "outside" / "secret.txt")
    with pytest.raises(WorkspaceError):
        text(ReadFileTool(ws), path=path)
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        text(ReadFileTool(ws), path=str(root.parent / "outside" / "secret.txt"))


# ── write_file ──────────────────────────────────────────────────────────────


def test_write_creates_parents_and_reports(ws: Workspace, root: Path) -> None:
    out = text(WriteFileTool(ws), path="pkg/sub/mod.py", content="x = 1\ny = 2\n")
    assert out == "Wrote 12 bytes (2 lines) to 'pkg/sub/mod.py' (new file)."
    assert (root / "pkg" / "sub" / "mod.py").read_text() == "x = 1\ny = 2\n"


def test_overwrite_keeps_the_file_mode_and_leaves_no_temp_file(ws: Workspace, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    out = text(WriteFileTool(ws), path="run.sh", content="echo new\n")
    assert "(replaced the previous content)" in out
    assert script.read_text() == "echo new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert sorted(p.name for p in root.iterdir()) == ["run.sh"]


def test_writing_through_an_inside_symlink_writes_its_target(ws: Workspace, root: Path) -> None:
    (root / "real.txt").write_text("a")
    (root / "alias.txt").symlink_to("real.txt")
    text(WriteFileTool(ws), path="alias.txt", content="b")
    assert (root / "real.txt").read_text() == "b"
    assert (root / "alias.txt").is_symlink()


@pytest.mark.parametrize("path", ["../outside/new.txt", "escape/new.txt", "drop.txt", "/tmp/x"])
def test_writing_outside_the_workspace_is_refused(ws: Workspace, root: Path, path: str) -> None:
    outside = root.parent / "outside"
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "drop.txt").symlink_to(outside / "dropped.txt")
    before = sorted(p.name for p in outside.iterdir())
    with pytest.raises(WorkspaceError):
        text(WriteFileTool(ws), path=path, content="pwned")
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_writing_over_a_directory_is_refused(ws: Workspace, root: Path) -> None:
    (root / "src").mkdir()
    with pytest.raises(ToolError, match="Cannot write 'src': it is a directory"):
        text(WriteFileTool(ws), path="src", content="x")


def test_write_dry_run_describes_and_changes_nothing(ws: Workspace, root: Path) -> None:
    tool = WriteFileTool(ws)
    created = wait(tool.dry_run({"path": "new.txt", "content": "hi\n"}))
    assert created.text == "Would create 'new.txt' (3 bytes, 1 line)."
    assert not (root / "new.txt").exists()
    (root / "a.txt").write_text("one\ntwo\n")
    replaced = wait(tool.dry_run({"path": "a.txt", "content": "one\nTWO\n"}))
    assert replaced.text.startswith(
        "Would replace 'a.txt' (2 lines -> 2 lines):\n--- a/a.txt\n+++ b/a.txt"
    )
    assert "-two\n+TWO" in replaced.text
    assert (root / "a.txt").read_text() == "one\ntwo\n"
    same = wait(tool.dry_run({"path": "a.txt", "content": "one\ntwo\n"}))
    assert same.text == "Would leave 'a.txt' unchanged (same content)."
    with pytest.raises(WorkspaceError):
        wait(tool.dry_run({"path": "../x", "content": ""}))


def test_write_rollback_restores_content_and_mode(ws: Workspace, root: Path) -> None:
    (root / "a.sh").write_text("before\n")
    (root / "a.sh").chmod(0o700)
    tool = WriteFileTool(ws)
    rollback = wait(tool.prepare_rollback({"path": "a.sh", "content": "after\n"}))
    text(tool, path="a.sh", content="after\n")
    (root / "a.sh").chmod(0o644)
    wait(rollback.apply())
    assert (root / "a.sh").read_text() == "before\n"
    assert stat.S_IMODE((root / "a.sh").stat().st_mode) == 0o700


def test_write_rollback_removes_a_new_file_and_the_dirs_it_made(ws: Workspace, root: Path) -> None:
    (root / "keep").mkdir()
    tool = WriteFileTool(ws)
    rollback = wait(tool.prepare_rollback({"path": "keep/new/deep/f.txt", "content": "x"}))
    assert rollback.description == "remove 'keep/new/deep/f.txt' (it did not exist)"
    text(tool, path="keep/new/deep/f.txt", content="x")
    wait(rollback.apply())
    assert not (root / "keep" / "new").exists()
    assert (root / "keep").is_dir()


# ── list_files ──────────────────────────────────────────────────────────────


@pytest.fixture
def tree(root: Path) -> Path:
    for rel in [
        "README.md",
        "src/app.py",
        "src/util/helpers.py",
        "src/util/data.json",
        "web/index.ts",
        "web/view.tsx",
        ".git/config",
        "node_modules/lib/index.js",
        "src/__pycache__/app.cpython-311.pyc",
        ".venv/bin/python",
    ]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    return root


def test_lists_everything_but_ignored_dirs(ws: Workspace, tree: Path) -> None:
    assert (text(ListFilesTool(ws))).splitlines() == [
        "src/",
        "web/",
        "README.md",
        "src/util/",
        "src/app.py",
        "src/util/data.json",
        "src/util/helpers.py",
        "web/index.ts",
        "web/view.tsx",
    ]


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", ".", ["src/app.py", "src/util/helpers.py"]),
        ("src/*.py", ".", ["src/app.py"]),
        ("src/**/*.py", ".", ["src/app.py", "src/util/helpers.py"]),
        ("*.{ts,tsx}", ".", ["web/index.ts", "web/view.tsx"]),
        ("*.py", "src/util", ["src/util/helpers.py"]),
        ("util/*", "src", ["src/util/data.json", "src/util/helpers.py"]),
        ("[hd]*", "src/util", ["src/util/data.json", "src/util/helpers.py"]),
    ],
)
def test_glob_patterns(
    ws: Workspace, tree: Path, pattern: str, path: str, expected: list[str]
) -> None:
    assert (text(ListFilesTool(ws), pattern=pattern, path=path)).splitlines() == expected


def test_listing_an_ignored_dir_explicitly_works(ws: Workspace, tree: Path) -> None:
    assert text(ListFilesTool(ws), path=".git") == ".git/config"


def test_many_entries_are_capped_with_a_note(ws: Workspace, root: Path) -> None:
    for i in range(30):
        (root / f"f{i:02d}.txt").write_text("")
    lines = (text(ListFilesTool(ws, max_entries=10))).splitlines()
    assert lines[:2] == ["f00.txt", "f01.txt"]
    assert lines[10] == "[... 20 more entries not shown; narrow the pattern or path.]"
    assert len(lines) == 11


def test_symlinks_are_listed_not_followed(ws: Workspace, root: Path) -> None:
    # A link is listed with the files; one leading outside is not even looked at (so it
    # shows no '/'), one leading to a directory inside ends with '/' and is not descended.
    (root / "a.txt").write_text("")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("")
    (root / "alias.txt").symlink_to("a.txt")
    (root / "code").symlink_to("src", target_is_directory=True)
    (root / "escape").symlink_to(root.parent / "outside", target_is_directory=True)
    (root / "loop").symlink_to("loop")
    assert (text(ListFilesTool(ws))).splitlines() == [
        "src/",
        "a.txt",
        "alias.txt -> a.txt",
        "code/ -> src",
        "escape -> (outside the workspace; not readable)",
        "loop -> (not followed: a loop of links, or unreadable)",
        "src/main.py",
    ]


def test_list_refusals(ws: Workspace, tree: Path) -> None:
    with pytest.raises(WorkspaceError):
        text(ListFilesTool(ws), path="..")
    with pytest.raises(ToolError, match=r"'README\.md' is a file, not a directory"):
        text(ListFilesTool(ws), path="README.md")
    with pytest.raises(ToolError, match="No directory 'nope'"):
        text(ListFilesTool(ws), path="nope")
    assert text(ListFilesTool(ws), pattern="*.rs") == "No entries match '*.rs' under '.'."


# ── names that are not UTF-8 ────────────────────────────────────────────────

LATIN1_NAME = os.fsdecode(b"caf\xe9.txt")  # 'caf\udce9.txt' as os gives it


def test_listed_names_are_escaped_and_free_of_surrogates(ws: Workspace, root: Path) -> None:
    (root / LATIN1_NAME).write_text("menu\n")
    (root / os.fsdecode(b"d\xff")).mkdir()
    (root / os.fsdecode(b"d\xff") / "in.txt").write_text("")
    (root / "link").symlink_to(LATIN1_NAME)
    out = text(ListFilesTool(ws))
    assert out.splitlines() == [
        "d\\xff/",
        "caf\\xe9.txt",
        "link -> caf\\xe9.txt",
        "d\\xff/in.txt",
    ]
    out.encode("utf-8")
    assert text(ListFilesTool(ws), pattern="caf*") == "caf\\xe9.txt"
    assert text(ListFilesTool(ws), path="d\\xff") == "d\\xff/in.txt"


def test_an_escaped_name_given_back_reads_and_writes_the_real_file(
    ws: Workspace, root: Path
) -> None:
    (root / LATIN1_NAME).write_text("menu\n")
    assert text(ReadFileTool(ws), path="caf\\xe9.txt") == "menu\n"
    out = text(WriteFileTool(ws), path="caf\\xe9.txt", content="carte\n")
    assert out == "Wrote 6 bytes (1 line) to 'caf\\xe9.txt' (replaced the previous content)."
    assert (root / LATIN1_NAME).read_text() == "carte\n"
    assert sorted(os.listdir(os.fsencode(root))) == [b"caf\xe9.txt"]


def test_messages_about_such_names_are_escaped(ws: Workspace, root: Path) -> None:
    (root / os.fsdecode(b"d\xff")).mkdir()
    with pytest.raises(ToolError) as info:
        text(ReadFileTool(ws), path="d\\xff/gone\\xe9.txt")
    assert str(info.value).startswith("No file 'd\\xff/gone\\xe9.txt' in the workspace.")
    with pytest.raises(ToolError) as info:
        text(ReadFileTool(ws), path="d\\xff")
    assert str(info.value) == "'d\\xff' is a directory; use list_files to see what is in it."


def test_content_with_a_lone_surrogate_is_refused_not_crashed_on(ws: Workspace, root: Path) -> None:
    tool = WriteFileTool(ws)
    with pytest.raises(ToolError, match=r"content contains an unpaired surrogate \('\\udce9'"):
        text(tool, path="a.txt", content="caf\udce9")
    with pytest.raises(ToolError, match="unpaired surrogate"):
        wait(tool.dry_run({"path": "a.txt", "content": "caf\udce9"}))
    assert not (root / "a.txt").exists()


# ── hard links ──────────────────────────────────────────────────────────────


@pytest.fixture
def hard_link(root: Path) -> Path:
    """`ws/linked.txt`: a second name of `outside/secret.txt`."""
    os.link(root.parent / "outside" / "secret.txt", root / "linked.txt")
    return root / "linked.txt"


def test_a_file_with_several_hard_links_is_not_read(ws: Workspace, hard_link: Path) -> None:
    with pytest.raises(ToolError) as info:
        text(ReadFileTool(ws), path="linked.txt")
    assert str(info.value).startswith(
        "'linked.txt' has 2 hard links, so the same file may also be reachable outside the "
        "workspace; it is not read."
    )
    assert "top secret" not in str(info.value)


def test_replacing_a_hard_linked_file_leaves_its_other_name_alone(
    ws: Workspace, root: Path, hard_link: Path
) -> None:
    tool = WriteFileTool(ws)
    preview = wait(tool.dry_run({"path": "linked.txt", "content": "mine\n"}))
    assert preview.text == (
        "Would replace 'linked.txt' with 5 bytes of text (its previous content is not shown: it "
        "has 2 hard links, so it may belong to a file outside the workspace)."
    )
    with pytest.raises(ToolError, match="2 hard links"):  # undoing it would need the content
        wait(tool.prepare_rollback({"path": "linked.txt", "content": "mine\n"}))
    text(tool, path="linked.txt", content="mine\n")
    assert hard_link.read_text() == "mine\n"
    assert hard_link.stat().st_nlink == 1
    assert (root.parent / "outside" / "secret.txt").read_text() == "top secret\n"


# ── writing: temporary files ────────────────────────────────────────────────


def test_a_failed_write_leaves_no_temporary_file(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_text("before\n")

    def failing_rename(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", failing_rename)
    with pytest.raises(ToolError, match=r"Cannot write 'a\.txt': No space left on device"):
        text(WriteFileTool(ws), path="a.txt", content="after\n")
    monkeypatch.undo()
    assert os.listdir(root) == ["a.txt"]
    assert (root / "a.txt").read_text() == "before\n"


def test_writing_beneath_a_missing_directory_then_dotdot_makes_only_what_is_needed(
    ws: Workspace, root: Path
) -> None:
    text(WriteFileTool(ws), path="tmp/../kept.txt", content="x")
    assert os.listdir(root) == ["kept.txt"]


def test_listing_stops_at_a_depth_bound(ws: Workspace, root: Path) -> None:
    # Each level listed holds a descriptor open, so a generated or hostile tree that
    # nests without end is listed only so deep.
    deep = root.joinpath(*["d"] * (MAX_DEPTH + 3))
    deep.mkdir(parents=True)
    lines = text(ListFilesTool(ws, max_entries=1000)).splitlines()
    assert lines[-1] == "/".join(["d"] * (MAX_DEPTH + 1)) + "/"
    assert len(lines) == MAX_DEPTH + 1


def test_a_write_under_way_is_not_listed(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("a\n")
    (tmp_path / ".tiller-0123456789ab.tmp").write_text("being written\n")  # ours, mid-write
    (tmp_path / ".tiller-notes.tmp").write_text("a user's own file\n")
    assert [e.relative for e in walk(tmp_path)] == [".tiller-notes.tmp", "notes.txt"]
