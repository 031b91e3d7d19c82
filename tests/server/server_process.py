"""`tiller serve` as a separate process, with the test models registered (or what another
setup function registers), that a test can kill -9 and start again on the same database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]

SERVE = """
import importlib, sys
sys.path.insert(0, {root!r})
module, function = {setup!r}.split(":")
getattr(importlib.import_module(module), function)()
sys.argv[0] = "tiller"
from tiller.cli import main
main()
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    def __init__(
        self,
        database: str,
        data_dir: Path,
        env: dict[str, str],
        setup: str = "tests.server.models:register",
    ) -> None:
        """`setup` ("module:function") is called in the new process before it serves."""
        self.database = database
        self.setup = setup
        self.data_dir = data_dir
        self.env = env
        self.port = free_port()
        self.process: subprocess.Popen[str] | None = None
        self.log = data_dir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        code = SERVE.format(root=str(ROOT), setup=self.setup)
        command = [sys.executable, "-c", code, "serve", "--port", str(self.port)]
        command += ["--database", self.database, "--data-dir", str(self.data_dir)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("TILLER_")}
        self.process = subprocess.Popen(
            command,
            env={**env, **self.env},
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("a"),
            text=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.log.read_text()[-3000:]}")
            try:
                httpx.get(f"{self.url}/health", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("the server did not start in 60 s")

    def terminate(self) -> float:
        """SIGTERM, then wait for the process to exit; the seconds it took."""
        assert self.process is not None
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=120)
        return time.monotonic() - started

    def kill(self) -> None:
        """kill -9: no shutdown, no flush."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
