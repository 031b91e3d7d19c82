import http.client
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.servers.live import LiveServer


async def echo(request: Request) -> PlainTextResponse:
    return PlainTextResponse((await request.body()).decode().upper())


def test_serves_on_a_real_socket_and_stops() -> None:
    with LiveServer(Starlette(routes=[Route("/echo", echo, methods=["POST"])])) as server:
        host = urlsplit(server.url)
        conn = http.client.HTTPConnection(host.hostname or "", host.port)
        conn.request("POST", "/echo", body=b"hello")
        assert conn.getresponse().read() == b"HELLO"
        conn.close()
    assert not server._thread.is_alive()
