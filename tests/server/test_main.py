"""`run_server` sets the process up for serving before uvicorn takes over."""

from __future__ import annotations

import gc
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn

from tests.server import models
from tiller.server import logs, main
from tiller.server.main import COLLECTOR_THRESHOLDS, run_server
from tiller.server.settings import ServerSettings


@pytest.fixture
def collector() -> Iterator[None]:
    """The test process's collector, as it was, afterwards."""
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("collector")
def test_the_server_freezes_what_it_set_up_and_collects_rarely_while_it_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, tuple[int, ...] | int] = {}

    def serve(server: uvicorn.Server) -> None:
        seen["thresholds"], seen["frozen"] = gc.get_threshold(), gc.get_freeze_count()
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", serve)
    restores: list[Callable[[], None]] = []

    def configure_logging(level: str) -> Callable[[], None]:
        restores.append(logs.configure_logging(level))
        return restores[-1]

    monkeypatch.setattr(main, "configure_logging", configure_logging)
    models.register()
    settings = ServerSettings(
        database=f"sqlite:///{tmp_path / 'tiller.db'}", data_dir=tmp_path, model="svc:echo"
    )
    try:
        assert run_server(settings, io.StringIO()) == 0
    finally:
        for restore in restores:  # the process's loggers, as later tests expect them
            restore()
    assert seen["thresholds"] == COLLECTOR_THRESHOLDS
    assert seen["frozen"] != 0  # objects frozen
