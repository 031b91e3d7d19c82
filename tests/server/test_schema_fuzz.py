"""Schemathesis against the OpenAPI schema of a real server: thousands of generated
requests, valid and not, and not one server error."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.server_process import ServerProcess
from tiller.store.api_keys import new_key_text

KEY = new_key_text()


@pytest.fixture
def server(url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(url, tmp_path / "data", {"TILLER_ADMIN_KEY": KEY})
    try:
        process.start()
        yield process
    finally:
        process.stop()


def test_no_generated_request_gets_a_server_error(server: ServerProcess, tmp_path: Path) -> None:
    schemathesis = Path(sys.executable).parent / "schemathesis"
    done = subprocess.run(
        [
            str(schemathesis),
            "run",
            f"{server.url}/openapi.json",
            "--header",
            f"Authorization: Bearer {KEY}",
            "--checks",
            "not_a_server_error",
            "--max-examples",
            "10",
            "--generation-deterministic",
        ],
        cwd=tmp_path,  # where schemathesis keeps its cache
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = done.stdout[-3000:]
    assert done.returncode == 0, tail + server.log.read_text()[-3000:]
    assert " passed" in tail
