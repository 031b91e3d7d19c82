"""The environment a `shell` command gets: a few named variables, never the whole of yours.

Only these come from your environment: `PATH`, `LANG`, `LANGUAGE`, the `LC_*` locale
variables, `TERM` and `TZ`, plus the names you allow (`env_allow`). `HOME` is the
workspace. Programs that would wait for a terminal or a person are told not to
(`PAGER=cat`, `GIT_TERMINAL_PROMPT=0`, ...). Values you give (`env`) come last and win.
Everything else — API keys, database URLs, webhook addresses, proxy credentials,
whatever their names — stays out: the model sees what commands print, and what is
not there cannot leak.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

RUN_MARKER = "TILLER_SHELL_RUN"  # tags each command's processes so stragglers can be found

ALLOWED_NAMES = frozenset({"PATH", "LANG", "LANGUAGE", "TERM", "TZ"})
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Programs that would wait for a terminal or a person get told not to.
_QUIET_DEFAULTS = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "DEBIAN_FRONTEND": "noninteractive",
    "PYTHONUNBUFFERED": "1",
}


def is_allowed_name(name: str) -> bool:
    """Whether `name` is passed on without being asked for (locale, terminal, `PATH`)."""
    return name in ALLOWED_NAMES or name.startswith("LC_")


def shell_environment(
    environ: Mapping[str, str],
    *,
    home: str,
    allow: Iterable[str] = (),
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The allow-listed part of `environ`, `HOME=home`, quiet defaults, `allow`'s names, `extra`.

    Names in `allow` that `environ` lacks are left unset.
    """
    env = {k: v for k, v in environ.items() if is_allowed_name(k)}
    env.setdefault("PATH", DEFAULT_PATH)
    env["HOME"] = home
    env.update(_QUIET_DEFAULTS)
    env.update({name: environ[name] for name in allow if name in environ})
    if extra:
        env.update(extra)
    env.pop(RUN_MARKER, None)
    return env
