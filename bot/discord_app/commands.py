"""The ``/gpu`` slash-command group: typed options, autocomplete, re-checks.

Typed commands build a ``Query`` and call the same ``answer()`` as every
other surface; ``/gpu ask`` passes its text through. Autocomplete offers ids
as values and display names as labels from the parser's own name index;
each command re-checks whatever arrives (an id, or a name typed by hand).
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.core.phrase.catalog import t
from bot.core.rig import MAX_COUNT as MAX_RIG_COUNT
from bot.core.rig import MAX_RAM_GB, RigProblem, RigProblemCode, build_rig
from bot.core.types import Intent, Lang, Method, Precision, Query, Task

from .advisor import Advisor, interaction_lang, truncate

__all__ = ["GpuGroup", "TASK_CHOICES", "METHOD_CHOICES", "PRECISION_CHOICES", "resolve_name"]

log = logging.getLogger(__name__)

Choice = app_commands.Choice

TASK_CHOICES = [
    Choice(name="training (from scratch)", value=Task.TRAINING.value),
    Choice(name="fine-tuning", value=Task.FINETUNE.value),
    Choice(name="inference", value=Task.INFERENCE.value),
]
METHOD_CHOICES = [
    Choice(name="full fine-tuning", value=Method.FULL.value),
    Choice(name="LoRA", value=Method.LORA.value),
    Choice(name="QLoRA (4-bit base)", value=Method.QLORA.value),
]
PRECISION_CHOICES = [Choice(name=p.value, value=p.value) for p in Precision]
LIST_CHOICES = [Choice(name="GPUs", value="gpus"), Choice(name="models", value="models")]

Budget = app_commands.Range[int, 50, 1_000_000]
Batch = app_commands.Range[int, 1, 65_536]
SeqLen = app_commands.Range[int, 1, 2_097_152]
Count = app_commands.Range[int, 1, 1024]

LIST_HINT = {"gpu": "/gpu list kind:GPUs", "model": "/gpu list kind:models", "any": "/gpu list"}


def resolve_name(matcher: Any, value: str, kind: str) -> tuple[str, str] | None:
    """(id, kind) for an id or a typed name, or None. The kind of the result is
    "gpu" or "model" (for kind="any", whichever matched)."""
    value = (value or "").strip()
    if not value:
        return None
    match = matcher.resolve(value[:200], kind)
    if match is None:
        return None
    found_kind = getattr(match, "kind", None)
    if found_kind not in ("gpu", "model"):
        found_kind = kind if kind in ("gpu", "model") else "gpu"
    return str(match.id), str(found_kind)


async def _complete(matcher: Any, current: str, kind: str) -> list[Choice[str]]:
    try:
        pairs = matcher.autocomplete((current or "")[:100], kind, limit=25)
    except Exception:
        log.exception("autocomplete failed for %r", current)
        return []
    out: list[Choice[str]] = []
    for ident, name in pairs[:25]:
        ident = str(ident)
        if len(ident) > 100:
            continue  # an id Discord cannot carry as a value
        out.append(Choice(name=truncate(str(name), 100) or ident, value=ident))
    return out


def _enum(cls: Any, value: Choice[str] | None) -> Any:
    """The core's enum for a choice option (its value is the JSON contract's string)."""
    return None if value is None else cls(value.value)


def _opt(value: Choice[str] | str | None) -> str | None:
    if value is None:
        return None
    return value.value if isinstance(value, Choice) else str(value)


def _describe(command: str, **options: Any) -> str:
    parts = [f"/gpu {command}"] + [f"{k}:{_opt(v)}" for k, v in options.items() if v is not None]
    return " ".join(parts)


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
@app_commands.allowed_installs(guilds=True, users=True)
class GpuGroup(
    app_commands.Group, name="gpu", description="Which GPU for deep learning? Ask the GPU advisor."
):
    def __init__(self, advisor: Advisor) -> None:
        super().__init__()
        self.advisor = advisor

    # -- helpers --------------------------------------------------------------------

    async def _resolve(
        self, interaction: discord.Interaction, value: str, kind: str, option: str
    ) -> tuple[str, str] | None:
        found = resolve_name(self.advisor.matcher, value, kind)
        if found is None:
            lang = interaction_lang(interaction) or Lang.EN
            hints = [c.name for c in (await _complete(self.advisor.matcher, value, kind))[:3]]
            text = t(
                lang,
                "discord.unknown_name",
                kind=t(lang, f"discord.kind.{kind}"),
                value=truncate(value, 80),
                option=option,
            )
            if hints:
                text += t(
                    lang, "discord.did_you_mean", names=t(lang, "sep.list").join(f"**{h}**" for h in hints)
                )
            text += t(lang, "discord.pick_from_list", hint=LIST_HINT[kind])
            await self.advisor.notify(interaction, text)
        return found

    async def _run(self, interaction: discord.Interaction, query: Query) -> None:
        await self.advisor.answer_interaction(interaction, query, use_context=False)

    # -- commands -------------------------------------------------------------------

    @app_commands.command(
        name="ask", description="Ask anything in plain words, e.g. “best GPU for Llama 3 8B under $1000”."
    )
    @app_commands.describe(question="Your question, e.g. “can I fine-tune llama 3 8b with qlora on a 3090?”")
    async def ask(self, interaction: discord.Interaction, question: app_commands.Range[str, 1, 1000]) -> None:
        await self.advisor.answer_interaction(interaction, question)

    @app_commands.command(name="recommend", description="The best cards for a model within a budget.")
    @app_commands.describe(
        model="The model to run or train (start typing to search).",
        budget="Most you want to spend, in US dollars.",
        task="Training, fine-tuning or inference (default: inference for LLMs, training for CNNs).",
        precision="Number format (default: fp16/bf16; mixed precision when training).",
        batch="Batch size you need (default: the answer picks one).",
        seq_len="Sequence length in tokens (default depends on the model).",
    )
    @app_commands.choices(task=TASK_CHOICES, precision=PRECISION_CHOICES)
    async def recommend(
        self,
        interaction: discord.Interaction,
        model: str,
        budget: Budget,
        task: Choice[str] | None = None,
        precision: Choice[str] | None = None,
        batch: Batch | None = None,
        seq_len: SeqLen | None = None,
    ) -> None:
        found = await self._resolve(interaction, model, "model", "model")
        if found is None:
            return
        query = Query(
            intent=Intent.RECOMMEND,
            models=(found[0],),
            budget_usd=float(budget),
            task=_enum(Task, task),
            precision=_enum(Precision, precision),
            batch_size=batch,
            seq_len=seq_len,
            text=_describe(
                "recommend",
                model=found[0],
                budget=budget,
                task=task,
                precision=precision,
                batch=batch,
                seq_len=seq_len,
            ),
        )
        await self._run(interaction, query)

    @app_commands.command(
        name="fit", description="Does a model fit on a card? Memory breakdown and largest batch."
    )
    @app_commands.describe(
        model="The model (start typing to search).",
        gpu="The graphics card (start typing to search).",
        task="Training, fine-tuning or inference (default: inference for LLMs, training for CNNs).",
        method="Full fine-tuning, LoRA or QLoRA (fine-tuning only).",
        precision="Number format (default: fp16/bf16; mixed precision when training).",
        batch="Batch size (default: the largest that fits is reported).",
        seq_len="Sequence length in tokens (default depends on the model).",
        count="How many of these cards (default 1).",
    )
    @app_commands.choices(task=TASK_CHOICES, method=METHOD_CHOICES, precision=PRECISION_CHOICES)
    async def fit(
        self,
        interaction: discord.Interaction,
        model: str,
        gpu: str,
        task: Choice[str] | None = None,
        method: Choice[str] | None = None,
        precision: Choice[str] | None = None,
        batch: Batch | None = None,
        seq_len: SeqLen | None = None,
        count: Count | None = None,
    ) -> None:
        found_model = await self._resolve(interaction, model, "model", "model")
        if found_model is None:
            return
        found_gpu = await self._resolve(interaction, gpu, "gpu", "gpu")
        if found_gpu is None:
            return
        query = Query(
            intent=Intent.FIT,
            models=(found_model[0],),
            gpus=(found_gpu[0],),
            task=_enum(Task, task),
            method=_enum(Method, method),
            precision=_enum(Precision, precision),
            batch_size=batch,
            seq_len=seq_len,
            num_gpus=count or 1,
            text=_describe(
                "fit",
                model=found_model[0],
                gpu=found_gpu[0],
                task=task,
                method=method,
                precision=precision,
                batch=batch,
                seq_len=seq_len,
                count=count,
            ),
        )
        await self._run(interaction, query)

    @app_commands.command(name="compare", description="Two cards side by side: memory, speed, price.")
    @app_commands.describe(
        first="The first card (start typing to search).",
        second="The second card (start typing to search).",
        model="Compare for this model (optional; start typing to search).",
        first_count="How many of the first card (default 1), e.g. 2 for '2x 3090 vs 4090'.",
        second_count="How many of the second card (default 1).",
    )
    async def compare(
        self,
        interaction: discord.Interaction,
        first: str,
        second: str,
        model: str | None = None,
        first_count: Count | None = None,
        second_count: Count | None = None,
    ) -> None:
        a = await self._resolve(interaction, first, "gpu", "first")
        if a is None:
            return
        b = await self._resolve(interaction, second, "gpu", "second")
        if b is None:
            return
        models: tuple[str, ...] = ()
        if model:
            m = await self._resolve(interaction, model, "model", "model")
            if m is None:
                return
            models = (m[0],)
        counts = (first_count or 1, second_count or 1)
        query = Query(
            intent=Intent.COMPARE,
            gpus=(a[0], b[0]),
            models=models,
            num_gpus=max(counts),
            gpu_counts=counts if counts[0] != counts[1] else (),
            text=_describe(
                "compare",
                first=a[0],
                second=b[0],
                model=models[0] if models else None,
                first_count=first_count,
                second_count=second_count,
            ),
        )
        await self._run(interaction, query)

    @app_commands.command(name="info", description="Facts about one card or one model.")
    @app_commands.describe(name="A card or a model (start typing to search).")
    async def info(self, interaction: discord.Interaction, name: str) -> None:
        found = await self._resolve(interaction, name, "any", "name")
        if found is None:
            return
        ident, kind = found
        query = Query(
            intent=Intent.INFO,
            gpus=(ident,) if kind == "gpu" else (),
            models=(ident,) if kind == "model" else (),
            text=_describe("info", name=ident),
        )
        await self._run(interaction, query)

    @app_commands.command(name="list", description="The cards and models the advisor knows.")
    @app_commands.describe(kind="GPUs or models (default: both).")
    @app_commands.choices(kind=LIST_CHOICES)
    async def list_(self, interaction: discord.Interaction, kind: Choice[str] | None = None) -> None:
        query = Query(intent=Intent.LIST, list_kind=_opt(kind), text=_describe("list", kind=kind))
        await self._run(interaction, query)

    @app_commands.command(name="help", description="What the advisor can answer, with examples.")
    @app_commands.describe(
        topic="Pick 'memory' for how memory is estimated (the formulas and their sources)."
    )
    @app_commands.choices(topic=[Choice(name="memory formulas", value="memory")])
    async def help_(self, interaction: discord.Interaction, topic: Choice[str] | None = None) -> None:
        text = "/gpu help memory" if topic is not None and topic.value == "memory" else "/gpu help"
        extra = None if topic is not None else "help.discord_setup"
        await self.advisor.answer_interaction(
            interaction, Query(intent=Intent.HELP, text=text), use_context=False, extra_key=extra
        )

    # -- saved rig ------------------------------------------------------------------

    rig = app_commands.Group(
        name="rig", description="Your saved rig, used when you ask “can I run X?” or say “my card”."
    )

    @rig.command(name="set", description="Save your rig: the card, how many, RAM and budget.")
    @app_commands.describe(
        gpu="Your graphics card (start typing to search).",
        count="How many of these cards (default 1).",
        ram_gb="System RAM in GB (optional).",
        budget="Your budget in US dollars for an upgrade (optional).",
    )
    async def rig_set(
        self,
        interaction: discord.Interaction,
        gpu: str,
        count: app_commands.Range[int, 1, MAX_RIG_COUNT] = 1,
        ram_gb: app_commands.Range[float, 0.5, MAX_RAM_GB] | None = None,
        budget: app_commands.Range[int, 1, 10_000_000] | None = None,
    ) -> None:
        lang = await self.advisor.lang_for_interaction(interaction)
        if not await self._rig_store_up(interaction, lang):
            return
        made = build_rig(
            gpu,
            count,
            None if ram_gb is None else float(ram_gb),
            None if budget is None else float(budget),
            catalog=self.advisor.catalog,
        )
        if isinstance(made, RigProblem):
            await self.advisor.notify(interaction, await self._rig_problem(interaction, made, lang))
            return
        assert self.advisor.store is not None
        if not await self.advisor.store.put_rig(interaction.user.id, made):
            await self.advisor.notify(interaction, t(lang, "rig.store_down"))
            return
        await self.advisor.notify(interaction, t(lang, "rig.saved", rig=self.advisor.rig_text(made, lang)))

    @rig.command(name="show", description="Show your saved rig.")
    async def rig_show(self, interaction: discord.Interaction) -> None:
        lang = await self.advisor.lang_for_interaction(interaction)
        if not await self._rig_store_up(interaction, lang):
            return
        assert self.advisor.store is not None
        saved = await self.advisor.store.get_rig(interaction.user.id)
        if not self.advisor.store.available:
            await self.advisor.notify(interaction, t(lang, "rig.store_down"))
        elif saved is None:
            await self.advisor.notify(interaction, t(lang, "rig.none"))
        else:
            await self.advisor.notify(
                interaction, t(lang, "rig.show", rig=self.advisor.rig_text(saved, lang))
            )

    @rig.command(name="clear", description="Delete your rig and everything else I keep about you.")
    async def rig_clear(self, interaction: discord.Interaction) -> None:
        lang = await self.advisor.lang_for_interaction(interaction)
        if not await self._rig_store_up(interaction, lang):
            return
        assert self.advisor.store is not None
        if not await self.advisor.store.clear_user(interaction.user.id):
            await self.advisor.notify(interaction, t(lang, "rig.store_down"))
            return
        self.advisor.contexts.drop_user(interaction.user.id)
        await self.advisor.notify(interaction, t(lang, "rig.cleared"))

    async def _rig_store_up(self, interaction: discord.Interaction, lang: Lang) -> bool:
        store = self.advisor.store
        if store is None or not store.available:
            await self.advisor.notify(interaction, t(lang, "rig.store_down"))
            return False
        return True

    async def _rig_problem(self, interaction: discord.Interaction, problem: RigProblem, lang: Lang) -> str:
        code = problem.code
        if code is RigProblemCode.UNKNOWN_GPU:
            text = t(
                lang,
                "discord.unknown_name",
                kind=t(lang, "discord.kind.gpu"),
                value=truncate(problem.value, 80),
                option="gpu",
            )
            names = [self.advisor.name_of("gpu", g) for g in problem.suggestions]
            if names:
                text += t(
                    lang, "discord.did_you_mean", names=t(lang, "sep.list").join(f"**{n}**" for n in names)
                )
            return text + t(lang, "discord.pick_from_list", hint=LIST_HINT["gpu"])
        if code is RigProblemCode.BAD_COUNT:
            return t(lang, "rig.bad_count", max=MAX_RIG_COUNT, value=truncate(problem.value, 40))
        if code is RigProblemCode.BAD_RAM:
            return t(lang, "rig.bad_ram", max=f"{MAX_RAM_GB:g}", value=truncate(problem.value, 40))
        return t(lang, "rig.bad_budget", max="10,000,000", value=truncate(problem.value, 40))

    # -- autocomplete ---------------------------------------------------------------

    @recommend.autocomplete("model")
    @fit.autocomplete("model")
    @compare.autocomplete("model")
    async def _model_autocomplete(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return await _complete(self.advisor.matcher, current, "model")

    @fit.autocomplete("gpu")
    @rig_set.autocomplete("gpu")
    @compare.autocomplete("first")
    @compare.autocomplete("second")
    async def _gpu_autocomplete(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return await _complete(self.advisor.matcher, current, "gpu")

    @info.autocomplete("name")
    async def _any_autocomplete(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return await _complete(self.advisor.matcher, current, "any")
