"""Give freed heap back to the operating system after bursts (glibc ``malloc_trim``).

A flood of 1,000-character questions allocates answers, contexts and database
payloads in several threads (the answer pool, aiosqlite's connection
threads); glibc keeps each thread's freed arenas mapped, so the process's RSS
stays at its high-water mark long after the objects are gone. Every bounded
store in the bot keeps live memory small; trimming every few seconds makes the
RSS show that. A no-op where glibc is not the allocator.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
from typing import Any

__all__ = ["trim", "trim_periodically"]

log = logging.getLogger(__name__)


def _libc() -> Any:
    try:
        name = ctypes.util.find_library("c")
        lib = ctypes.CDLL(name) if name else None
        return lib if lib is not None and hasattr(lib, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()


def trim() -> bool:
    """Return free heap pages to the OS; True when glibc did."""
    return bool(_LIBC is not None and _LIBC.malloc_trim(0))


async def trim_periodically(every_s: float = 10.0) -> None:
    """Trim in a worker thread every ``every_s`` seconds until cancelled."""
    if _LIBC is None:
        return
    while True:
        await asyncio.sleep(every_s)
        try:
            await asyncio.to_thread(trim)
        except Exception:  # never let housekeeping take the bot down
            log.debug("malloc_trim failed", exc_info=True)
