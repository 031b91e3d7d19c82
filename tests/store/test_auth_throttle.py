"""Failed authentication is slowed, then blocked; success clears it."""

from __future__ import annotations

from tiller.store import Store
from tiller.store.auth_throttle import AuthThrottle, ThrottleRules


async def test_failures_slow_then_block_a_source(store: Store) -> None:
    rules = ThrottleRules(slow_after=2, first_delay_s=1, max_delay_s=4, block_after=6, block_s=900)
    throttle = AuthThrottle(store.database, rules)
    waits = [(await throttle.failed("key:abc")).wait_s for _ in range(6)]
    assert waits == [0, 0, 1, 2, 4, 900]
    verdict = await throttle.check("key:abc")
    assert verdict.blocked
    assert 899 < verdict.wait_s <= 900
    assert not (await throttle.check("ip:10.0.0.1")).blocked  # another source
    await throttle.succeeded("key:abc")
    assert (await throttle.check("key:abc")).failures == 0


async def test_several_sources_are_checked_in_one_call(store: Store) -> None:
    throttle = store.auth_throttle
    for _ in range(throttle.rules.block_after):
        await throttle.failed("key:abc")
    blocked, other = await throttle.check_all(["key:abc", "address:10.0.0.1"])
    assert blocked.blocked
    assert blocked.failures == throttle.rules.block_after
    assert (other.failures, other.blocked) == (0, False)
