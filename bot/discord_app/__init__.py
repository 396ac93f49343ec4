"""The Discord adapter: a thin layer over bot.core.answer."""
