"""The service on a real socket, in the test's event loop: uvicorn serving `create_app`
on 127.0.0.1 at a free port, and an httpx client talking HTTP to it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import uvicorn
from fastapi import FastAPI

from tiller.server.app import create_app
from tiller.server.settings import ServerSettings


@dataclass
class LiveServer:
    settings: ServerSettings
    app: FastAPI
    base_url: str
    client: httpx.AsyncClient


@asynccontextmanager
async def live_server(
    settings: ServerSettings, app: FastAPI | None = None
) -> AsyncIterator[LiveServer]:
    """Serve `app` (by default `create_app(settings)`) until the block ends."""
    # IPPROTO_TCP said outright: asyncio sets TCP_NODELAY on accepted connections only
    # for a socket that says it is TCP, and without it each streamed event waits for
    # the client's delayed acknowledgement (about 40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = app or create_app(settings)
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            if task.done():
                task.result()  # startup failed: raise its error
                raise RuntimeError("the server stopped before it started")
            await asyncio.sleep(0.01)
        base_url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
            yield LiveServer(settings, app, base_url, client)
    finally:
        server.should_exit = True
        await task
        sock.close()
