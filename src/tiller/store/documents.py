"""JSON documents: what the store keeps in its JSON columns, checked before it writes."""

from __future__ import annotations

import json
from typing import Any

from tiller.store.errors import InvalidDocumentError

# A JSON object: a solve's state and options, an approval's context, a learning payload.
JSONObject = dict[str, Any]


def checked(value: Any, what: str, *, object_only: bool = True) -> Any:
    """`value` itself when it is a JSON document (an object, unless not `object_only`)."""
    if object_only and not isinstance(value, dict):
        raise InvalidDocumentError(f"{what} must be a JSON object (a dict), not {type(value)}")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidDocumentError(f"{what} cannot be stored as JSON: {exc}") from None
    return value
