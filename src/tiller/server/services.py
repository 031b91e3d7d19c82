"""What the routes share: `Services`, one per app, on `app.state.services`."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from tiller.models.base import Model
from tiller.server.metrics import Metrics
from tiller.server.settings import ServerSettings
from tiller.store import Store


@dataclass(slots=True)
class Services:
    settings: ServerSettings
    store: Store
    model: Model  # the default model
    metrics: Metrics


def services(request: Request) -> Services:
    """A route's dependency: the app's services."""
    found: Services = request.app.state.services
    return found
