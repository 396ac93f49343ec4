"""Exception hierarchy of the advisor core.

Every error meant for a user (or an operator running ``python -m bot check``)
has a one-line ``str()``; surfaces print it instead of a traceback.
"""

from __future__ import annotations

__all__ = ["AdvisorError", "KnowledgeError"]


class AdvisorError(Exception):
    """Base class of every error the advisor core raises on purpose."""


class KnowledgeError(AdvisorError):
    """A knowledge file is missing, unreadable or fails validation.

    Carries where the problem is (``file``, ``entry``, ``field``, ``line``) and
    what it is (``problem``). ``str()`` is one readable line, e.g.::

        knowledge/gpus.yaml: gpu 'rtx-4090', field 'vram_gb': must be a positive number, got -24
    """

    def __init__(
        self,
        file: str,
        problem: str,
        *,
        entry: str | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.problem = problem
        self.entry = entry
        self.field = field
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        parts = [where]
        if self.entry is not None:
            parts.append(self.entry)
        if self.field is not None:
            parts.append(f"field '{self.field}'")
        head = parts[0] + ": " + ", ".join(parts[1:]) if len(parts) > 1 else parts[0]
        return f"{head}: {self.problem}"

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self):  # keep picklable despite keyword-only arguments
        return (
            _rebuild_knowledge_error,
            (self.file, self.problem, self.entry, self.field, self.line),
        )


def _rebuild_knowledge_error(
    file: str, problem: str, entry: str | None, field: str | None, line: int | None
) -> KnowledgeError:
    return KnowledgeError(file, problem, entry=entry, field=field, line=line)
