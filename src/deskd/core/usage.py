"""What one launch used, as its agent CLI reported it (docs/contract.md "Usage").

Every CLI is read into the same four token kinds, which never overlap, so their sum is what
the model processed: ``input`` (prompt tokens not read from the cache), ``output`` (the
model's output, reasoning included), ``cache_read`` and ``cache_write`` (prompt-cache reads
and writes). A figure the CLI did not report stays None: unknown is not zero.
"""

from __future__ import annotations

from typing import NamedTuple

TOKEN_KINDS = ("input", "output", "cache_read", "cache_write")


class Usage(NamedTuple):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    model: str | None = None

    def plus(self, other: Usage) -> Usage:
        """Both summed figure by figure (None only where neither reported it); the first model
        named is kept (a run's main model is named before its side calls finish)."""

        def add(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        tokens = (add(a, b) for a, b in zip(self[:4], other[:4], strict=True))
        return Usage._make((*tokens, self.model or other.model))
