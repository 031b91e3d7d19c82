"""Learning records per workspace: appended by kind, the latest read first."""

from __future__ import annotations

import pytest

from tiller.store import InvalidDocumentError, LearningKind, Store


async def test_the_latest_records_of_a_kind_come_newest_first(store: Store) -> None:
    for n in range(5):
        await store.learning.append("/work/a", LearningKind.EPISODE, {"n": n})
    await store.learning.append("/work/a", "root_cause", {"why": "timeout"})
    await store.learning.append("/work/b", LearningKind.EPISODE, {"n": 99})
    latest = await store.learning.latest("/work/a", LearningKind.EPISODE, n=3)
    assert [r.payload["n"] for r in latest] == [4, 3, 2]
    assert {r.kind for r in latest} == {LearningKind.EPISODE}
    causes = await store.learning.latest("/work/a", "root_cause")
    assert [r.payload for r in causes] == [{"why": "timeout"}]
    assert await store.learning.latest("/work/c", LearningKind.EXAMPLE) == []


async def test_an_unknown_kind_is_refused(store: Store) -> None:
    with pytest.raises(InvalidDocumentError, match="'gossip' is not a kind"):
        await store.learning.append("/w", "gossip", {})
    with pytest.raises(InvalidDocumentError, match="episode, tool_stats, example, root_cause"):
        await store.learning.latest("/w", "gossip")
