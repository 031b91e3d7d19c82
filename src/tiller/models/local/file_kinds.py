"""Kinds of file a request names by their format, as the glob that lists them.

"list the markdown files" asks for `*.md`, "any python files under src?" for `*.py`,
and "the .csv files" for `*.csv`: a parameter that takes a glob ("Glob: '*.py' matches
names at any depth") is given one only when the request names such a kind, and a small
model copying words would otherwise write "markdown" or nothing at all.
"""

from __future__ import annotations

import re
from typing import Any

# A format's name and the extension its files carry.
_EXTENSIONS = {
    "markdown": "md",
    "python": "py",
    "javascript": "js",
    "typescript": "ts",
    "json": "json",
    "yaml": "yaml",
    "yml": "yml",
    "toml": "toml",
    "csv": "csv",
    "text": "txt",
    "txt": "txt",
    "shell": "sh",
    "bash": "sh",
    "html": "html",
    "css": "css",
    "rust": "rs",
    "java": "java",
    "ruby": "rb",
    "php": "php",
    "sql": "sql",
    "log": "log",
    "xml": "xml",
    "ini": "ini",
    "md": "md",
    "py": "py",
    "js": "js",
    "ts": "ts",
    "sh": "sh",
    "rs": "rs",
    "rb": "rb",
}
# A kind of file named before "files": "markdown files", "the .csv files", "python scripts".
_A_KIND_OF_FILE = re.compile(r"(?<![\w./*-])\.?([a-z]{2,10})\s+(?:files|scripts|sources)\b", re.I)
# A glob a description gives as its example: "'*.py' matches ...".
_GLOB_EXAMPLE = re.compile(r"\*\.[a-z]+")


def takes_a_glob(schema: dict[str, Any]) -> bool:
    """Whether a parameter's description says it takes a glob."""
    description = str(schema.get("description", ""))
    return "glob" in description.lower() or _GLOB_EXAMPLE.search(description) is not None


def globs_named(request_text: str) -> list[str]:
    """The globs of the kinds of file the request names: "list the markdown files" ->
    ["*.md"]."""
    found = [
        f"*.{_EXTENSIONS[kind[1].lower()]}"
        for kind in _A_KIND_OF_FILE.finditer(request_text)
        if kind[1].lower() in _EXTENSIONS
    ]
    return list(dict.fromkeys(found))
