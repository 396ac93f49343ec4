"""Number words shared by the readers of questions (budgets, prices, counts).

One table of Chinese digits for every module that reads them (the budget reader in
``parsing``, the price reader in ``price_parse``), so a fix to one is a fix to all.
"""

from __future__ import annotations

__all__ = ["CN_DIGITS"]

#: Chinese digits as written in amounts and counts (两 is 2 before a unit: 两万 = 20,000)
CN_DIGITS: dict[str, int] = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "兩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
