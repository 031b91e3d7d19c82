"""Reading and writing files inside a workspace the way the built-in tools need.

Every operation takes an `Location` from `tiller.tools.confined_fs.locate`: the
file is opened, created or replaced relative to the descriptor of the
directory that holds it, never by path, with `O_NOFOLLOW`. Only regular files
are read or replaced (a FIFO or device would block or worse).

A regular file with more than one hard link is not read: its other names may
lie outside the workspace, and nothing short of searching every file system
can tell, so its content is treated as not the workspace's. Replacing one is
allowed, as it never changes the other names' content (see below).

Writes go to a temporary file (created with `O_EXCL`) in the same directory,
which is flushed to disk and then renamed over the target within that
directory: a crash never leaves half a file, the file keeps its permissions,
and the temporary file is removed on any failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import errno
import os
import secrets
import stat
from collections.abc import Awaitable, Callable

from tiller.errors import ToolError
from tiller.tools.confined_fs import Location, locate, make_directories
from tiller.tools.file_names import quoted, shown_name, writing_name
from tiller.tools.rollback import Rollback
from tiller.tools.workspace import Workspace
from tiller.truncation import truncate_head_tail

BINARY_SNIFF_BYTES = 8192
DIFF_MAX_LINES = 200
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
LIST_FILES_HINT = "Use list_files to find the right path."


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


def utf8(text: str, what: str) -> bytes:
    """`text` as UTF-8, or a `ToolError` when it holds a character UTF-8 cannot carry."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"{what} contains an unpaired surrogate ({text[exc.start]!a} at character "
            f"{exc.start}), which is not text and cannot be written as UTF-8; remove it."
        ) from None


def exists(entry: Location) -> bool:
    """Whether `entry` names something (a file, directory or link) right now."""
    if entry.name is None:
        return True
    if entry.missing:
        return False
    try:
        os.stat(entry.name, dir_fd=entry.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def open_regular(entry: Location, missing_hint: str = LIST_FILES_HINT) -> int:
    """A read-only descriptor of the regular file `entry` names, or a `ToolError` saying why
    not (missing, a directory, a device or pipe, or a file with several hard links)."""
    shown = entry.shown
    if entry.name is None:
        raise ToolError(f"{shown} is a directory; use list_files to see what is in it.")
    if entry.missing:
        raise ToolError(f"No file {shown} in the workspace. {missing_hint}")
    try:
        fd = os.open(entry.name, FILE_FLAGS, dir_fd=entry.dir_fd)
    except FileNotFoundError:
        raise ToolError(f"No file {shown} in the workspace. {missing_hint}") from None
    except OSError as exc:
        raise ToolError(f"Cannot open {shown}: {exc.strerror}; {_changed_hint(exc)}") from None
    try:
        check_regular(os.fstat(fd), shown)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_regular(info: os.stat_result, shown: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{shown} is a directory; use list_files to see what is in it.")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{shown} is not a regular file (a device, socket or pipe); not read.")
    if info.st_nlink > 1:
        raise ToolError(
            f"{shown} has {info.st_nlink} hard links, so the same file may also be reachable "
            "outside the workspace; it is not read. If it belongs in the workspace, ask the "
            "user to replace it with a copy of its own."
        )


def read_bytes(entry: Location, missing_hint: str = LIST_FILES_HINT) -> bytes:
    with os.fdopen(open_regular(entry, missing_hint), "rb") as f:
        return f.read()


def read_text_for_edit(entry: Location) -> str:
    """The whole file as text, refused when binary or not UTF-8 (editing would corrupt it)."""
    hint = "Use write_file to create a file, or list_files to find the right path."
    data = read_bytes(entry, hint)
    shown = entry.shown
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolError(
            f"{shown} looks like a binary file ({size_text(len(data))}, contains NUL bytes); "
            "it cannot be edited as text."
        )
    try:
        # newline="" semantics: keep \r\n as it is, so an edit changes only what it replaces.
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{shown} is not UTF-8 text (byte {exc.start} cannot be decoded); editing it "
            "as text would corrupt it."
        ) from None


def write_atomically(entry: Location, data: bytes, *, mode: int | None = None) -> bool:
    """Replace (or create) the file `entry` names with `data`, making its missing parent
    directories; returns whether it existed before. It keeps its permissions, or gets
    `mode` when given."""
    if entry.name is None:
        raise ToolError(f"Cannot write {entry.shown}: it is a directory.")
    try:
        parent = make_directories(entry)
    except OSError as exc:
        raise ToolError(f"Cannot make the directories for {entry.shown}: {exc.strerror}.") from None
    try:
        return _replace(parent, entry.name, data, entry.shown, mode)
    except OSError as exc:
        raise ToolError(
            f"Cannot write {entry.shown}: {exc.strerror}; {_changed_hint(exc)}"
        ) from None
    finally:
        os.close(parent)


def _replace(dir_fd: int, name: str, data: bytes, shown: str, mode: int | None) -> bool:
    try:
        previous = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        previous = None
    if previous is not None and not stat.S_ISREG(previous.st_mode):
        kind = "a directory" if stat.S_ISDIR(previous.st_mode) else "not a regular file"
        raise ToolError(f"Cannot write {shown}: it is {kind}.")
    if mode is None and previous is not None:
        mode = stat.S_IMODE(previous.st_mode)
    temporary = writing_name(secrets.token_hex(6))
    # 0o666 through the umask, as for any new file; an existing file keeps its mode.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o666, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            f.flush()
            os.fsync(f.fileno())
        os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=dir_fd)
        raise
    os.fsync(dir_fd)
    return previous is not None


def _changed_hint(exc: OSError) -> str:
    if isinstance(exc, (IsADirectoryError, NotADirectoryError)) or exc.errno == errno.ELOOP:
        return "it changed while being opened (into a directory or link); check it and try again."
    return "check the path and its permissions."


def unified_diff(rel: str, before: str, after: str) -> str:
    """A unified diff of `before` and `after` for the file `rel` (a name shown to the model)."""
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
    with locate(workspace, given_path) as entry:
        path = shown_name(entry.rel)  # found again later by the same walk
        if not exists(entry):
            return _removal(workspace, entry, path)
        with os.fdopen(open_regular(entry), "rb") as f:
            content = f.read()
            mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)

    def restore() -> None:
        with locate(workspace, path) as target:
            write_atomically(target, content, mode=mode)

    return Rollback(f"restore {quoted(entry.rel)} ({size_text(len(content))})", _in_thread(restore))


def _removal(workspace: Workspace, entry: Location, path: str) -> Rollback:
    parts = entry.rel.split("/")
    created = [
        shown_name("/".join(parts[: len(parts) - i])) for i in range(1, len(entry.missing) + 1)
    ]  # deepest first

    def remove() -> None:
        with locate(workspace, path, follow_last=False) as target:
            if target.name is not None and not target.missing:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target.name, dir_fd=target.dir_fd)
        for directory in created:  # only while empty
            with locate(workspace, directory, follow_last=False) as target:
                if target.name is None or target.missing:
                    break
                try:
                    os.rmdir(target.name, dir_fd=target.dir_fd)
                except OSError:
                    break

    return Rollback(f"remove {quoted(entry.rel)} (it did not exist)", _in_thread(remove))


def _in_thread(action: Callable[[], None]) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        await asyncio.to_thread(action)

    return run
