"""``DESKD_TEST_PG_URL`` names the PostgreSQL server every test uses, desks or not.

The ``desk`` fixture clears the ``DESKD_*`` variables before a test's fixtures first ask for
``pg_server``; the server's URL must have been read before that, or each test session (each
xdist worker) whose first PostgreSQL test has a desk would start a throwaway cluster of its
own instead, or skip where it cannot.
"""

from __future__ import annotations

from pathlib import Path

from inner_session import run_inner_session

INNER = """
import os
from urllib.parse import urlsplit

import pytest

GIVEN = os.environ["DESKD_TEST_PG_URL"]


def server(url):
    parts = urlsplit(url)
    return parts.netloc, parts.query


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_desk_on_the_given_server(desk):  # no pg_server here: the desk asks for it first
    assert server(desk.url) == server(GIVEN)
"""


def test_a_session_whose_first_test_has_a_desk_uses_the_given_server(
    pg_server: str, tmp_path: Path
) -> None:
    # this session's server: the inner one must use it
    done = run_inner_session(
        tmp_path, {"test_given.py": INNER}, "-p", "no:xdist", DESKD_TEST_PG_URL=pg_server
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout, done.stdout
