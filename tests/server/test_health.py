"""`/health`, `/ready` and `/metrics` on a real server, on both databases."""

from __future__ import annotations

from tests.server.conftest import Users
from tests.server.live_server import LiveServer
from tiller.store import Store
from tiller.store.schema_version import downgrade


async def test_health_answers_while_the_process_is_up(server: LiveServer) -> None:
    answer = await server.client.get("/health")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}


async def test_ready_checks_the_database_its_schema_and_the_model(server: LiveServer) -> None:
    answer = await server.client.get("/ready")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "status": "ready",
        "checks": {"database": "ok", "schema": "ok", "model": "ok"},
    }


async def test_ready_says_not_ready_when_the_schema_is_not_current(server: LiveServer) -> None:
    store: Store = server.app.state.services.store
    async with store.database.write() as conn:
        await conn.run_sync(downgrade, "base")  # as if someone took the schema back
    answer = await server.client.get("/ready")
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "not ready"
    assert body["checks"]["database"] == "ok"
    assert "tiller db upgrade" in body["checks"]["schema"]


async def test_metrics_are_prometheus_text_counting_requests_by_route(users: Users) -> None:
    await users.admin.get("/health")
    await users.admin.get("/no/such/page")
    assert (await users.vic.get("/metrics")).status_code == 403  # a viewer may not
    answer = await users.admin.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    assert "# TYPE tiller_runs_total counter" in answer.text
    text = answer.text
    assert 'tiller_http_requests_total{method="GET",route="/health",status="200"} 1.0' in text
    assert 'tiller_http_requests_total{method="GET",route="unmatched",status="404"} 1.0' in text
    assert 'tiller_http_request_seconds_count{method="GET",route="/health"} 1.0' in text
