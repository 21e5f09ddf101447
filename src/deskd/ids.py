"""The one parser for the numbers people type: ids and counts. Stdlib only.

Every id and count the CLI (click's commands and the fast dispatch alike) and the console
read goes through ``parse_int``: ASCII digits only (``str.isdigit`` also accepts ``²`` and
Arabic-Indic ``١``, and ``int()`` the latter), within the range the option allows and never
past SQLite's signed 64-bit INTEGER (PostgreSQL's BIGINT), so a number is refused here with
the option's name and range instead of overflowing in the database driver. The length is
checked before ``int()``: a 5,000-digit string would otherwise hit Python's own limit.
"""

from __future__ import annotations

from deskd.errors import InvalidValue

MAX_INT = 2**63 - 1
"""The largest integer SQLite (and PostgreSQL's BIGINT) stores."""

_MAX_DIGITS = len(str(MAX_INT))


def parse_int(text: object, what: str, *, low: int = 1, high: int = MAX_INT) -> int:
    """``text`` as an integer in ``low``..``high``, else ``InvalidValue`` naming ``what``."""
    value = str(text)
    negative = value[:1] == "-" and low < 0
    digits = value[1:] if negative else value
    number: int | None = None
    if digits and digits.isascii() and digits.isdigit():
        trimmed = digits.lstrip("0") or "0"
        if len(trimmed) <= _MAX_DIGITS:
            number = -int(trimmed) if negative else int(trimmed)
    if number is None or not low <= number <= high:
        raise InvalidValue(what, shown(value), expected(low, high))
    return number


def parse_ids(values: object, what: str = "--id") -> list[int]:
    """Ids given as ``--id 3 --id 4`` or ``--id 3,4`` (one string or several)."""
    texts = [values] if isinstance(values, str) else list(values)  # type: ignore[call-overload]
    parts = (p.strip() for value in texts for p in str(value).split(","))
    return [parse_int(p, what) for p in parts if p]


def expected(low: int, high: int) -> str:
    """The valid range in words, as every refusal of a number says it."""
    return f"a whole number from {low} to {high}, in ASCII digits"


def shown(value: str, width: int = 40) -> str:
    """``value`` short enough for a one-line message (a 1 MB argument is not echoed back)."""
    return value if len(value) <= width else value[:width] + f"… ({len(value)} characters)"
