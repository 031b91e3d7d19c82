"""`tiller audit verify` on a real database file."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.cli.cli_process import tiller
from tiller.store import Store
from tiller.store.tables import audit_log


async def _trail(data: Path, *, tamper: bool) -> None:
    async with await Store.open(data_dir=data) as store:
        for n in range(3):
            await store.audit.append("admin", "user.created", f"u{n}", {})
        if tamper:
            async with store.database.write() as conn:
                await conn.execute(
                    audit_log.update().where(audit_log.c.seq == 2).values(target="someone")
                )


def test_an_intact_trail_exits_0_and_a_changed_one_names_the_record(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    asyncio.run(_trail(good, tamper=False))
    asyncio.run(_trail(bad, tamper=True))
    ok = tiller("audit", "verify", "--data-dir", str(good), cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert "holds: 3 record(s)" in ok.stdout
    broken = tiller("audit", "verify", "--database", f"sqlite:///{bad / 'tiller.db'}", cwd=tmp_path)
    assert broken.returncode == 1
    assert "broken at record 2: record 2 was changed" in broken.stderr
    missing = tiller("audit", "verify", "--database", "mysql://x/y", cwd=tmp_path)
    assert missing.returncode == 2
