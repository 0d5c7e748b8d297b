"""Per-user request caps. In-process: each instance enforces its own share."""

from __future__ import annotations

import time
from collections import defaultdict, deque

from parley.errors import RateLimited


class RateLimiter:
    """A sliding one-minute window per user; 0 disables it."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def check(self, user_id: str) -> None:
        if self.per_minute <= 0:
            return
        now = time.monotonic()
        hits = self._hits[user_id]
        while hits and now - hits[0] > 60:
            hits.popleft()
        if len(hits) >= self.per_minute:
            retry = max(1, int(60 - (now - hits[0])) + 1)
            raise RateLimited(
                f"Too many requests: at most {self.per_minute} a minute", retry_after_seconds=retry
            )
        hits.append(now)
