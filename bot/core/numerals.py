"""Number words shared by the readers of questions (budgets, prices, counts).

One table of Chinese digits for every module that reads them (the budget reader in
``parsing``, the price reader in ``price_parse``), so a fix to one is a fix to all.
"""

from __future__ import annotations

__all__ = ["CN_DIGITS", "COUNT_WORDS"]

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


#: Words that count cards ("two 4090s", "dual 3090", "两张", "双卡"): one table for the parser's
#: counts (bot.core.understand.numbers) and the rig reader (bot.core.rig)
COUNT_WORDS: dict[str, int] = {
    "one": 1,
    "single": 1,
    "two": 2,
    "dual": 2,
    "double": 2,
    "pair": 2,
    "three": 3,
    "triple": 3,
    "four": 4,
    "quad": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "一": 1,
    "两": 2,
    "二": 2,
    "双": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "八": 8,
    "十": 10,
}
