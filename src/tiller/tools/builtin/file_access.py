"""Reading and writing files inside a workspace the way the built-in tools need.

Paths here are real paths returned by `Workspace.resolve`; files are opened
with `NOFOLLOW` so a link swapped in after the check is not followed. Only
regular files are read or replaced (a FIFO or device would block or worse).
Writes go to a temporary file in the same directory, then replace the target:
a crash never leaves half a file, and the file keeps its permissions.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import secrets
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

from tiller.errors import ToolError
from tiller.tools.rollback import Rollback
from tiller.tools.workspace import NOFOLLOW, Workspace
from tiller.truncation import truncate_head_tail

BINARY_SNIFF_BYTES = 8192
DIFF_MAX_LINES = 200


def looks_binary(head: bytes) -> bool:
    """Text files do not contain NUL bytes; images, archives and executables do."""
    return b"\0" in head


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def line_count(text: str) -> int:
    """Lines as an editor counts them: a final newline does not start another line."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def lines_text(count: int) -> str:
    return "1 line" if count == 1 else f"{count} lines"


def open_regular(path: Path, rel: str) -> int:
    """A read-only descriptor of the regular file at `path`, or a `ToolError` saying why not."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ToolError(
            f"No file {rel!r} in the workspace. Use list_files to find the right path."
        ) from None
    except IsADirectoryError:
        raise ToolError(f"{rel!r} is a directory; use list_files to see what is in it.") from None
    except OSError as exc:
        raise ToolError(f"Cannot open {rel!r}: {exc.strerror}.") from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode):
        os.close(fd)
        raise ToolError(f"{rel!r} is a directory; use list_files to see what is in it.")
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ToolError(f"{rel!r} is not a regular file (a device, socket or pipe); not read.")
    return fd


def read_bytes(path: Path, rel: str) -> bytes:
    fd = open_regular(path, rel)
    with os.fdopen(fd, "rb") as f:
        return f.read()


def read_text_for_edit(path: Path, rel: str) -> str:
    """The whole file as text, refused when binary or not UTF-8 (editing would corrupt it)."""
    data = read_bytes(path, rel)
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolError(
            f"{rel!r} looks like a binary file ({size_text(len(data))}, contains NUL bytes); "
            "it cannot be edited as text."
        )
    try:
        # newline="" semantics: keep \r\n as it is, so an edit changes only what it replaces.
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{rel!r} is not UTF-8 text (byte {exc.start} cannot be decoded); editing it "
            "as text would corrupt it."
        ) from None


def write_atomically(path: Path, data: bytes, rel: str) -> bool:
    """Replace (or create) `path` with `data`; returns whether it existed before."""
    try:
        previous = os.lstat(path)
    except FileNotFoundError:
        previous = None
    if previous is not None and not stat.S_ISREG(previous.st_mode):
        kind = "a directory" if stat.S_ISDIR(previous.st_mode) else "not a regular file"
        raise ToolError(f"Cannot write {rel!r}: it is {kind}.")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".{path.name}.tiller-{secrets.token_hex(4)}.tmp"
    # 0o666 through the umask, as for any new file; an existing file keeps its mode.
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if previous is not None:
                os.fchmod(f.fileno(), stat.S_IMODE(previous.st_mode))
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return previous is not None


def unified_diff(rel: str, before: str, after: str) -> str:
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{rel}",
        tofile=f"b/{rel}",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
    return truncate_head_tail(text.rstrip("\n"), DIFF_MAX_LINES)


def file_rollback(workspace: Workspace, given_path: str) -> Rollback:
    """An undo for a write to `given_path`: restore its bytes and mode, or remove it (and the
    directories the write will create) when it does not exist yet."""
    path = workspace.resolve(given_path)
    rel = workspace.relative(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is None:
        created = _missing_ancestors(path, workspace.root)

        def remove() -> None:
            workspace.resolve(rel).unlink(missing_ok=True)
            for directory in created:  # deepest first; only if still empty
                try:
                    directory.rmdir()
                except OSError:
                    break

        return Rollback(f"remove {rel!r} (it did not exist)", _in_thread(remove))

    content = read_bytes(path, rel)
    mode = stat.S_IMODE(info.st_mode)

    def restore() -> None:
        target = workspace.resolve(rel)
        write_atomically(target, content, rel)
        os.chmod(target, mode)

    return Rollback(f"restore {rel!r} ({size_text(len(content))})", _in_thread(restore))


def _in_thread(action: Callable[[], None]) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        await asyncio.to_thread(action)

    return run


def _missing_ancestors(path: Path, root: Path) -> list[Path]:
    missing: list[Path] = []
    parent = path.parent
    while parent != root and not parent.exists():
        missing.append(parent)
        parent = parent.parent
    return missing
