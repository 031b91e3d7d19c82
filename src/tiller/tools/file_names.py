"""File names as a model sees them, and back.

A POSIX file name is bytes; Python hands back the bytes that are not UTF-8 as
lone surrogates (`b"caf\\xe9"` becomes `"caf\\udce9"`), which no JSON encoder,
tokenizer or UTF-8 file accepts. So every name a tool shows goes through
`shown_name`: such a byte is written `\\xe9`, an invisible character `\\x0a` or
`\\u00a0`, and a backslash that would otherwise read as the start of one of
these is doubled. Everything else (accented letters, CJK, spaces) is shown as
it is. `name_from_shown` reads that form back, so a model can give the name it
was shown and reach the real file: `name_from_shown(shown_name(n)) == n` for
every name `n`.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(?:\\|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")
_BYTES = range(0xDC80, 0xDD00)  # how os.fsdecode carries a byte that is not UTF-8


def shown_name(name: str) -> str:
    """`name` (as `os` returns it) written with printable characters only, no surrogates."""
    if name.isprintable() and "\\" not in name:
        return name
    pieces = [_shown_char(c) for c in name]
    for i, piece in enumerate(pieces):
        # A literal backslash is doubled only when what follows would read as an escape.
        if piece == "\\" and _ESCAPE.match("\\" + "".join(pieces[i + 1 : i + 10])):
            pieces[i] = "\\\\"
    return "".join(pieces)


def name_from_shown(text: str) -> str:
    """The name (as `os` takes it) that `shown_name` wrote as `text`.

    A backslash that starts no escape is kept as it is, so names a model writes
    by hand (`notes\\draft.txt`) mean what they say.
    """
    if "\\" not in text:
        return text
    return _ESCAPE.sub(_unescape, text)


def quoted(name: str) -> str:
    """`shown_name(name)` in single quotes, for messages."""
    return f"'{shown_name(name)}'"


def _shown_char(c: str) -> str:
    code = ord(c)
    if code in _BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if c.isprintable():
        return c
    if code < 0x80:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unescape(match: re.Match[str]) -> str:
    escape = match.group()
    if escape == "\\\\":
        return "\\"
    code = int(escape[2:], 16)
    if escape[1] == "x":
        return chr(code) if code < 0x80 else chr(0xDC00 + code)
    if code > 0x10FFFF:
        return escape
    return chr(code)


# A file being written goes to a temporary name beside it first, then is renamed over
# it; while a write is under way a listing must not show that name.
_WRITING = re.compile(r"\.tiller-[0-9a-f]{12}\.tmp")


def writing_name(token: str) -> str:
    """The temporary name a write uses (`token`: 12 hexadecimal digits)."""
    return f".tiller-{token}.tmp"


def is_writing_name(name: str) -> bool:
    """Whether `name` is a write under way (`writing_name`)."""
    return _WRITING.fullmatch(name) is not None
