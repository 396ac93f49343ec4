"""Per (channel, user) conversation context with a TTL and a size bound, and a
per-user cooldown. Both take an injectable clock so tests need no sleeping."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable

from bot.core.types import Context

__all__ = ["ContextStore", "Cooldown"]

Key = tuple[int, int]  # (channel_id, user_id)


class ContextStore:
    """Remembers ``Answer.context`` for follow-ups ("what about under $500?").

    Entries expire ``ttl`` seconds after they were last written; at most
    ``max_size`` entries are kept (least recently used are dropped first).
    """

    def __init__(
        self, *, ttl: float = 900.0, max_size: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.max_size = max_size
        self._clock = clock
        self._data: OrderedDict[Key, tuple[float, Context]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, channel_id: int, user_id: int) -> Context | None:
        key = (channel_id, user_id)
        entry = self._data.get(key)
        if entry is None:
            return None
        stored_at, context = entry
        if self._clock() - stored_at > self.ttl:
            del self._data[key]
            return None
        self._data.move_to_end(key)
        return context

    def put(self, channel_id: int, user_id: int, context: Context) -> None:
        key = (channel_id, user_id)
        self._data[key] = (self._clock(), context)
        self._data.move_to_end(key)
        while len(self._data) > self.max_size:
            self._data.popitem(last=False)
        self._prune()

    def _prune(self) -> None:
        now = self._clock()
        # Oldest first: stop at the first live entry.
        while self._data:
            key, (stored_at, _) = next(iter(self._data.items()))
            if now - stored_at <= self.ttl:
                break
            del self._data[key]


class Cooldown:
    """At most ``rate`` questions per ``per`` seconds per user (sliding window).

    ``rate == 0`` turns it off.
    """

    def __init__(
        self,
        rate: int,
        per: float = 10.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_users: int = 50_000,
    ) -> None:
        self.rate = rate
        self.per = per
        self._clock = clock
        self._max_users = max_users
        self._hits: OrderedDict[int, deque[float]] = OrderedDict()

    def retry_after(self, user_id: int) -> float:
        """Record a question; return 0 if allowed, else seconds until the next one is."""
        if self.rate <= 0:
            return 0.0
        now = self._clock()
        hits = self._hits.get(user_id)
        if hits is None:
            hits = self._hits[user_id] = deque()
        self._hits.move_to_end(user_id)
        while hits and now - hits[0] >= self.per:
            hits.popleft()
        if len(hits) >= self.rate:
            return max(0.01, self.per - (now - hits[0]))
        hits.append(now)
        while len(self._hits) > self._max_users:
            self._hits.popitem(last=False)
        return 0.0
