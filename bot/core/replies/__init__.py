"""The per-intent phrasing of answers: data from the engine in, an ``Answer`` out.

``bot.core.answer`` dispatches to these; nothing here parses text or talks to a surface.
"""
