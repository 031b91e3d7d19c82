"""The JSON schema a small model's tool arguments are generated under.

llama.cpp turns a JSON schema into a grammar, so arguments always parse and
match the tool's schema. On top of the tool's own schema we narrow free-text
strings, because greedy decoding with a 135M model otherwise
- closes an empty string at once, or never closes one (so strings get bounds);
- "closes the JSON" inside a string, `17 * 23 }` (so no braces, quotes or line breaks);
- invents values: `file.txt` for "version.txt", `17 * 275` for "350 and 275".

So a free string is built from the words of the user's request, joined by
spaces or arithmetic operators: any of them in the request's order, each
occurrence once (a copied passage stays the passage, and greedy decoding cannot
loop: "7.5, 2400, 7.5, 2400, ..."), or up to three in any order ("add 350 and
275" can still become `275 + 350`). A parameter named like a file path takes
one of the request's path-like words whole. Strings the schema already constrains (enum,
pattern, format) are left to the schema.
"""

from __future__ import annotations

import re
from typing import Any

MAX_STRING = 200  # characters, for string arguments whose schema sets no maxLength
PLAIN_STRING_PATTERN = '^[^{}\\n"\\\\]{%d,%d}$'  # no braces, line breaks, quotes or backslashes
SHORT_ANY_ORDER = 3  # words a value may take from the request in any order
MAX_WORDS = 32  # request words a string may copy (the pattern grows with their square)

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
    return _rewrite(schema, request_words(request_text), None)


def request_words(text: str) -> list[str]:
    """The request's words as a value could use them: split on white space, outer
    punctuation removed ("notes.txt:" -> "notes.txt"), in order, repeats kept."""
    words = (raw.strip(_OUTER_PUNCTUATION) for raw in text.split())
    return [word for word in words if word and not _UNUSABLE.search(word)][:MAX_WORDS]


def copy_pattern(words: list[str], parameter: str | None) -> str | None:
    """A pattern (llama.cpp's regex subset) for strings copied from `words`, or None.

    The in-order branch is written out once per first word, O(n²) in size, as the
    regex subset has no back-references or rules."""
    if not words:
        return None
    if parameter and _PATH_NAMES.search(parameter):
        paths = list(dict.fromkeys(w for w in words if _PATH_LIKE.search(w)))
        if paths:
            return f"^({'|'.join(_literal(w) for w in paths)})$"
    literals = [_literal(w) for w in words]
    branches = dict.fromkeys(
        first + "".join(f"({_SEPARATOR}{later})?" for later in literals[i + 1 :])
        for i, first in enumerate(literals)
    )
    shuffled = min(SHORT_ANY_ORDER, len(words))  # no longer than the request
    if shuffled > 1:
        word = f"({'|'.join(dict.fromkeys(literals))})"
        branches[f"{word}({_SEPARATOR}{word}){{1,{shuffled - 1}}}"] = None
    return f"^({'|'.join(branches)})$"


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


def _rewrite(value: Any, words: list[str], name: str | None) -> Any:
    """Keys are dropped only where they are schema keywords, never as property names."""
    if isinstance(value, list):
        return [_rewrite(v, words, None) for v in value]
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
            copied = None if bounded else copy_pattern(words, name)
            out["pattern"] = copied or PLAIN_STRING_PATTERN % (out["minLength"], out["maxLength"])
    for key, item in value.items():
        if key in _NOT_FOR_GRAMMAR:
            continue
        if key in _NAME_MAPS and isinstance(item, dict):
            out[key] = {prop: _rewrite(sub, words, prop) for prop, sub in item.items()}
        else:
            out[key] = _rewrite(item, words, None)
    return out
