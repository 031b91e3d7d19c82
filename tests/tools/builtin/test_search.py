"""search: regex over the workspace's text files, capped, with clear errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tools.builtin.helpers import text
from tiller.errors import ToolError
from tiller.tools.builtin import SearchTool
from tiller.tools.workspace import Workspace, WorkspaceError


@pytest.fixture
def tree(root: Path) -> Path:
    files = {
        "src/app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
        "src/util.py": "def helper():\n    return 'Main'\n",
        "docs/guide.md": "Call main() to start.\n",
        ".git/HEAD": "def main(): fake\n",
        "node_modules/x/index.js": "function main() {}\n",
    }
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content)
    (root / "image.bin").write_bytes(b"def main\0\x01\x02")
    return root


def test_matching_lines_as_path_line_text(ws: Workspace, tree: Path) -> None:
    assert text(SearchTool(ws), pattern=r"def \w+\(") == (
        "src/app.py:3: def main():\nsrc/util.py:1: def helper():\n"
        "[1 files skipped: binary, unreadable or over 4000000 bytes.]"
    )


def test_glob_path_and_case(ws: Workspace, tree: Path) -> None:
    assert (
        text(SearchTool(ws), pattern="main", glob="*.md")
        == "docs/guide.md:1: Call main() to start."
    )
    assert text(SearchTool(ws), pattern="main", path="src", ignore_case=True) == (
        "src/app.py:3: def main():\nsrc/util.py:2:     return 'Main'"
    )
    assert text(SearchTool(ws), pattern="getcwd", path="src/app.py") == (
        "src/app.py:4:     return os.getcwd()"
    )


def test_results_are_capped_with_a_note(ws: Workspace, root: Path) -> None:
    (root / "many.txt").write_text("hit\n" * 50)
    out = text(SearchTool(ws, max_results=5), pattern="hit").splitlines()
    assert out[:5] == [f"many.txt:{i}: hit" for i in range(1, 6)]
    assert out[5].startswith("[Stopped at 5 matches; narrow the pattern")
    assert len(out) == 6


def test_long_lines_are_clipped(ws: Workspace, root: Path) -> None:
    (root / "wide.txt").write_text("x" * 1000 + "needle\n")
    out = text(SearchTool(ws), pattern="needle")
    assert out == "wide.txt:1: " + "x" * 300 + "… [706 more chars]"


def test_bad_regex_is_a_clear_error(ws: Workspace, tree: Path) -> None:
    with pytest.raises(ToolError) as info:
        text(SearchTool(ws), pattern="main(")
    assert str(info.value).startswith(
        "Invalid regular expression 'main(': missing ), unterminated subpattern at position 4."
    )
    assert "backslash" in str(info.value)


def test_no_matches_and_missing_paths(ws: Workspace, tree: Path) -> None:
    assert text(SearchTool(ws), pattern="zebra", path="src") == "No matches for 'zebra'."
    with pytest.raises(ToolError, match="No file or directory 'nope'"):
        text(SearchTool(ws), pattern="x", path="nope")


def test_searching_outside_is_refused_and_links_out_are_not_followed(
    ws: Workspace, root: Path
) -> None:
    (root / "escape").symlink_to(root.parent / "outside", target_is_directory=True)
    (root / "leak.txt").symlink_to(root.parent / "outside" / "secret.txt")
    with pytest.raises(WorkspaceError):
        text(SearchTool(ws), pattern="secret", path="../outside")
    with pytest.raises(WorkspaceError):
        text(SearchTool(ws), pattern="secret", path="escape")
    assert text(SearchTool(ws), pattern="secret") == "No matches for 'secret'."


def test_a_pattern_that_stalls_backtracking_engines_returns_at_once(
    ws: Workspace, root: Path
) -> None:
    # (a+)+$ takes minutes per line in a backtracking engine; the search's is linear-time.
    (root / "as.txt").write_text(("a" * 30 + "!\n") * 50 + "a" * 30 + "\n")
    assert text(SearchTool(ws), pattern="(a+)+$") == "as.txt:51: " + "a" * 30
    assert text(SearchTool(ws), pattern="(a+)+b") == "No matches for '(a+)+b'."


def test_backreferences_and_lookaround_are_a_clear_error(ws: Workspace, tree: Path) -> None:
    with pytest.raises(ToolError) as info:
        text(SearchTool(ws), pattern=r"def (\w+).*\1")
    message = str(info.value)
    assert message.startswith(r"Cannot search for 'def (\\w+).*\\1': invalid escape sequence")
    assert "linear-time" in message
    with pytest.raises(ToolError, match="does not support backreferences"):
        text(SearchTool(ws), pattern="main(?=\\()")
    schema = SearchTool(ws).parameters["properties"]["pattern"]
    assert "without backreferences or lookaround" in schema["description"]


def test_a_file_with_several_hard_links_is_left_out_with_a_note(ws: Workspace, root: Path) -> None:
    # Its other name may lie outside the workspace, as here: read_file refuses it too.
    os.link(root.parent / "outside" / "secret.txt", root / "linked.txt")
    (root / "own.txt").write_text("top secret, but the workspace's own\n")
    note = (
        "[1 files not searched: they have more than one hard link, so they may also be "
        "reachable outside the workspace.]"
    )
    assert text(SearchTool(ws), pattern="top secret") == (
        "own.txt:1: top secret, but the workspace's own\n" + note
    )
    assert text(SearchTool(ws), pattern="top secret", path="linked.txt") == (
        "No matches for 'top secret'.\n" + note
    )


def test_names_that_are_not_utf8_are_shown_escaped_and_can_be_given_back(
    ws: Workspace, root: Path
) -> None:
    os.mkdir(os.fsencode(root) + b"/caf\xe9")
    with open(os.fsencode(root) + b"/caf\xe9/menu.txt", "wb") as f:
        f.write(b"needle\n")
    assert text(SearchTool(ws), pattern="needle") == "caf\\xe9/menu.txt:1: needle"
    assert text(SearchTool(ws), pattern="needle", path="caf\\xe9") == (
        "caf\\xe9/menu.txt:1: needle"
    )
    assert text(SearchTool(ws), pattern="needle", path="caf\\xe9/menu.txt") == (
        "caf\\xe9/menu.txt:1: needle"
    )
    with pytest.raises(ToolError) as info:
        text(SearchTool(ws), pattern="needle", path="caf\\xe9/nope")
    assert str(info.value) == (
        "No file or directory 'caf\\xe9/nope' in the workspace; try path='.'."
    )


def test_a_link_inside_the_workspace_is_searched_through(ws: Workspace, root: Path) -> None:
    (root / "real").mkdir()
    (root / "real" / "a.txt").write_text("needle\n")
    (root / "alias").symlink_to("real", target_is_directory=True)
    assert text(SearchTool(ws), pattern="needle", path="alias") == "real/a.txt:1: needle"
    assert text(SearchTool(ws), pattern="needle") == "real/a.txt:1: needle"
