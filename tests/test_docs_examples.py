"""Every code block of the documentation (docs/**/*.md) and the README runs here, or
says in its info string why it cannot.

What happens to a fenced block depends on its info string (the words after the fence):

- ```` ```python ````: run. The blocks of one page run in order in one namespace (a
  later block may use what an earlier one defined), in a fresh temporary directory,
  with network models blocked (`tiller.testing.block_network_models`): a block that
  would call a hosted provider fails here instead of reaching out. A top-level `await`
  is allowed, as in a notebook.
- A block with a title, ```` ```python title="NAME.py" ```` or ```` ```json
  title="NAME.json" ````: a file the page's other blocks use (a module of tools, an MCP
  server, a model script). It is written to NAME in that directory before the page's
  blocks run (so it may come after the block that uses it), not run by itself.
- ```` ```sh ````: each line is a command. `tiller ...` runs (this environment's
  `tiller`, in that directory, without API keys, so on the embedded model) and must
  exit 0 (`tiller solve`: with one of its outcomes, `SOLVE_OUTCOMES`);
  `make TARGET` checks that the Makefile has TARGET; `pip install ...` checks that
  each `tiller[EXTRA]` is an extra of pyproject.toml; `.venv/bin/python
  benchmarks/SCRIPT.py --option ...` (a benchmark, minutes long) checks that the script
  exists and its `--help` lists each option. Anything else fails the test.
- **`{.needs-key}`** after the language (```` ```python {.needs-key} ````,
  ```` ```sh {.needs-key} ````) marks a block that needs an API key or a model server
  this test does not have. A Python block is compiled (so it cannot rot into a syntax
  error) but not run; the commands of a shell block are not run. The marker is a class
  in the attribute syntax of the site's Markdown (pymdownx.superfences), so the site
  labels the block "needs an API key" (docs/stylesheets/extra.css), and GitHub, which
  reads only the first word, still highlights it as Python or shell.
- **`{.server}`** after `sh` marks a session with `tiller serve`: the block runs
  whole, as one bash script (`set -euo pipefail`) in that directory, as a reader would
  paste it: it starts the server itself (in the background) and talks to it with
  `curl`. It must exit 0 within `SERVER_SESSION_S`; the server it started is stopped
  after it, with everything else the script left running.
- ```` ```text ````, ```` ```json ````: output or data shown to the reader, not code.

Any other language fails the test, so a new kind of block is a decision, not an
accident.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tiller.testing import block_network_models

ROOT = Path(__file__).parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
NEEDS_KEY = "needs-key"  # the class: ```python {.needs-key}
SERVER = "server"  # the class: ```sh {.server}
SERVER_SESSION_S = 300
OUTPUT_LANGUAGES = {"text", "json"}
# Variables that would send a `tiller` command to a hosted provider or another model.
PROVIDER_VARIABLES = re.compile(r".*_API_KEY|TILLER_MODEL|OPENAI_BASE_URL")

# `tiller solve` on the embedded model ends as that model plans (a 135M model plans
# poorly): any of its documented outcomes passes (done 0, failed 1, stopped 3, waiting
# for people 4), bad usage (2) or a crash does not.
SOLVE_OUTCOMES = {0, 1, 3, 4}

FENCE = re.compile(
    r"^(?P<indent> *)(?P<fence>```+)(?P<info>[^`\n]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)


@dataclass(frozen=True, slots=True)
class Block:
    page: Path
    line: int
    language: str
    words: tuple[str, ...]
    title: str | None
    code: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def needs_key(self) -> bool:
        return f".{NEEDS_KEY}" in self.words

    @property
    def server_session(self) -> bool:
        return f".{SERVER}" in self.words


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        info = match["info"].strip()
        language, _, rest = info.partition(" ")
        title = re.search(r'title="([^"]+)"', rest)
        indent = len(match["indent"])
        code = "\n".join(line[indent:] for line in match["body"].splitlines())
        found.append(
            Block(
                page=page,
                line=text.count("\n", 0, match.start()) + 1,
                language=language,
                words=tuple(re.sub(r'\w+="[^"]*"|[{}]', " ", rest).split()),
                title=title[1] if title else None,
                code=code + "\n",
            )
        )
    return found


def test_the_pages_have_code_blocks_and_the_fences_are_found() -> None:
    readme = blocks(ROOT / "README.md")
    assert readme, "the README's code blocks were not found"
    assert {b.language for page in PAGES for b in blocks(page)} >= {"python", "sh"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_runs_or_says_why_not(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [page.name])
    for name in [n for n in os.environ if PROVIDER_VARIABLES.fullmatch(n)]:
        monkeypatch.delenv(name)
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    for block in blocks(page):
        if block.title is not None:
            if block.language == "python":
                compile(block.code, block.where, "exec")
            (tmp_path / block.title).write_text(block.code, encoding="utf-8")
    for block in blocks(page):
        if block.title is not None or block.language in OUTPUT_LANGUAGES:
            continue
        if block.language == "python":
            run_python(block, namespace, tmp_path)
        elif block.language == "sh" and block.server_session:
            run_server_session(block, tmp_path)
        elif block.language == "sh":
            run_commands(block, tmp_path)
        else:
            pytest.fail(
                f"{block.where}: a ```{block.language} block; use python, sh, text or json "
                "(see this test's docstring)"
            )


def run_python(block: Block, namespace: dict[str, Any], folder: Path) -> None:
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    code = compile(block.code, block.where, "exec", flags=flags)
    if block.needs_key:
        return
    sys.path.insert(0, str(folder))  # the page's files (title="NAME.py") import as modules
    try:
        with block_network_models():
            outcome = eval(code, namespace)
            if code.co_flags & inspect.CO_COROUTINE:
                asyncio.run(outcome)
    except BaseException as exc:
        raise AssertionError(f"{block.where}: the block raised {exc!r}") from exc
    finally:
        sys.path.remove(str(folder))


def run_commands(block: Block, folder: Path) -> None:
    for line in block.code.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[0] == "tiller" and not block.needs_key:
            run_tiller(block, words, folder)
        elif words[0] == "tiller":
            continue
        elif words[0] == "make":
            assert all(has_make_target(t) for t in words[1:]), f"{block.where}: {line}"
        elif words[:2] == ["pip", "install"]:
            check_extras(block, words[2:])
        elif words[0] == ".venv/bin/python" and words[1:2] and words[1].startswith("benchmarks/"):
            check_benchmark_options(block, [words[1]], words[2:])
        elif words[0] == ".venv/bin/python" and words[1:2] == ["-m"] and words[2:3]:
            module = words[2]
            assert module.startswith("benchmarks."), f"{block.where}: {line}"
            check_benchmark_options(block, ["-m", module], words[3:])
        else:
            pytest.fail(f"{block.where}: `{line}` is no command this test knows how to check")


def run_server_session(block: Block, folder: Path) -> None:
    """Run the block as one bash script in its own process group, then stop the group."""
    bin_dir = str(Path(sys.executable).parent)  # this environment's `tiller`
    env = {n: v for n, v in os.environ.items() if not PROVIDER_VARIABLES.fullmatch(n)}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    script = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", block.code],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, err = script.communicate(timeout=SERVER_SESSION_S)
    except subprocess.TimeoutExpired:
        err = f"the session did not end within {SERVER_SESSION_S} s"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(script.pid, signal.SIGTERM)
        script.wait(timeout=30)
    logs = "".join(
        f"\n--- {name}:\n{(folder / name).read_text()[-3000:]}"
        for name in ("serve.log", "serve.err")
        if (folder / name).exists()
    )
    assert script.returncode == 0, f"{block.where}: exit {script.returncode}\n{err}{logs}"
    assert "Traceback" not in err, f"{block.where}:\n{err}"


def run_tiller(block: Block, words: list[str], folder: Path) -> None:
    executable = shutil.which("tiller", path=str(Path(sys.executable).parent))
    assert executable is not None
    env = {n: v for n, v in os.environ.items() if not PROVIDER_VARIABLES.fullmatch(n)}
    out = subprocess.run(
        [executable, *words[1:]],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    expected = SOLVE_OUTCOMES if words[1:2] == ["solve"] else {0}
    assert out.returncode in expected, f"{block.where}: `{shlex.join(words)}` failed:\n{out.stderr}"
    assert "Traceback" not in out.stderr, f"{block.where}: `{shlex.join(words)}`:\n{out.stderr}"


def has_make_target(target: str) -> bool:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return re.search(rf"^{re.escape(target)}:", makefile, re.M) is not None


def check_extras(block: Block, arguments: list[str]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = set(project["optional-dependencies"])
    for argument in arguments:
        match = re.fullmatch(r"tiller(?:\[([\w,-]+)\])?", argument)
        assert match, f"{block.where}: pip install {argument}: not Tiller"
        named = set(match[1].split(",")) if match[1] else set()
        assert named <= extras, f"{block.where}: no extra {sorted(named - extras)}"


def check_benchmark_options(block: Block, target: list[str], arguments: list[str]) -> None:
    """`target` is a script's path, or `-m` and a module of the benchmarks package."""
    script = target[-1] if target[0] != "-m" else target[1].replace(".", "/") + ".py"
    assert (ROOT / script).is_file(), f"{block.where}: no {script}"
    out = subprocess.run(
        [sys.executable, *target, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    for option in (a.partition("=")[0] for a in arguments if a.startswith("--")):
        listed = re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", out.stdout)
        assert listed, f"{block.where}: {script} has no {option}"


# Our design notes live outside the repository; users have none of them, so no text in
# it (README, docs, docstrings and messages, tests, examples, benchmarks) may send them there.
DESIGN_NOTES = re.compile(r"seed[ _-]?\d{3}|\.\./shared|shared/(?:DESIGN|seeds)", re.I)


def test_no_text_in_the_repository_names_the_design_notes() -> None:
    texts = [
        *PAGES,
        *(ROOT / "src").rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "examples").rglob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
        *(ROOT / "benchmarks" / "local_tasks").glob("*.md"),
    ]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in texts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DESIGN_NOTES.search(line)
    ]
    assert found == []
