"""API keys and tokens never reach the logs or an error's body, whatever the request."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.server.server_process import ServerProcess
from tiller.store.api_keys import new_key_text


def test_no_key_is_ever_logged_or_echoed(url: str, tmp_path: Path) -> None:
    admin_key = new_key_text()
    env = {"TILLER_ADMIN_KEY": admin_key, "TILLER_LOG_LEVEL": "debug"}
    server = ServerProcess(url, tmp_path / "data", env)
    wrong = new_key_text()
    token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2lnbmF0dXJl"
    bodies: list[str] = []
    try:
        server.start()
        with httpx.Client(base_url=server.url, timeout=30) as api:
            for credential in (admin_key, wrong, token, "tlr_short"):
                headers = {"Authorization": f"Bearer {credential}"}
                for path in ("/me", "/sessions/nope", f"/sessions?title={credential}"):
                    bodies.append(api.get(path, headers=headers).text)
                bodies.append(
                    api.post("/sessions", headers=headers, json={"title": 5, "k": credential}).text
                )
            bodies.append(api.get(f"/me?access_token={admin_key}").text)
    finally:
        server.stop()
    logs = server.log.read_text()
    assert '"level": "debug"' in logs or '"level": "info"' in logs  # it did log
    secret_part = admin_key[len("tlr_") + 13 :]  # after "tlr_PREFIX_" (it may hold "_")
    assert len(secret_part) == 43
    for secret in (admin_key, wrong, token, secret_part):
        where = logs.find(secret)
        assert where < 0, logs[max(where - 1500, 0) : where + 200]
        assert not any(secret in body for body in bodies)
