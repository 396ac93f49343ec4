"""Several cards, as they really behave (issues 10, 12, 17): links, splits and their cost to speed.

Pure functions over catalog cards and the facts of ``knowledge/interconnect.yaml``; no phrasing.

Memory (what pools and what does not):
    training, data parallel (DDP): every card holds a whole copy: 4x 24 GB is not 96 GB.
    training, FSDP / ZeRO-3: weights, gradients and optimizer states split n ways (memory.py).
    inference, tensor parallel (vLLM ``--tensor-parallel-size``): equal cards only, and the count
        must divide the attention heads (vLLM checks ``num_attention_heads % tp == 0``).
    inference, layer split (llama.cpp ``-sm layer``, default): whole layers per card, in the
        proportions of ``-ts`` (by default each card's free memory), so mixed cards work; each card
        keeps its own compute buffer and CUDA context.

Speed of one stream (decode is memory-bound; every token reads every weight once):
    layer split: the cards run one after the other, so t = sum_i(bytes_i / bw_i) + a hop per
        boundary (the hidden state, a few KB): no speed-up over one card that could hold it all,
        and a slow card in the chain costs its share (measured rows in interconnect.yaml agree).
    tensor parallel: the cards read their shares at once, t = max_i(bytes / n / bw_i) plus two
        all-reduces per layer, latency-bound: NVLink ~8 us, PCIe with P2P ~15 us, PCIe through host
        memory (GeForce 40/50, 30 without a bridge) ~30 us, x sqrt(n - 1) for n cards (estimates,
        checked against the published figures of interconnect.yaml by tests/core/test_multigpu.py).
    The link costs speed, never memory.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from bot.core.knowledge import GPU, Catalog, Model
from bot.core.yaml_io import safe_load

__all__ = [
    "Link",
    "CardLink",
    "card_link",
    "setup_link",
    "tp_blocker",
    "layer_shares",
    "layer_split_decode_s",
    "tensor_parallel_decode_s",
    "HOP_S",
    "load_facts",
]

#: one hop of the hidden state between two cards in a layer split (copy + sync), seconds (estimate)
HOP_S = 0.0002
_DEFAULT_ALLREDUCE_US = {"nvlink": 8.0, "pcie_p2p": 15.0, "pcie": 30.0}


class Link(StrEnum):
    """How the cards of a setup exchange data; values are the JSON's ``interconnect``."""

    NONE = "none"  # one card
    NVLINK = "nvlink"
    PCIE_P2P = "pcie_p2p"  # PCIe with peer-to-peer access
    PCIE = "pcie"  # PCIe through host memory (no peer access with the stock driver)


@dataclass(frozen=True)
class CardLink:
    nvlink: str  # none | bridge | sxm
    nvlink_gbs: float | None
    p2p: bool
    source: str
    listed: bool  # from interconnect.yaml (False: the segment's default)


@dataclass(frozen=True)
class Facts:
    cards: dict[str, CardLink]
    allreduce_us: dict[str, float]
    measured: tuple[dict[str, Any], ...]
    nvlink_gain: tuple[dict[str, Any], ...]


_NVLINK = ("none", "bridge", "sxm")


def _read(path: Path) -> Facts:
    if not path.is_file():
        return Facts({}, dict(_DEFAULT_ALLREDUCE_US), (), ())
    raw = safe_load(path.read_text(encoding="utf-8")) or {}
    cards: dict[str, CardLink] = {}
    for gid, v in (raw.get("cards") or {}).items():
        nv = str(v.get("nvlink", "none"))
        if nv not in _NVLINK:
            raise ValueError(f"{path.name}: cards.{gid}.nvlink must be one of {', '.join(_NVLINK)}")
        if not v.get("source") or not v.get("date"):
            raise ValueError(f"{path.name}: cards.{gid} needs source and date")
        gbs = v.get("nvlink_gbs")
        cards[str(gid)] = CardLink(
            nv, float(gbs) if gbs else None, bool(v.get("p2p")), str(v["source"]), True
        )
    ar = {k: float(x) for k, x in (raw.get("allreduce_us") or _DEFAULT_ALLREDUCE_US).items()}
    return Facts(cards, ar, tuple(raw.get("measured") or ()), tuple(raw.get("nvlink_gain") or ()))


@functools.lru_cache(maxsize=8)
def _facts_at(directory: str) -> Facts:
    return _read(Path(directory) / "interconnect.yaml")


def load_facts(cat: Catalog | None = None) -> Facts:
    directory = getattr(cat, "directory", None) if cat is not None else None
    if directory is None:
        directory = Path(__file__).resolve().parents[2] / "knowledge"
    return _facts_at(str(directory))


def card_link(g: GPU, cat: Catalog | None = None) -> CardLink:
    """The card's NVLink and peer-access facts (listed, or its segment's default)."""
    listed = load_facts(cat).cards.get(g.id)
    if listed is not None:
        return listed
    if g.form_factor in ("sxm", "oam"):
        return CardLink("sxm", None, True, "form factor", False)
    pro = g.segment in ("workstation", "datacenter")
    return CardLink("none", None, pro, "segment default", False)


def setup_link(cards: list[GPU], cat: Catalog | None = None, *, bridge: bool = False) -> Link:
    """The slowest link between the cards of one machine. A 2-way NVLink bridge counts only for
    exactly two identical cards and only when ``bridge`` (the asker said so); SXM boards always."""
    if len(cards) <= 1:
        return Link.NONE
    links = [card_link(g, cat) for g in cards]
    same = len({g.id for g in cards}) == 1
    if same and links[0].nvlink == "sxm":
        return Link.NVLINK
    if same and bridge and len(cards) == 2 and links[0].nvlink == "bridge":
        return Link.NVLINK
    if all(x.p2p for x in links) and same:
        return Link.PCIE_P2P
    return Link.PCIE


def bridge_possible(cards: list[GPU], cat: Catalog | None = None) -> bool:
    """Two identical cards that take a 2-way NVLink bridge (3090, A6000, ...)."""
    return len(cards) == 2 and cards[0].id == cards[1].id and card_link(cards[0], cat).nvlink == "bridge"


def tp_blocker(cards: list[GPU], model: Model) -> str | None:
    """Why vLLM tensor parallel cannot run this model on these cards, or None.

    "unequal": vLLM shards every layer evenly, so mixed cards are bounded by the smallest and it
    is not offered; "heads": the count does not divide the attention heads (vLLM's check);
    "one": a single card."""
    n = len(cards)
    if n <= 1:
        return "one"
    if len({g.id for g in cards}) > 1:
        return "unequal"
    heads = model.heads or 0
    if heads and heads % n:
        return "heads"
    return None


def layer_shares(free_bytes: list[float]) -> list[float]:
    """llama.cpp's default ``-ts``: each card's share of the layers in proportion to its free memory."""
    pos = [max(0.0, f) for f in free_bytes]
    tot = sum(pos)
    if tot <= 0:
        return [1.0 / len(pos)] * len(pos) if pos else []
    return [f / tot for f in pos]


def tensor_split_arg(shares: list[float]) -> str:
    """The ``-ts`` value as people write it: whole numbers, smallest ratio that keeps two digits."""
    return ",".join(str(max(1, round(s * 100))) for s in shares)


def _bw(g: GPU, efficiency: float) -> float:
    return efficiency * g.memory_bandwidth_gbs * 1e9


def layer_split_decode_s(
    bytes_total: float, cards: list[GPU], shares: list[float], eff: list[float]
) -> float:
    """Seconds per token, one stream, layers split in ``shares``: the cards take turns."""
    t = sum(bytes_total * s / _bw(g, e) for g, s, e in zip(cards, shares, eff, strict=True) if s > 0)
    hops = sum(1 for s in shares if s > 0) - 1
    return t + max(0, hops) * HOP_S


def allreduce_s(link: Link, n: int, cat: Catalog | None = None) -> float:
    us = load_facts(cat).allreduce_us
    key = {Link.NVLINK: "nvlink", Link.PCIE_P2P: "pcie_p2p"}.get(link, "pcie")
    return us.get(key, _DEFAULT_ALLREDUCE_US[key]) * 1e-6 * math.sqrt(max(1, n - 1))


def tensor_parallel_decode_s(
    bytes_total: float, cards: list[GPU], eff: float, layers: int, link: Link, cat: Catalog | None = None
) -> tuple[float, float]:
    """(seconds per token, of which the link) for tensor parallel over ``cards``: two all-reduces a layer."""
    n = len(cards)
    read = max(bytes_total / n / _bw(g, eff) for g in cards)
    comm = 2 * max(layers, 1) * allreduce_s(link, n, cat) if n > 1 else 0.0
    return read + comm, comm
