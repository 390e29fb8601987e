"""The harness's side of an agent's endpoints: unix sockets in the item's folder, relayed to the endpoints.

One :class:`Forwarder` per item, in the harness's event loop. For each socket of
the item's :class:`~agenthorizon.judging.judges.agent_network.NetworkPlan`:

- a forwarded endpoint's socket relays every connection to it, byte for byte;
- the proxy socket reads one ``CONNECT host:port`` head (at most :data:`HEAD_LIMIT`
  bytes, :data:`HEAD_TIMEOUT_S` seconds) and tunnels only to the plan's remote
  endpoints; anything else gets ``403`` (``405``: not a ``CONNECT``).

The sockets live in the item's own folder, so no other item can reach them. At
most :data:`MAX_CONNECTIONS` relays are open at once (each costs two descriptors);
more are closed at once.
"""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

from agenthorizon.judging.judges.agent_network import NetworkPlan

__all__ = ["CONNECT_TIMEOUT_S", "HEAD_LIMIT", "HEAD_TIMEOUT_S", "MAX_CONNECTIONS", "Forwarder", "start_forwarder"]

HEAD_LIMIT = 8192
"""The most bytes a ``CONNECT`` request's head may take."""
HEAD_TIMEOUT_S = 30.0
"""Seconds a ``CONNECT`` request's head may take to arrive."""
CONNECT_TIMEOUT_S = 30.0
"""Seconds the harness waits for an endpoint to accept a connection."""
MAX_CONNECTIONS = 64
"""The most relays one item's agent holds open at once."""
_CHUNK = 2**20
_REFUSED_KEPT = 5
# The streams' buffer: asyncio pauses reading at twice its limit (64 KiB by default), so a small one
# caps a relay's throughput.
_BUFFER = 2**20


class Forwarder:
    """The relays of one item's :class:`NetworkPlan`, serving sockets in ``folder``."""

    def __init__(self, plan: NetworkPlan, folder: Path) -> None:
        self.plan = plan
        self.folder = folder
        self.allowed = set(plan.tunnels)
        self._servers: list[asyncio.AbstractServer] = []
        self._tasks: set[asyncio.Task] = set()
        self._open = 0
        self.refused: list[str] = []
        """The first targets the proxy refused (``host:port``), each once: what to say when the agent fails."""
        self.unreachable: list[str] = []
        """The first endpoints (``host:port``) the harness could not connect to, each once."""

    async def start(self) -> None:
        """Bind every socket of the plan in :attr:`folder` and start serving them."""
        directory = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name, target in self.plan.targets().items():
                listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                # Through the folder's descriptor: a unix socket path is at most 107 bytes.
                listener.bind(f"/proc/self/fd/{directory}/{name}")

                def handler(reader, writer, target=target):
                    if self._open >= MAX_CONNECTIONS:
                        writer.close()
                        return None
                    self._open += 1  # counted here, not when its task starts: a burst cannot overshoot
                    return self._track(self._forward(reader, writer, target) if target is not None
                                       else self._proxy(reader, writer))

                self._servers.append(await asyncio.start_unix_server(handler, sock=listener, limit=_BUFFER))
        finally:
            os.close(directory)

    def note(self) -> str:
        """A clause for a failed item's error: targets its proxy refused, endpoints the harness could not reach."""
        note = ""
        if self.refused:
            note += (f"; its network refused {', '.join(self.refused)} (not among its endpoints: "
                     "--agent-endpoint https://HOST adds one)")
        if self.unreachable:
            note += f"; the harness could not reach its endpoint {', '.join(self.unreachable)}"
        return note

    async def close(self) -> None:
        """Stop serving and end every open relay."""
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for server in self._servers:
            await server.wait_closed()

    async def _track(self, work) -> None:
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            await work
        except (OSError, asyncio.TimeoutError, ValueError):  # the peer went away, or sent nonsense
            pass
        finally:
            self._open -= 1
            self._tasks.discard(task)

    async def _forward(self, reader, writer, target: tuple[str, int]) -> None:
        try:
            upstream_reader, upstream_writer = await _connect(target)
        except (OSError, asyncio.TimeoutError):
            _keep(self.unreachable, f"{target[0]}:{target[1]}")
            writer.close()
            return
        await _splice(reader, writer, upstream_reader, upstream_writer)

    async def _proxy(self, reader, writer) -> None:
        try:
            head = await asyncio.wait_for(_read_head(reader), HEAD_TIMEOUT_S)
        except asyncio.TimeoutError:
            head = None
        if head is None:
            writer.close()
            return
        words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
        if len(words) != 3 or words[0].upper() != "CONNECT":
            await _refuse(writer, b"405 Method Not Allowed")
            return
        host, _, port = words[1].rpartition(":")
        target = (host.strip("[]").lower(), int(port) if port.isdigit() else -1)
        if target not in self.allowed:
            _keep(self.refused, words[1][:200])
            await _refuse(writer, b"403 Forbidden")
            return
        try:
            upstream_reader, upstream_writer = await _connect(target)
        except (OSError, asyncio.TimeoutError):
            _keep(self.unreachable, words[1][:200])
            await _refuse(writer, b"502 Bad Gateway")
            return
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await _splice(reader, writer, upstream_reader, upstream_writer)


def _keep(kept: list[str], target: str) -> None:
    if target not in kept and len(kept) < _REFUSED_KEPT:
        kept.append(target)


async def start_forwarder(plan: NetworkPlan, folder: Path) -> Forwarder | None:
    """The started :class:`Forwarder` serving sockets in ``folder`` (made here); ``None`` when nothing is forwarded."""
    if not plan.isolated or not plan.routes():
        return None
    folder.mkdir()
    forwarder = Forwarder(plan, folder)
    await forwarder.start()
    return forwarder


async def _read_head(reader) -> bytes | None:
    """A request's head through its blank line, or ``None`` past :data:`HEAD_LIMIT` bytes or at the end."""
    head = b""
    while b"\r\n\r\n" not in head:
        if len(head) > HEAD_LIMIT:
            return None
        # One byte at a time: what follows the head is the client's TLS, which must stay in the stream.
        byte = await reader.read(1)
        if not byte:
            return None
        head += byte
    return head


async def _connect(target: tuple[str, int]):
    return await asyncio.wait_for(asyncio.open_connection(*target, limit=_BUFFER), CONNECT_TIMEOUT_S)


async def _refuse(writer, status: bytes) -> None:
    writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    try:
        await writer.drain()
    finally:
        writer.close()


async def _splice(reader, writer, upstream_reader, upstream_writer) -> None:
    """Copy both directions until each has ended, passing each half-close on; then close both."""

    async def pump(source, target) -> None:
        target.transport.set_write_buffer_limits(high=_BUFFER)  # drain at 1 MiB, not 64 KiB
        try:
            while data := await source.read(_CHUNK):
                target.write(data)
                await target.drain()
            if target.can_write_eof():
                target.write_eof()
        except OSError:
            pass

    try:
        await asyncio.gather(pump(reader, upstream_writer), pump(upstream_reader, writer))
    finally:
        writer.close()
        upstream_writer.close()
