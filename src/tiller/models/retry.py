"""When and how long to wait before trying a failed model call again.

Rate-limited, overloaded and network errors are retried with exponential
backoff and full jitter; a provider's `retry-after` (on a 429, or on a 503/529
overload) is honoured up to a cap.
Context overflow is handled by the loop (compact, then one retry); auth and
other API errors are never retried.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tiller.errors import ModelError, OverloadedError, RateLimitError


@dataclass(slots=True, frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    retry_after_cap_s: float = 60.0

    def should_retry(self, error: BaseException, retries_so_far: int) -> bool:
        return (
            isinstance(error, ModelError) and error.retryable and retries_so_far < self.max_retries
        )

    def delay_s(self, error: BaseException, attempt: int) -> float:
        """Seconds to wait before retry number `attempt` (1-based)."""
        if isinstance(error, RateLimitError | OverloadedError) and error.retry_after is not None:
            return max(0.0, min(error.retry_after, self.retry_after_cap_s))
        ceiling = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


NO_RETRY = RetryPolicy(max_retries=0)
