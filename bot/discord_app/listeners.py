"""Messages -> questions: mentions, ask-channels and DMs; edits and deletes.

A message is a question when it is a DM, when it mentions the bot (the
mention is stripped), or when it is posted in one of ``ASK_CHANNEL_IDS``.
The reply references the message it answers and never pings anyone.

- An edited question is answered again, by editing the bot's earlier reply
  (or with a new reply when there was none yet).
- A question deleted before its answer is sent gets no answer.
- A person past the cooldown gets one notice saying when to ask again; later
  questions in the same window get a reaction, never silence.
- Replies are retried on 429 / 5xx (``advisor.deliver``); when the reply
  still cannot be sent, a short apology is tried the same way.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.core.language import detect
from bot.core.phrase.catalog import t
from bot.core.types import Answer, Lang

from .advisor import (
    NO_MENTIONS,
    RATE_LIMITED_REACTION,
    Advisor,
    AnswerTimeout,
    PoolBusy,
    Rate,
    Reply,
    clip_question,
    deliver,
    rate_notice,
)

__all__ = ["extract_question", "handle_message", "handle_edit", "handle_delete"]

log = logging.getLogger(__name__)


def _mention_pattern(user_id: int) -> re.Pattern[str]:
    return re.compile(rf"<@!?{user_id}>")


def extract_question(
    message: discord.Message,
    me: discord.abc.User | None,
    ask_channel_ids: frozenset[int],
    *,
    answer_mentions: bool = True,
) -> str | None:
    """The question in ``message``, or None when the message is not for us.
    ``answer_mentions=False`` (``/gpu-setup mentions``): only ask-channels (and DMs)."""
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
    if not (in_ask_channel or (mentioned and answer_mentions)):
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


async def _send_text(advisor: Advisor, message: discord.Message, text: str, reference: Any, what: str) -> Any:
    return await deliver(
        lambda: message.channel.send(text, reference=reference, allowed_mentions=NO_MENTIONS),
        bounds=advisor.bounds,
        what=what,
    )


async def _rate_limited(advisor: Advisor, message: discord.Message, reference: Any, lang: Lang) -> bool:
    """Handle the cooldown; True when the question is not to be answered now."""
    decision = advisor.rate(message.author.id)
    if decision.rate is Rate.ALLOWED:
        return False
    try:
        if decision.rate is Rate.NOTICE:
            await _send_text(
                advisor, message, rate_notice(decision, lang), reference, f"notice for {message.id}"
            )
        else:
            await deliver(
                lambda: message.add_reaction(RATE_LIMITED_REACTION),
                bounds=advisor.bounds,
                what=f"reaction on {message.id}",
            )
    except Exception:
        log.warning("could not tell message %s it is rate limited", message.id, exc_info=True)
    return True


async def _question_for(
    advisor: Advisor, message: discord.Message, me: discord.abc.User | None
) -> tuple[str | None, Lang | None]:
    """The question in ``message`` under its server's /gpu-setup (ask-channels, mentions,
    allowed role; the operator's ASK_CHANNEL_IDS when the server has none), and the
    server's default language."""
    guild_id = getattr(message.guild, "id", None) if message.guild is not None else None
    gs = await advisor.settings_for(guild_id)
    ask_ids = gs.ask_channel_ids if gs is not None else advisor.settings.ask_channel_ids
    question = extract_question(
        message, me, ask_ids, answer_mentions=gs.answer_mentions if gs is not None else True
    )
    if question is None:
        return None, None
    if (
        gs is not None
        and gs.allowed_role_id is not None
        and not await advisor.may_use(guild_id, message.author)
    ):
        log.info("message %s: its author lacks the server's allowed role; not answered", message.id)
        return None, None
    from bot.core.language import parse_lang

    return question, parse_lang(gs.language) if gs is not None and gs.language else None


async def _answer(
    advisor: Advisor, message: discord.Message, question: str, version: int, locale: Lang | None = None
) -> tuple[Reply | None, str | None]:
    """(reply, None) for an answer, (None, text) for a short notice instead."""
    try:
        result = await advisor.ask_or_rig(
            question or "help",
            channel_id=message.channel.id,
            user_id=message.author.id,
            locale=locale,
            rig_statements=True,
        )
    except AnswerTimeout:
        log.warning("message %s hit the answer time limit", message.id)
        return None, t(detect(question), "discord.too_complex")
    except PoolBusy:
        log.warning("message %s: too many questions waiting", message.id)
        return None, t(detect(question), "discord.busy")
    if not advisor.current(message.id, version):
        return None, None
    if not isinstance(result, Answer):
        # "my rig is 2x 3090": offer to save it (a button that survives restarts)
        text, view = advisor.rig_confirmation(message.author.id, result, detect(question, locale=locale))
        return Reply(embed=None, content=text, view=view, chart=None), None
    reply = await advisor.reply_for(
        result, embeds=_can(message, "embed_links"), files=_can(message, "attach_files")
    )
    return reply, None


async def handle_message(advisor: Advisor, message: discord.Message, me: discord.abc.User | None) -> bool:
    """Answer ``message`` if it is a question. Never raises: a failure is
    logged and answered with a short apology. Returns True if it was a question."""
    try:
        question, locale = await _question_for(advisor, message, me)
    except Exception:
        log.exception("could not read message %s", message.id)
        return False
    if question is None:
        return False
    reference = message.to_reference(fail_if_not_exists=False)
    version = advisor.begin(message.id)

    async def answer_and_send() -> None:
        reply, notice = await _answer(advisor, message, question, version, locale)
        if not advisor.current(message.id, version):
            log.info("message %s was deleted or edited before its answer: dropped", message.id)
            return
        if reply is not None:

            async def send_reply() -> Any:
                if not advisor.current(message.id, version):  # deleted or edited while we retried
                    return None
                return await message.channel.send(**reply.kwargs(), reference=reference)

            sent = await deliver(send_reply, bounds=advisor.bounds, what=f"reply to {message.id}")
        elif notice is not None:
            sent = await _send_text(advisor, message, notice, reference, f"notice for {message.id}")
        else:
            return
        if sent is not None and getattr(sent, "id", None) is not None:
            advisor.replies[message.id] = (message.channel.id, sent.id)

    try:
        if await _rate_limited(advisor, message, reference, detect(question, locale=locale)):
            return True
        # answered and sent within a bounded number of slots: a flood waits as messages
        await advisor.reply_gate.run(answer_and_send, cost_chars=len(question))
    except Exception:
        log.exception("failed to answer message %s in channel %s", message.id, message.channel.id)
        if advisor.current(message.id, version):
            try:
                apology = t(detect(question), "discord.apology")
                await _send_text(advisor, message, apology, reference, f"apology for {message.id}")
            except Exception:
                log.exception("could not send the apology for message %s", message.id)
    return True


async def handle_edit(advisor: Advisor, message: discord.Message, me: discord.abc.User | None) -> bool:
    """An edited message: answer the new text again, editing our earlier reply if there is one.
    Returns True if it was (still) a question."""
    if message.content is None or getattr(message, "edited_at", True) is None:
        return False  # not a content edit (an embed unfurled)
    try:
        question, locale = await _question_for(advisor, message, me)
    except Exception:
        log.exception("could not read edited message %s", message.id)
        return False
    earlier = advisor.replies.get(message.id)
    if question is None:
        return False
    if earlier is None:
        return await handle_message(advisor, message, me)
    version = advisor.begin(message.id)  # an answer still pending for the old text is dropped
    channel_id, reply_id = earlier
    try:
        reference = message.to_reference(fail_if_not_exists=False)
        if await _rate_limited(advisor, message, reference, detect(question)):
            return True

        async def answer_and_edit() -> None:
            reply, notice = await _answer(advisor, message, question, version, locale)
            if not advisor.current(message.id, version):
                return
            target = message.channel.get_partial_message(reply_id)  # type: ignore[union-attr]
            if reply is not None:
                await deliver(
                    lambda: target.edit(**reply.kwargs(for_edit=True)),
                    bounds=advisor.bounds,
                    what=f"edit of the reply to {message.id}",
                )
            elif notice is not None:
                await deliver(
                    lambda: target.edit(
                        content=notice, embed=None, view=None, attachments=[], allowed_mentions=NO_MENTIONS
                    ),
                    bounds=advisor.bounds,
                    what=f"edit of the reply to {message.id}",
                )

        await advisor.reply_gate.run(answer_and_edit, cost_chars=len(question))
    except discord.NotFound:
        # our reply is gone: answer afresh
        advisor.replies.pop(message.id, None)
        return await handle_message(advisor, message, me)
    except Exception:
        log.exception("failed to re-answer edited message %s in channel %s", message.id, channel_id)
    return True


def handle_delete(advisor: Advisor, message_ids: Any) -> None:
    """Deleted messages: a pending answer to any of them is dropped."""
    for message_id in message_ids:
        advisor.forget(int(message_id))
