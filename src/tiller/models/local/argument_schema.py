"""The JSON schema a small model's tool arguments are generated under.

llama.cpp turns a JSON schema into a grammar, so arguments always parse and
match the tool's schema. On top of the tool's own schema we narrow free-text
strings, because greedy decoding with a 135M model otherwise
- closes an empty string at once, or never closes one (so strings get bounds);
- "closes the JSON" inside a string, `17 * 23 }` (so no braces, quotes or line breaks);
- invents values: `file.txt` for "version.txt", `17 * 275` for "350 and 275".

So a free string is built from the words of the user's request, joined by
spaces or arithmetic operators ("add 350 and 275" can still become
`350 + 275`), and a parameter named like a file path takes one of the
request's path-like words whole. Strings the schema already constrains (enum,
pattern, format) are left to the schema.
"""

from __future__ import annotations

import re
from typing import Any

MAX_STRING = 200  # characters, for string arguments whose schema sets no maxLength
PLAIN_STRING_PATTERN = '^[^{}\\n"\\\\]{%d,%d}$'  # no braces, line breaks, quotes or backslashes
MAX_WORDS = 16  # words of the request in one copied string

_NOT_FOR_GRAMMAR = frozenset({"title", "description", "examples"})
_NAME_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_PATH_NAMES = re.compile(r"(^|_)(path|file|filename|filepath|dir|directory|folder)s?$", re.I)
_PATH_LIKE = re.compile(r"\w[./\\]\w|^[./~]")
_OUTER_PUNCTUATION = "\"'“”‘’`«»()[]{}<>,;:!?."
_UNUSABLE = re.compile(r'["\\{}^$\x00-\x1f]')
# Between copied words: a space, ", ", or an arithmetic operator with or without spaces.
_SEPARATOR = "( |, | [-+*/] |[-+*/])"


def argument_schema(schema: Any, request_text: str) -> Any:
    """`schema` for llama.cpp's grammar converter, strings narrowed as the module says."""
    words = request_words(request_text)
    # A value copied from the request is no longer than the request: this also stops
    # greedy decoding from repeating one word ("Goodbye, Goodbye, ...").
    most = min(MAX_WORDS, len(request_text.split()))
    return _rewrite(schema, words, None, most)


def request_words(text: str) -> list[str]:
    """The request's words as a value could use them: split on white space, outer
    punctuation removed ("notes.txt:" -> "notes.txt"), in order, without repeats."""
    words: dict[str, None] = {}
    for raw in text.split():
        word = raw.strip(_OUTER_PUNCTUATION)
        if word and not _UNUSABLE.search(word):
            words[word] = None
    return list(words)


def copy_pattern(words: list[str], parameter: str | None, most: int = MAX_WORDS) -> str | None:
    """A pattern (llama.cpp's regex subset) for strings of up to `most` of `words`, or None."""
    if not words or most < 1:
        return None
    if parameter and _PATH_NAMES.search(parameter):
        paths = [w for w in words if _PATH_LIKE.search(w)]
        if paths:
            return f"^({'|'.join(_literal(w) for w in paths)})$"
    word = f"({'|'.join(_literal(w) for w in words)})"
    if most == 1:
        return f"^{word}$"
    return f"^{word}({_SEPARATOR}{word}){{0,{most - 1}}}$"


def _literal(word: str) -> str:
    # llama.cpp's converter reads `\` + one of []()|{}*+? as that character; a dot is
    # written as a class because `\.` is not an escape its grammar parser knows.
    out = []
    for char in word:
        if char == ".":
            out.append("[.]")
        elif char in "[]()|{}*+?":
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def _rewrite(value: Any, words: list[str], name: str | None, most: int) -> Any:
    """Keys are dropped only where they are schema keywords, never as property names."""
    if isinstance(value, list):
        return [_rewrite(v, words, None, most) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    if value.get("type") == "string" and "enum" not in value:
        out["minLength"] = value.get("minLength", 1)
        out["maxLength"] = value.get("maxLength", MAX_STRING)
        if "pattern" not in value and "format" not in value:
            # llama.cpp reads the length bounds from the pattern when there is one, so
            # words are copied only when the schema sets no bounds of its own.
            bounded = "minLength" in value or "maxLength" in value
            copied = None if bounded else copy_pattern(words, name, most)
            out["pattern"] = copied or PLAIN_STRING_PATTERN % (out["minLength"], out["maxLength"])
    for key, item in value.items():
        if key in _NOT_FOR_GRAMMAR:
            continue
        if key in _NAME_MAPS and isinstance(item, dict):
            out[key] = {prop: _rewrite(sub, words, prop, most) for prop, sub in item.items()}
        else:
            out[key] = _rewrite(item, words, None, most)
    return out
