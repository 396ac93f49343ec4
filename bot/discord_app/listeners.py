"""Messages -> questions: mentions, ask-channels and DMs.

A message is a question when it is a DM, when it mentions the bot (the
mention is stripped), or when it is posted in one of ``ASK_CHANNEL_IDS``.
The reply references the message it answers and never pings anyone.
"""

from __future__ import annotations

import logging
import re

import discord

from bot.core.language import detect
from bot.core.phrase.catalog import t

from .advisor import NO_MENTIONS, Advisor, clip_question

__all__ = ["extract_question", "handle_message"]

log = logging.getLogger(__name__)


def _mention_pattern(user_id: int) -> re.Pattern[str]:
    return re.compile(rf"<@!?{user_id}>")


def extract_question(
    message: discord.Message, me: discord.abc.User | None, ask_channel_ids: frozenset[int]
) -> str | None:
    """The question in ``message``, or None when the message is not for us."""
    if me is None or message.author.bot or message.author.id == me.id:
        return None
    if message.type not in (discord.MessageType.default, discord.MessageType.reply):
        return None
    content = message.content or ""
    pattern = _mention_pattern(me.id)
    if message.guild is None:  # DM or group DM: everything is a question
        return clip_question(pattern.sub(" ", content))
    mentioned = any(u.id == me.id for u in message.mentions) or bool(pattern.search(content))
    channel = message.channel
    in_ask_channel = channel.id in ask_channel_ids or (
        getattr(channel, "parent_id", None) in ask_channel_ids if ask_channel_ids else False
    )
    if not (mentioned or in_ask_channel):
        return None
    return clip_question(" ".join(pattern.sub(" ", content).split()))


def _can(message: discord.Message, what: str) -> bool:
    guild = message.guild
    if guild is None or guild.me is None:
        return True
    try:
        perms = message.channel.permissions_for(guild.me)  # type: ignore[union-attr, arg-type]
    except Exception:
        return True
    return bool(getattr(perms, what, True))


async def handle_message(advisor: Advisor, message: discord.Message, me: discord.abc.User | None) -> bool:
    """Answer ``message`` if it is a question. Never raises: a failure is
    logged and answered with a short apology. Returns True if it was a question."""
    try:
        question = extract_question(message, me, advisor.settings.ask_channel_ids)
    except Exception:
        log.exception("could not read message %s", message.id)
        return False
    if question is None:
        return False
    reference = message.to_reference(fail_if_not_exists=False)
    try:
        lang = detect(question)
        allowed, notice = advisor.cooldown_notice(message.author.id, lang)
        if not allowed:
            if notice:
                await message.channel.send(notice, reference=reference, allowed_mentions=NO_MENTIONS)
            return True
        result = advisor.ask(question or "help", channel_id=message.channel.id, user_id=message.author.id)
        kwargs = await advisor.message_kwargs(
            result, embeds=_can(message, "embed_links"), files=_can(message, "attach_files")
        )
        await message.channel.send(**kwargs, reference=reference)
    except Exception:
        log.exception("failed to answer message %s in channel %s", message.id, message.channel.id)
        try:
            await message.channel.send(
                t(detect(question), "discord.apology"), reference=reference, allowed_mentions=NO_MENTIONS
            )
        except Exception:
            log.exception("could not send the apology for message %s", message.id)
    return True
