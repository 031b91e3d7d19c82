"""The documentation's workspace demo (docs/concepts/tools.md) is examples/workspace_agent.py,
and it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace_agent.py"


def docs_block(heading: str) -> str:
    page = (REPO / "docs" / "concepts" / "tools.md").read_text()
    section = page[page.index(heading) :]
    start = section.index("```python\n") + len("```python\n")
    return section[start : section.index("\n```", start)]


def test_the_docs_show_the_example_code() -> None:
    code = docs_block("## The workspace and the built-in tools")
    assert "builtin_tools(" in code
    assert code in EXAMPLE.read_text()


def test_the_example_edits_runs_is_refused_outside_and_rolls_back(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.txt").write_text("not for the model\n")
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(workspace)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[edit_file] Edited 'greet.sh': replaced 1 match (at line 1).",
        '>1| echo "hello, tiller"',
        "[shell] hello, tiller",
        "[exit code 0]",
        f"[read_file error] Path '../secret.txt' leaves the workspace with '..' (the root is "
        f"{workspace.resolve()}). Give a path inside the workspace, relative to its root.",
        "greet.sh now greets tiller.",
        'after rollback: echo "hello, world"',
    ]
    assert "not for the model" not in done.stdout
    assert (workspace / "greet.sh").read_text() == 'echo "hello, world"\n'
    assert sorted(p.name for p in workspace.iterdir()) == ["greet.sh"]
