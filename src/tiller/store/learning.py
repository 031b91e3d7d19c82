"""What the solver learns, kept per workspace: records of four kinds, newest read first.

An episodic trace of a solve, tool success statistics, worked examples, and root-cause
notes from failures; each a JSON payload appended under a workspace key (the solver's
choice, e.g. the workspace's resolved path). Later solves read the latest few of a kind
into their planning prompts. Records are only appended, never changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

import sqlalchemy as sa

from tiller.store.database import Database
from tiller.store.documents import JSONObject, checked
from tiller.store.errors import InvalidDocumentError
from tiller.store.tables import learning_records


class LearningKind(StrEnum):
    EPISODE = "episode"  # the episodic trace of a solve
    TOOL_STATS = "tool_stats"  # tool success statistics
    EXAMPLE = "example"  # a worked example for the example bank
    ROOT_CAUSE = "root_cause"  # a root-cause note from a failure


@dataclass(frozen=True, slots=True)
class LearningRecord:
    id: int
    workspace: str
    kind: LearningKind
    payload: JSONObject
    created_at: datetime


def _kind(kind: LearningKind | str) -> LearningKind:
    try:
        return LearningKind(kind)
    except ValueError:
        known = ", ".join(k.value for k in LearningKind)
        raise InvalidDocumentError(
            f"{kind!r} is not a kind of learning record; the kinds are {known}"
        ) from None


class Learning:
    """The learning records of one store (`store.learning`)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def append(
        self, workspace: str, kind: LearningKind | str, payload: JSONObject
    ) -> LearningRecord:
        """Add a record of `kind` for `workspace`."""
        kind = _kind(kind)
        checked(payload, f"the {kind.value} record")
        now = self._db.clock()
        async with self._db.write() as conn:
            record_id = await conn.scalar(
                learning_records.insert()
                .values(workspace=workspace, kind=kind.value, payload=payload, created_at=now)
                .returning(learning_records.c.id)
            )
        assert record_id is not None
        return LearningRecord(record_id, workspace, kind, payload, now)

    async def latest(
        self, workspace: str, kind: LearningKind | str, n: int = 10
    ) -> list[LearningRecord]:
        """The `n` newest records of `kind` for `workspace`, newest first."""
        kind = _kind(kind)
        query = (
            sa.select(learning_records)
            .where(learning_records.c.workspace == workspace, learning_records.c.kind == kind.value)
            .order_by(learning_records.c.id.desc())
            .limit(n)
        )
        async with self._db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [
            LearningRecord(
                row.id, row.workspace, LearningKind(row.kind), row.payload, row.created_at
            )
            for row in rows
        ]
