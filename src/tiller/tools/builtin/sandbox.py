"""`Sandbox`: where `shell` commands run: bubblewrap, the workspace the only writable place.

A sandboxed command sees:

- the workspace, read-write, at its real path (also its working directory and `$HOME`);
- `/usr` (with `/bin`, `/sbin`, `/lib*`) and `/etc` read-only, minus the files and
  directories of `/etc` that not every user of the machine may read (`/etc/shadow`,
  private keys and the like are replaced by empty ones), plus any `read_only` paths you add;
- a fresh `/proc` (its own processes only), a minimal `/dev`, an empty `/tmp`;
- nothing else of the host: no home directories, `/var`, `/run`, `/srv`, `/mnt`, `/opt`.

It runs in new namespaces (mount, PID, IPC, UTS, cgroup, user where possible, and network
unless `network=True`: without it only a private loopback exists), with no capabilities,
in its own terminal session. The command is not PID 1: bubblewrap's init is, and when
the command exits, is killed, or Tiller dies, the namespace and everything started in it
(background jobs, `setsid`, double forks) is killed by the kernel.

Bubblewrap is Debian's `bubblewrap` package (`bwrap`). It needs user namespaces when not
run as root; containers often forbid them, and then the sandbox cannot start.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field

from tiller.errors import ConfigError

# Host paths every command may read: programs, libraries, configuration.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# Where not every user may read, the sandbox shows an empty file or directory instead.
FILTERED_PATH = "/etc"


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How `shell` confines its commands (see the module's description).

    `network` lets commands reach the network (the host's interfaces); `read_only`
    adds host paths they may read, e.g. a toolchain in `/opt`; `program` is the
    bubblewrap executable (found on `PATH` by default).
    """

    network: bool = False
    read_only: Sequence[str] = field(default=())
    program: str | None = None

    def executable(self) -> str:
        """The bubblewrap program, or a `ConfigError` saying how to get one or opt out."""
        found = shutil.which(self.program or "bwrap")
        if found is None:
            raise ConfigError(
                f"the shell tool runs commands in a bubblewrap sandbox, but "
                f"{self.program or 'bwrap'!r} was not found. Install it (Debian/Ubuntu: "
                "apt-get install bubblewrap), or opt in to an unsandboxed shell "
                "(ShellTool(..., sandbox=False)): commands then run as you, with all your "
                "files, processes and network within reach."
            )
        for path in self.read_only:
            if not os.path.isabs(path) or not os.path.exists(path):
                raise ConfigError(
                    f"sandbox read_only path {path!r} is not an existing absolute path"
                )
        return found

    def arguments(self, workspace: str) -> list[str]:
        """bubblewrap's options (without the program and the command) for `workspace`."""
        args = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if self.network:
            args.append("--share-net")
        for path in SYSTEM_PATHS:
            if os.path.islink(path):  # /bin -> usr/bin on merged-/usr systems
                args += ["--symlink", os.readlink(path), path]
            elif os.path.exists(path):
                args += ["--ro-bind", path, path]
        for path in _unreadable_to_others(FILTERED_PATH):
            if path.endswith("/"):
                args += ["--tmpfs", path.rstrip("/"), "--remount-ro", path.rstrip("/")]
            else:
                args += ["--ro-bind", "/dev/null", path]
        if self.network:
            resolv = os.path.realpath("/etc/resolv.conf")  # often a link into /run
            if not resolv.startswith("/etc/"):
                args += ["--ro-bind-try", resolv, resolv]
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp"]
        for path in self.read_only:  # after /tmp's tmpfs, which would hide them
            args += ["--ro-bind", os.path.realpath(path), path]
        args += ["--bind", workspace, workspace, "--chdir", workspace]
        return args

    def command(self, argv: Sequence[str], workspace: str) -> list[str]:
        """`argv` run inside the sandbox, as a command line to start bubblewrap with."""
        return [self.executable(), *self.arguments(workspace), "--", *argv]


@functools.cache
def _unreadable_to_others(top: str) -> tuple[str, ...]:
    """Files (and directories, with a trailing '/') under `top` that not every user may read.

    Read once per process: `/etc` rarely changes while an agent runs.
    """
    hidden: list[str] = []
    for directory, subdirectories, files in os.walk(top, onerror=lambda _: None):
        kept = []
        for name in subdirectories:
            path = os.path.join(directory, name)
            mode = _mode(path)
            if mode is None or stat.S_ISLNK(mode):
                continue
            if mode & 0o005 != 0o005:  # others may not list it or enter it
                hidden.append(path + "/")
            else:
                kept.append(name)
        subdirectories[:] = kept
        for name in files:
            path = os.path.join(directory, name)
            mode = _mode(path)
            if mode is not None and stat.S_ISREG(mode) and not mode & 0o004:
                hidden.append(path)
    return tuple(hidden)


def _mode(path: str) -> int | None:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None
