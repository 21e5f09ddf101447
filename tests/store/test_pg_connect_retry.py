"""Connecting to a server whose socket's listen queue is full is waited for, like a full server.

Hundreds of commands at once against one PostgreSQL fill its Unix socket's listen queue before
they exceed its slots; the kernel then refuses a connect with "Resource temporarily
unavailable" (EAGAIN). That is a busy server, not a wrong address: retried within the bound.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("psycopg")

from deskd.store.pg import busy_server, open_pg


@pytest.fixture
def full_socket(tmp_path: Path) -> Iterator[str]:
    """A ``postgresql://`` URL whose Unix socket listens, never accepts, and has no room left."""
    port = 5999
    folder = tmp_path / "sock"
    folder.mkdir()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(folder / f".s.PGSQL.{port}"))
    server.listen(0)
    waiting = []
    while True:  # fill the listen queue
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.setblocking(False)
        try:
            client.connect(str(folder / f".s.PGSQL.{port}"))
        except BlockingIOError:
            client.close()
            break
        waiting.append(client)
        assert len(waiting) < 1000, "the listen queue never filled"
    try:
        yield f"postgresql://deskd@/deskd?host={folder}&port={port}"
    finally:
        for client in waiting:
            client.close()
        server.close()


def test_a_full_listen_queue_is_a_busy_server_worth_waiting_for(full_socket: str) -> None:
    from deskd.errors import StoreUnreachable

    with pytest.raises(StoreUnreachable) as caught:
        open_pg(full_socket, busy_ms=1000, retry_s=0)
    assert "Resource temporarily unavailable" in str(caught.value)
    assert busy_server(caught.value)


def test_a_refused_socket_is_still_not_retried(tmp_path: Path) -> None:
    from deskd.errors import StoreUnreachable

    url = f"postgresql://deskd@/deskd?host={tmp_path}&port=5999"  # nothing listens there
    with pytest.raises(StoreUnreachable) as caught:
        open_pg(url, busy_ms=1000, retry_s=0)
    assert not busy_server(caught.value)
