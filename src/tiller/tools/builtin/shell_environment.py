"""The environment a `shell` command gets: the user's, minus secrets, plus a few quiet defaults.

A variable is dropped when its name looks like it holds a credential:
`*_API_KEY`, `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, `*CREDENTIALS*`,
`*ACCESS_KEY*`, `*PRIVATE_KEY*`, `*_AUTH*` and the like (case-insensitive).
The model sees what commands print, so what is not there cannot leak.
"""

from __future__ import annotations

from collections.abc import Mapping

RUN_MARKER = "TILLER_SHELL_RUN"  # tags each command's processes so stragglers can be found

_SECRET_PARTS = frozenset(
    {
        "TOKEN",
        "TOKENS",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "CREDENTIALS",
        "APIKEY",
        "AUTH",
        "PAT",
        "KEY",
        "KEYS",
    }
)
_SECRET_PHRASES = ("API_KEY", "ACCESS_KEY", "PRIVATE_KEY", "PASSWORD", "SECRET", "CREDENTIAL")

# Programs that would wait for a terminal or a person get told not to.
_QUIET_DEFAULTS = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "DEBIAN_FRONTEND": "noninteractive",
    "PYTHONUNBUFFERED": "1",
}


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    if any(phrase in upper for phrase in _SECRET_PHRASES):
        return True
    return any(part in _SECRET_PARTS for part in upper.split("_"))


def scrubbed_environment(
    environ: Mapping[str, str], extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """`environ` without secrets, with quiet defaults, then `extra` (set by the user, kept)."""
    env = {k: v for k, v in environ.items() if not is_secret_name(k)}
    env.update(_QUIET_DEFAULTS)
    env.pop(RUN_MARKER, None)
    if extra:
        env.update(extra)
    return env
