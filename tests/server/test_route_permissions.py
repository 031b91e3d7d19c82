"""Every route × every role: a role without the route's permission gets 403, one with it
never does; no route but the public ones answers without a key."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator
from typing import Any

import httpx
from fastapi.routing import APIRoute

from tests.server.conftest import Users
from tiller.server.permissions import GRANTS, Permission, Role

PUBLIC = {"/health", "/ready"}


def route_permission(route: APIRoute) -> Permission | None:
    """The permission a route's dependencies demand (None: public or any signed-in user)."""
    pending = list(route.dependant.dependencies)
    while pending:
        dependency = pending.pop()
        found = getattr(dependency.call, "permission", None)
        if isinstance(found, Permission):
            return found
        pending.extend(dependency.dependencies)
    return None


def api_routes(routes: Iterable[Any]) -> Iterator[APIRoute]:
    """The app's API routes, also those of the routers it included."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # an included router
        if included is not None:
            yield from api_routes(included.routes)


def concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "0" * 32, path)


async def test_every_route_answers_each_role_as_the_matrix_says(users: Users) -> None:
    app = users.live.app
    routes = list(api_routes(app.routes))
    assert len(routes) >= 25
    clients = {
        Role.ADMIN: users.admin,
        Role.OPERATOR: users.ola,
        Role.DEVELOPER: users.ann,
        Role.VIEWER: users.vic,
    }
    checked = 0
    async with httpx.AsyncClient(base_url=users.live.base_url) as anonymous:
        for route in routes:
            permission = route_permission(route)
            for method in sorted((route.methods or set()) - {"HEAD"}):
                url = concrete(route.path)
                body: dict[str, Any] = {}
                unsigned = await anonymous.request(method, url, json=body)
                if route.path in PUBLIC:
                    assert unsigned.status_code == 200, route.path
                    continue
                assert unsigned.status_code == 401, (method, route.path)
                for role, client in clients.items():
                    answer = await client.request(method, url, json=body)
                    allowed = permission is None or permission in GRANTS[role]
                    where = (method, route.path, role.value, answer.status_code, answer.text[:200])
                    if allowed:
                        assert answer.status_code not in (401, 403), where
                        assert answer.status_code < 500, where
                    else:
                        assert answer.status_code == 403, where
                    checked += 1
    assert checked >= 4 * 25


async def test_no_route_or_dependency_runs_in_a_worker_thread(users: Users) -> None:
    """FastAPI runs a plain function (route or dependency) in a worker thread: a trip
    to another thread for every request, for work that never blocks."""
    blocking: list[str] = []
    for route in api_routes(users.live.app.routes):
        pending = [route.dependant]
        while pending:
            dependant = pending.pop()
            call = dependant.call
            if call is not None and not (
                inspect.iscoroutinefunction(call) or inspect.isasyncgenfunction(call)
            ):
                blocking.append(f"{route.path}: {getattr(call, '__qualname__', call)}")
            pending.extend(dependant.dependencies)
    assert blocking == []
