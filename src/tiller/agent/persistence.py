"""Saving and loading an agent's history: the file format, checked, and atomic writes."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from tiller.codec import message_from_data
from tiller.context.view import ContextView
from tiller.errors import InvalidHistoryError
from tiller.messages import AssistantMessage, Message, ToolResultMessage

HISTORY_FORMAT = 1
_TEMP_SUFFIX = ".tmp"


def parse_saved(text: str) -> tuple[list[Message], ContextView]:
    """The messages and compaction blocks of a saved history; `InvalidHistoryError` if not."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise InvalidHistoryError("the saved history is nested too deeply to be one") from None
    except ValueError as exc:
        raise InvalidHistoryError(f"the saved history is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise InvalidHistoryError("the saved history must be an object with a 'messages' list")
    _check_format(data.get("format", HISTORY_FORMAT))
    try:
        messages = [message_from_data(m) for m in data["messages"]]
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        raise InvalidHistoryError(f"the saved history has a malformed message: {exc}") from None
    _check_tool_results(messages)
    try:
        view = ContextView.from_data(data.get("compactions", []), messages)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as exc:
        raise InvalidHistoryError(f"the saved history has a malformed compaction: {exc}") from None
    return messages, view


def _check_format(version: Any) -> None:
    if version == HISTORY_FORMAT and type(version) is int:
        return
    if isinstance(version, int) and not isinstance(version, bool) and version > HISTORY_FORMAT:
        raise InvalidHistoryError(
            f"the history was saved in format {version} by a newer Tiller; this version "
            f"reads format {HISTORY_FORMAT}: upgrade Tiller to load it"
        )
    raise InvalidHistoryError(
        f"the saved history has an unknown format {version!r} (this version reads "
        f"format {HISTORY_FORMAT})"
    )


def _check_tool_results(messages: list[Message]) -> None:
    """Every tool result answers a call of the assistant message before it, once."""
    open_calls: set[str] = set()
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            open_calls = {c.id for c in message.tool_calls}
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id not in open_calls:
                raise InvalidHistoryError(
                    f"the saved history has an orphaned tool result (message {i}, for call "
                    f"{message.tool_call_id!r} of {message.tool_name!r}): no assistant "
                    "message before it made that call, and providers refuse such a history"
                )
            open_calls.discard(message.tool_call_id)


# ── writing ─────────────────────────────────────────────────────────────────


def save_text_atomically(target: Path, text: str) -> None:
    """Write `text` to `target` through a temporary file and a rename.

    The file keeps the mode of the one it replaces (a new one gets the umask's
    default). Lone surrogates in the text are written as JSON escapes, so any
    string round-trips. OS errors name `target`, never the temporary file.
    """
    directory = target.parent
    data = text.encode("utf-8", "backslashreplace")
    try:
        _remove_stale_temporaries(target)
        mode = _existing_mode(target)
        temp = directory / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{_TEMP_SUFFIX}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # less the umask
    except OSError as exc:
        raise _naming(exc, target) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        if isinstance(exc, OSError):
            raise _naming(exc, target) from None
        raise


def _existing_mode(target: Path) -> int | None:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return None


def _remove_stale_temporaries(target: Path) -> None:
    """Remove temporary files of earlier saves to `target` whose process is gone."""
    prefix = f".{target.name}."
    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(_TEMP_SUFFIX)):
            continue
        pid = name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # ours: a save going on in another thread (a failed one cleans up)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _naming(exc: OSError, target: Path) -> OSError:
    """The same kind of error, about `target` (never the temporary file)."""
    return type(exc)(exc.errno, exc.strerror or str(exc), str(target))
