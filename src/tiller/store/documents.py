"""JSON documents: what the store keeps in its JSON columns, checked before it writes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tiller.store.errors import InvalidDocumentError

# A JSON object: a solve's state and options, an approval's context, a learning payload.
JSONObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class EncodedJSON:
    """A JSON document already encoded (`json_text`'s form): stored as it is, so a
    document also sent elsewhere as text is encoded once."""

    text: str


# A JSON object to store: as data, or already encoded.
Document = JSONObject | EncodedJSON


def json_text(value: Any) -> str:
    """The text the store keeps for a JSON document."""
    if isinstance(value, EncodedJSON):
        return value.text
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def checked(value: Any, what: str, *, object_only: bool = True) -> Any:
    """`value` itself when it is a JSON document (an object, unless not `object_only`)."""
    if object_only and not isinstance(value, dict):
        raise InvalidDocumentError(f"{what} must be a JSON object (a dict), not {type(value)}")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidDocumentError(f"{what} cannot be stored as JSON: {exc}") from None
    return value
