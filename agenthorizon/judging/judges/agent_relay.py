"""The listeners inside an agent's network namespace: ``127.0.0.1:PORT`` relayed to a unix socket of the harness.

Run by the sandbox before the agent (standard library only, ``-I -S``)::

    python -I -S agent_relay.py FOLDER 127.0.0.1:8000=0.sock [?[::1]:8000=0.sock] ... -- COMMAND ...

It binds every listener (``?``: may fail, e.g. IPv6 where the namespace has
none), detaches a relay process that lives as long as the namespace, and
execs ``COMMAND``, which keeps its exit status. Each connection is relayed
both ways to the socket ``FOLDER/NAME``. A listener that cannot be bound exits
126 with the reason on stderr. Run, never imported: it imports nothing of the package.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time

_CHUNK = 2**20
_BIND_FAILED = 126


def _listen(address: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(128)
    return listener


def _pump(source: socket.socket, target: socket.socket, finished: threading.Semaphore, pair: list) -> None:
    try:
        while True:
            data = source.recv(_CHUNK)
            if not data:
                break
            target.sendall(data)
        target.shutdown(socket.SHUT_WR)  # pass the half-close on: HTTP clients wait for it
    except OSError:
        pass
    if not finished.acquire(blocking=False):  # the second direction done: close both
        for connection in pair:
            connection.close()


def _relay(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        upstream.close()
        client.close()
        return
    finished, pair = threading.Semaphore(1), [client, upstream]
    for source, target in ((client, upstream), (upstream, client)):
        threading.Thread(target=_pump, args=(source, target, finished, pair), daemon=True).start()


def _accept(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:  # out of descriptors, say: wait rather than spin
            time.sleep(0.1)
            continue
        _relay(client, path)


def main(argv: list[str]) -> None:
    if "--" not in argv or argv.index("--") < 1 or argv.index("--") == len(argv) - 1:
        sys.stderr.write("agent_relay: expected FOLDER ADDRESS:PORT=NAME ... -- COMMAND ...\n")
        sys.exit(2)
    split = argv.index("--")
    folder, routes, command = argv[0], argv[1:split], argv[split + 1:]
    # Sockets are reached through a descriptor of their folder: a unix socket path is at most 107 bytes,
    # the item's folder may be deeper than that.
    directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    listeners = []
    for route in routes:
        optional = route.startswith("?")
        address, _, name = route.lstrip("?").partition("=")
        host, _, port = address.rpartition(":")
        try:
            listeners.append((_listen(host.strip("[]"), int(port)), f"/proc/self/fd/{directory}/{name}"))
        except OSError as error:
            if optional:
                continue
            sys.stderr.write(f"agenthorizon: cannot open the agent's endpoint {address} in its network "
                             f"namespace ({error.strerror})\n")
            sys.exit(_BIND_FAILED)
    if os.fork() == 0:
        # Detached (the grandchild, adopted by the namespace's first process), so that an agent that
        # waits for all its children never waits for the relay.
        if os.fork() != 0:
            os._exit(0)
        threads = [threading.Thread(target=_accept, args=pair, daemon=True) for pair in listeners]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        os._exit(0)
    os.wait()
    for listener, _ in listeners:
        listener.close()
    os.close(directory)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
