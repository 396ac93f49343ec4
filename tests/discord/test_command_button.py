"""Issue 17 in Discord, piece by piece: which answers carry the persistent "Show command" button
(inference verdicts with a command), its label per language, and the question kept in its id."""

from __future__ import annotations

import re
from dataclasses import replace

from bot.config import Settings
from bot.core.answer import answer
from bot.core.commands import query_from_key
from bot.core.phrase.catalog import t
from bot.core.types import Lang
from bot.discord_app.advisor import Advisor
from bot.discord_app.persist import DYNAMIC_ITEMS, CommandButton


def _advisor() -> Advisor:
    return Advisor(replace(Settings(), cooldown_per_10s=0))


def test_an_inference_verdict_gets_the_button_with_its_question_in_the_id() -> None:
    adv = _advisor()
    ans = answer("能在 3060 12gb 上跑 llama 3.1 8b 吗")
    view = adv.command_view(ans, None)
    assert view is not None and view.timeout is None  # persistent: survives a restart
    (button,) = [c for c in view.children if isinstance(c, CommandButton)]
    assert button.item.label == t(Lang.ZH_HANS, "cmd.button") != t(Lang.EN, "cmd.button")
    cid = button.item.custom_id or ""
    assert len(cid) <= 100
    m = re.fullmatch(CommandButton.__discord_ui_compiled_template__, cid)
    assert m is not None and CommandButton in DYNAMIC_ITEMS
    q = query_from_key(m["key"])
    assert q.models == ("llama-3.1-8b",) and q.gpus == ans.query.gpus


def test_answers_without_a_command_get_no_button() -> None:
    adv = _advisor()
    for question in ("can I fine-tune llama 3 8b with qlora on a 3090", "best gpu under $800 for llama 3 8b"):
        assert adv.command_view(answer(question), None) is None
