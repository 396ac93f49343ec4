"""Slash-command names, descriptions and choices in Chinese, from the same message catalogs.

discord.py asks a ``Translator`` for every string of the command tree when
it syncs (names, descriptions, option names, choice names), once per
locale Discord knows. Each English string is a catalog key ``slash:<text>``;
zh-CN reads the Simplified catalog, zh-TW the same converted to Traditional.
Other locales get the English default (``None``). Names (of commands and
options) and texts are keyed apart, since "gpu" is both the group's name,
kept as it is, and an option's name, translated.
"""

from __future__ import annotations

from discord import Locale, app_commands

from bot.core.phrase.catalog import messages, t
from bot.core.types import Lang

__all__ = ["CatalogTranslator", "LOCALES", "slash_key"]

LOCALES: dict[Locale, Lang] = {Locale.chinese: Lang.ZH_HANS, Locale.taiwan_chinese: Lang.ZH_HANT}


_NAMES = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.parameter_name,
}


def slash_key(text: str, location: app_commands.TranslationContextLocation) -> str | None:
    """The catalog key of a command-tree string; None for the group's name ("gpu" stays "gpu")."""
    if location is app_commands.TranslationContextLocation.group_name:
        return None
    return f"slash-name:{text}" if location in _NAMES else f"slash:{text}"


class CatalogTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        lang = LOCALES.get(locale)
        if lang is None:
            return None
        key = slash_key(string.message, context.location)
        if key is None or key not in messages(lang):
            return None
        return t(lang, key)
