"""Documents of sensitive sessions, encrypted at rest with Fernet.

A sealed document is stored as `{"sealed": TOKEN}`: the JSON of the document encrypted
and authenticated with a Fernet key (AES-128-CBC and HMAC-SHA256, from `cryptography`).
The keys come from the configuration, newest first: the first one seals, any of them
opens. Rotating a key is adding a new one in front, running `tiller db reseal` (which
seals every sealed document again with the new key) and then dropping the old one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from tiller.store.documents import json_text
from tiller.store.errors import StoreError

SEALED = "sealed"


class SealingError(StoreError):
    """A sealed document this store cannot open, or a key that is not a Fernet key."""


def is_sealed(document: Any) -> bool:
    return isinstance(document, dict) and set(document) == {SEALED}


class Sealer:
    """Seals and opens documents with the configured keys (none: only plain ones)."""

    def __init__(self, keys: Sequence[str] = ()) -> None:
        fernets = []
        for n, key in enumerate(keys, 1):
            try:
                fernets.append(Fernet(key))
            except (ValueError, TypeError):
                raise SealingError(
                    f"encryption key {n} is not a Fernet key (32 url-safe base64-encoded "
                    'bytes); make one with: python -c "from cryptography.fernet import '
                    'Fernet; print(Fernet.generate_key().decode())"'
                ) from None
        self._keys = MultiFernet(fernets) if fernets else None

    @property
    def can_seal(self) -> bool:
        return self._keys is not None

    def seal(self, document: Any) -> dict[str, str]:
        if self._keys is None:
            raise SealingError(
                "this store has no encryption key, so it cannot keep a sensitive session's "
                "data; set one (TILLER_ENCRYPTION_KEYS)"
            )
        return {SEALED: self._keys.encrypt(json_text(document).encode()).decode()}

    def open(self, document: Any) -> Any:
        """The document itself, opened if it is sealed."""
        if not is_sealed(document):
            return document
        if self._keys is None:
            raise SealingError("a sealed document needs the encryption key it was sealed with")
        try:
            return json.loads(self._keys.decrypt(document[SEALED].encode()))
        except InvalidToken:
            raise SealingError(
                "a sealed document opens with none of the configured keys (was its key "
                "dropped before `tiller db reseal`?)"
            ) from None

    def reseal(self, document: Any) -> Any:
        """A sealed document sealed again with the first key; a plain one as it is."""
        if not is_sealed(document) or self._keys is None:
            return document
        try:
            return {SEALED: self._keys.rotate(document[SEALED].encode()).decode()}
        except InvalidToken:
            raise SealingError("a sealed document opens with none of the configured keys") from None
