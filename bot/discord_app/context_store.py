"""Bounded per-user / per-channel / per-message stores of the Discord adapter.

Every store has a size in bytes or entries and evicts least recently used
(and expired) entries first, with cachetools' TTL/LRU caches; the sizes come
from :class:`bot.config.Bounds`. All take an injectable clock, so tests need
no sleeping. None is thread-safe: they are used on the event loop only.

- :class:`ContextStore`: follow-up context per (channel, user), bounded in
  estimated bytes. A stored question's choices keep one copy of the question
  and, per choice, only what differs from it (:class:`CompactChoices`).
- :class:`Cooldown`: at most ``rate`` questions per ``per`` seconds per user,
  O(1) amortised per question.
- :class:`Notices`: whether a limited user was already told in this window.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace

from cachetools import TTLCache

from bot.core.choices import CompactChoices
from bot.core.types import Context, Query

__all__ = ["CompactChoices", "ContextStore", "Cooldown", "Notices", "context_bytes"]

Key = tuple[int, int]  # (channel_id, user_id)

_ENTRY_OVERHEAD = 2000  # bytes of a stored Query and its small fields (measured with tracemalloc: 1.3-1.7 KB)


def _text_bytes(texts: tuple[str, ...]) -> int:
    return sum(len(t) + 50 for t in texts)


def context_bytes(query: Query, choices: CompactChoices | None) -> int:
    """Estimated bytes one stored context holds (used to bound the store in bytes)."""
    size = _ENTRY_OVERHEAD + sys.getsizeof(query.text)
    size += sum(_ENTRY_OVERHEAD // 4 + len(str(getattr(n, "values", n))) for n in query.notes)
    size += _text_bytes(tuple(str(x) for x in query.suggestions))
    size += _text_bytes(query.models) + _text_bytes(query.gpus)
    if choices is not None:
        size += choices.nbytes()
    return size


class _Stored:
    __slots__ = ("query", "choices", "nbytes", "shown_usd")

    def __init__(
        self, query: Query, choices: CompactChoices | None, shown_usd: tuple[float, ...] = ()
    ) -> None:
        self.query = query
        self.choices = choices
        self.shown_usd = shown_usd[:10]  # prices of the cards last shown ("cheaper?", bot.core.conversation)
        self.nbytes = context_bytes(query, choices) + 8 * len(self.shown_usd)


class ContextStore:
    """Remembers ``Answer.context`` for follow-ups ("what about under $500?").

    Entries expire ``ttl`` seconds after they were last written; the store holds at most
    ``max_bytes`` (estimated), dropping the least recently used first. A context too large
    on its own (it cannot be: questions are clipped) is not stored.
    """

    def __init__(
        self,
        *,
        ttl: float = 900.0,
        max_bytes: int = 16 * 1024 * 1024,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self._data: TTLCache[Key, _Stored] = TTLCache(
            maxsize=max_bytes, ttl=max(ttl, 1e-9), timer=clock, getsizeof=lambda e: e.nbytes
        )

    def __len__(self) -> int:
        self._data.expire()
        return len(self._data)

    @property
    def nbytes(self) -> int:
        self._data.expire()
        return int(self._data.currsize)

    def get(self, channel_id: int, user_id: int) -> Context | None:
        if self.ttl <= 0:
            return None
        entry = self._data.get((channel_id, user_id))
        if entry is None:
            return None
        q = entry.query
        if entry.choices is not None:
            q = replace(q, choices=entry.choices.choices())
        return Context(last=q, shown_usd=entry.shown_usd)

    def put(self, channel_id: int, user_id: int, context: Context) -> None:
        q = context.last
        if q is None or self.ttl <= 0:
            self._data.pop((channel_id, user_id), None)
            return
        compact = CompactChoices(q.text, q.choices) if q.choices else None
        entry = _Stored(replace(q, choices=()) if compact else q, compact, context.shown_usd)
        if entry.nbytes > self.max_bytes:
            self._data.pop((channel_id, user_id), None)
            return
        self._data[(channel_id, user_id)] = entry

    def drop_user(self, user_id: int) -> int:
        """Forget every context of ``user_id`` (``/gpu rig clear``); how many were dropped."""
        keys = [k for k in list(self._data.keys()) if k[1] == user_id]
        for k in keys:
            self._data.pop(k, None)
        return len(keys)


class Cooldown:
    """At most ``rate`` questions per ``per`` seconds per user (sliding window).

    Per user a deque of at most ``rate`` times; users live in a TTL cache (an entry not
    written for ``per`` seconds holds nothing that counts) of at most ``max_users``.
    O(1) amortised per question. ``rate == 0`` turns it off.
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
        self._hits: TTLCache[int, deque[float]] = TTLCache(maxsize=max_users, ttl=per, timer=clock)

    def __len__(self) -> int:
        return len(self._hits)

    def retry_after(self, user_id: int) -> float:
        """Record a question; return 0 if allowed, else seconds until the next one is."""
        if self.rate <= 0:
            return 0.0
        now = self._clock()
        hits = self._hits.get(user_id)
        if hits is None:
            hits = deque(maxlen=self.rate)
        while hits and now - hits[0] >= self.per:
            hits.popleft()
        if len(hits) >= self.rate:
            return max(0.01, self.per - (now - hits[0]))
        hits.append(now)
        self._hits[user_id] = hits  # (re)written: its TTL restarts from this question
        return 0.0


class Notices:
    """Remembers, per user, until when they were told they are asking too fast: the first
    limited question in a window gets the notice, later ones a lighter sign (a reaction)."""

    def __init__(self, *, max_users: int = 50_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        # entries live at most the longest window a notice covers; each also carries its own end
        self._until: TTLCache[int, float] = TTLCache(maxsize=max_users, ttl=3600.0, timer=clock)

    def __len__(self) -> int:
        return len(self._until)

    def first_in_window(self, user_id: int, retry_after: float) -> bool:
        """True (and remember it) if ``user_id`` was not told yet in the current window."""
        now = self._clock()
        if self._until.get(user_id, 0.0) > now:
            return False
        self._until[user_id] = now + retry_after
        return True
