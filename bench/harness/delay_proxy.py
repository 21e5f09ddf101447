"""A loopback TCP proxy to a unix socket that holds each chunk a fixed delay each way.

It stands in for the network between deskd and a PostgreSQL server (``tc netem`` is not in
every kernel). It runs in a process of its own, one thread, sleeping in ``epoll`` until the
next chunk is due: the proxy takes no interpreter lock of the benchmarked process. ``epoll``
waits whole milliseconds, so the last one before a chunk is due is slept in 0.2 ms steps,
checking the sockets between them (``select``'s microseconds would cap it at 1,024
sockets): about 1 ms of CPU a hook call at one stream, 0.2 ms at 32, where many chunks share
each step (docs/performance.md).

It counts round trips: a client's chunk after the server's last answer (or the first) starts
one, however many chunks it takes. ``SIGUSR1`` prints the count so far.

    python bench/harness/delay_proxy.py UNIX_SOCKET DELAY_S   # prints its port, then serves
"""

from __future__ import annotations

import heapq
import selectors
import signal
import socket
import subprocess
import sys
import time
from contextlib import suppress
from itertools import count
from pathlib import Path
from typing import Any


def serve(target: str, delay: float) -> None:
    sel = selectors.DefaultSelector()
    listener = socket.create_server(("127.0.0.1", 0), backlog=512)
    sel.register(listener, selectors.EVENT_READ)
    # when, order, sink, chunk (b"": its source ended), the pair: [halves ended, its sockets,
    # whether the client spoke last]
    due: list[tuple[float, int, socket.socket, bytes, list[Any]]] = []
    order = count()
    trips = [0]
    signal.signal(signal.SIGUSR1, lambda *_: print(trips[0], flush=True))
    print(listener.getsockname()[1], flush=True)
    while True:
        wait = None if not due else due[0][0] - time.perf_counter()
        ready = sel.select(None if wait is None else max(0.0, wait - 0.001))
        if not ready and wait is not None and wait < 0.001:
            time.sleep(min(max(wait, 0.0), 0.0002))
        for key, _ in ready:
            if key.fileobj is listener:
                client, _ = listener.accept()
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as libpq's own
                upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                upstream.connect(target)
                pair: list[Any] = [0, client, upstream, False]
                for a, b in ((client, upstream), (upstream, client)):
                    sel.register(a, selectors.EVENT_READ, (b, pair))
                continue
            source = key.fileobj
            sink, pair = key.data
            try:
                chunk = source.recv(65536)  # type: ignore[union-attr]
            except OSError:
                chunk = b""
            if not chunk:
                sel.unregister(source)
            elif (source is pair[1]) != pair[3]:  # the other side speaks now
                pair[3] = not pair[3]
                trips[0] += pair[3]  # the client's turn: a round trip begins
            heapq.heappush(due, (time.perf_counter() + delay, next(order), sink, chunk, pair))
        now = time.perf_counter()
        while due and due[0][0] <= now:
            _, _, sink, chunk, pair = heapq.heappop(due)
            with suppress(OSError):
                if chunk:
                    sink.sendall(chunk)
                else:
                    sink.shutdown(socket.SHUT_WR)
            if not chunk:
                pair[0] += 1
                if pair[0] == 2:  # both halves ended: the pair is done
                    for sock in pair[1:3]:
                        sock.close()


class DelayProxy:
    """The proxy in a child process: ``port`` to connect to; ``close()`` ends it."""

    def __init__(self, target: str, delay: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__)), target, str(delay)], stdout=subprocess.PIPE
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def round_trips(self) -> int:
        """Round trips forwarded so far, over every connection."""
        assert self.proc.stdout is not None
        self.proc.send_signal(signal.SIGUSR1)
        return int(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()


if __name__ == "__main__":
    serve(sys.argv[1], float(sys.argv[2]))
