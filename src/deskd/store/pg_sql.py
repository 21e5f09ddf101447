"""The store's SQLite statements, rewritten once each for PostgreSQL (and cached).

The store writes one dialect: SQLite's. The few places where PostgreSQL reads the same text
differently are rewritten here, on tokens (string literals and quoted names are never
touched):

- ``?`` and ``?N`` placeholders become ``%s`` (and a literal ``%`` becomes ``%%``);
- SQLite's planner hints go (``INDEXED BY``, a unary ``+col``), and ``CROSS JOIN … ON``
  becomes ``INNER JOIN``;
- ``a IS b`` / ``a IS NOT b`` with ``b`` not ``NULL`` become ``IS [NOT] DISTINCT FROM``;
- scalar ``MAX(a, b)`` / ``MIN(a, b)`` (two or more arguments) become ``GREATEST`` / ``LEAST``;
- ``SUM(x IS NOT NULL)`` sums a boolean, which PostgreSQL refuses: the argument is cast;
- in ``ON CONFLICT … DO UPDATE SET``, a bare column on the right of ``=`` is qualified with
  the target table (PostgreSQL finds ``col`` ambiguous between the row and ``excluded``);
- an ``INSERT`` without ``RETURNING`` into a table with an ``id`` identity gets
  ``RETURNING id``, which is how the adapter gives ``lastrowid``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from deskd.store.pg_schema import identity_tables

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<str>'(?:[^']|'')*')
  | (?P<qid>"(?:[^"]|"")*")
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<op><=|>=|<>|!=|==|\|\||[(),.;=<>*+\-/?%])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

# Words that are never a column in the right-hand side of an upsert's SET.
_KEYWORDS = frozenset(
    [
        "and",
        "or",
        "not",
        "is",
        "null",
        "case",
        "when",
        "then",
        "else",
        "end",
        "in",
        "between",
        "like",
        "excluded",
        "true",
        "false",
        "distinct",
        "from",
        "coalesce",
        "greatest",
        "least",
        "max",
        "min",
        "abs",
        "length",
        "lower",
        "upper",
        "where",
        "returning",
        "cast",
        "as",
    ]
)


class Statement(NamedTuple):
    """A named tuple, not a frozen dataclass: building that class costs about a millisecond
    at import, and the session hook imports this module on every tool call of a PostgreSQL
    desk."""

    sql: str
    returns_id: bool  # the adapter reads the id the statement returns as ``lastrowid``
    order: tuple[int, ...] | None = None
    """For numbered placeholders (``?1``): which parameter each ``%s`` takes, in order."""


def _tokens(sql: str) -> list[str]:
    return [m.group(0) for m in _TOKEN.finditer(sql)]


def _significant(tokens: list[str], i: int, step: int) -> int:
    """Index of the next (step=1) or previous (step=-1) non-whitespace token, or -1."""
    i += step
    while 0 <= i < len(tokens):
        if not tokens[i].isspace():
            return i
        i += step
    return -1


def _close(tokens: list[str], open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(tokens)):
        if tokens[i] == "(":
            depth += 1
        elif tokens[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return len(tokens) - 1


def _top_level(tokens: list[str], start: int, stop: int, word: str) -> list[int]:
    """Indexes of ``word`` (case-insensitive) at parenthesis depth 0 in tokens[start:stop]."""
    out, depth = [], 0
    for i in range(start, stop):
        t = tokens[i]
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
        elif depth == 0 and t.lower() == word:
            out.append(i)
    return out


def _scalar_minmax(tokens: list[str]) -> None:
    for i, t in enumerate(tokens):
        low = t.lower()
        if low not in ("max", "min"):
            continue
        j = _significant(tokens, i, 1)
        if j < 0 or tokens[j] != "(":
            continue
        end = _close(tokens, j)
        if _top_level(tokens, j + 1, end, ","):
            tokens[i] = "GREATEST" if low == "max" else "LEAST"


def _boolean_sums(tokens: list[str]) -> None:
    for i, t in enumerate(tokens):
        if t.lower() != "sum":
            continue
        j = _significant(tokens, i, 1)
        if j < 0 or tokens[j] != "(":
            continue
        end = _close(tokens, j)
        if _top_level(tokens, j + 1, end, "is"):
            tokens[j] = "(("
            tokens[end] = ")::int)"


def _is_distinct(tokens: list[str]) -> None:
    for i, t in enumerate(tokens):
        if t.lower() != "is":
            continue
        j = _significant(tokens, i, 1)
        if j < 0:
            continue
        negated = tokens[j].lower() == "not"
        k = _significant(tokens, j, 1) if negated else j
        if k < 0 or tokens[k].lower() in ("null", "true", "false", "distinct"):
            continue
        if negated:
            tokens[i], tokens[j] = "IS DISTINCT", "FROM"
        else:
            tokens[i] = "IS NOT DISTINCT FROM"


def _qualify_upsert(tokens: list[str], table: str) -> None:
    words = [t.lower() for t in tokens]
    for i, w in enumerate(words):
        if w != "do":
            continue
        j = _significant(tokens, i, 1)
        if j < 0 or words[j] != "update":
            continue
        k = _significant(tokens, j, 1)  # SET
        stop = len(tokens)
        for end_word in ("where", "returning"):
            found = _top_level(tokens, k + 1, stop, end_word)
            if found:
                stop = min(stop, found[0])
        _qualify_assignments(tokens, k + 1, stop, table)
        return


def _qualify_assignments(tokens: list[str], start: int, stop: int, table: str) -> None:
    commas = _top_level(tokens, start, stop, ",")
    bounds = [start, *(c + 1 for c in commas), stop + 1]
    for a, b in pairwise(bounds):
        eq = next((x for x in range(a, b - 1) if tokens[x] == "="), None)
        if eq is None:
            continue
        for x in range(eq + 1, b - 1):
            t = tokens[x]
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t) or t.lower() in _KEYWORDS:
                continue
            prev, nxt = _significant(tokens, x, -1), _significant(tokens, x, 1)
            if (prev >= 0 and tokens[prev] == ".") or (nxt >= 0 and tokens[nxt] in ("(", ".")):
                continue
            tokens[x] = f"{table}.{t}"


def _planner_hints(tokens: list[str]) -> None:
    """SQLite's ``INDEXED BY x`` / ``NOT INDEXED`` go; ``CROSS JOIN … ON`` (SQLite: an inner
    join in a fixed order) is PostgreSQL's plain ``JOIN``."""
    for i, t in enumerate(tokens):
        low = t.lower()
        j = _significant(tokens, i, 1)
        if low == "indexed" and j >= 0:
            prev = _significant(tokens, i, -1)
            if tokens[j].lower() == "by":
                k = _significant(tokens, j, 1)
                tokens[i] = tokens[j] = tokens[k] = ""
            elif prev >= 0 and tokens[prev].lower() == "not":
                tokens[prev] = tokens[i] = ""
        elif low == "cross" and j >= 0 and tokens[j].lower() == "join":
            k = j
            for _ in range(4):  # table [AS] alias ON
                k = _significant(tokens, k, 1)
                if k < 0:
                    break
                if tokens[k].lower() == "on":
                    tokens[i] = "INNER"
                    break


_BEFORE_OPERAND = frozenset(
    [
        "(",
        ",",
        "=",
        "<",
        ">",
        "<=",
        ">=",
        "<>",
        "!=",
        "and",
        "or",
        "not",
        "where",
        "on",
        "when",
        "then",
        "else",
        "select",
        "by",
    ]
)


def _unary_plus(tokens: list[str]) -> None:
    """SQLite's ``+col`` (an operand no index may serve) is plain ``col``: PostgreSQL has no
    unary plus on text, and its planner takes no such hint."""
    for i, t in enumerate(tokens):
        if t != "+":
            continue
        prev, nxt = _significant(tokens, i, -1), _significant(tokens, i, 1)
        if nxt < 0 or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", tokens[nxt]):
            continue
        if prev < 0 or tokens[prev].lower() in _BEFORE_OPERAND:
            tokens[i] = ""


def _placeholders(tokens: list[str]) -> tuple[int, ...] | None:
    """``?`` and ``?N`` become ``%s``; returns the parameter order when any was numbered."""
    order: list[int] = []
    numbered = False
    for i, t in enumerate(tokens):
        if t == "?":
            tokens[i] = "%s"
            if i + 1 < len(tokens) and tokens[i + 1].isdigit():
                numbered = True
                order.append(int(tokens[i + 1]) - 1)
                tokens[i + 1] = ""
            else:
                order.append(len(order))
        elif t == "%":
            tokens[i] = "%%"
    return tuple(order) if numbered else None


@lru_cache(maxsize=1024)
def translate(sql: str) -> Statement:
    """The PostgreSQL text of one store statement (pure, cached by its SQLite text)."""
    tokens = _tokens(sql)
    words = [t.lower() for t in tokens if not t.isspace()]
    order = _placeholders(tokens)
    _planner_hints(tokens)
    _unary_plus(tokens)
    _scalar_minmax(tokens)
    _boolean_sums(tokens)
    _is_distinct(tokens)
    returns_id = False
    if words[:2] == ["insert", "into"] and len(words) > 2:
        table = words[2]
        if "do" in words and "update" in words:
            _qualify_upsert(tokens, table)
        if "returning" not in words and table in identity_tables():
            tokens.append(" RETURNING id")
            returns_id = True
    return Statement("".join(tokens), returns_id, order)
