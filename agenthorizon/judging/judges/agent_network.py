"""What an agent may reach over the network: its endpoints, and how each gets into its namespace.

Each sandboxed agent has a network namespace with loopback only. A
:class:`NetworkPlan` lists what it may reach: a loopback endpoint is forwarded
at its own address and port; a remote ``https`` one goes through an
allow-listed ``CONNECT`` proxy. ``"host"`` is the opt-out. Pure: URLs in, argv
and records out (docs/security.md, "Items are blind to each other over the network").
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit

__all__ = [
    "AGENT_NETWORKS",
    "DEFAULT_AGENT_NETWORK",
    "NETWORK_HOST",
    "NETWORK_ISOLATED",
    "PROXY_PORT",
    "PROXY_SOCKET",
    "Endpoint",
    "NetworkPlan",
    "parse_endpoint",
]

NETWORK_ISOLATED, NETWORK_HOST = "isolated", "host"
AGENT_NETWORKS = (NETWORK_ISOLATED, NETWORK_HOST)
DEFAULT_AGENT_NETWORK = NETWORK_ISOLATED
PROXY_PORT = 3128
"""The port of the ``CONNECT`` proxy inside the namespace (the next free one if an endpoint uses it)."""
PROXY_SOCKET = "proxy.sock"
# Ports below this one need CAP_NET_BIND_SERVICE in the namespace, which the agent's user lacks.
_FIRST_UNPRIVILEGED_PORT = 1024
_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK_NAMES = ("localhost", "localhost.localdomain")
_LOCAL_NAMES = {"127.0.0.1", "::1", "localhost"}


@dataclass(frozen=True)
class Endpoint:
    """One URL an agent may reach, and where it was found (``source``: ``--agent-endpoint``, a variable, a file)."""

    url: str
    scheme: str
    host: str
    port: int
    source: str

    @property
    def loopback(self) -> bool:
        """Whether the endpoint is on this machine's loopback (forwarded), not remote (proxied)."""
        if self.host.lower() in _LOOPBACK_NAMES:
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def parse_endpoint(url: str, source: str) -> Endpoint:
    """The :class:`Endpoint` of ``url``, or ``ValueError`` naming ``source`` and what was expected.

    A loopback endpoint needs a port >= 1024 (the agent's unprivileged user
    opens it inside the namespace); a remote one must be ``https`` (it goes
    through a ``CONNECT`` proxy).

    >>> parse_endpoint("http://127.0.0.1:8000/v1", "--agent-endpoint")
    Endpoint(url='http://127.0.0.1:8000/v1', scheme='http', host='127.0.0.1', port=8000, source='--agent-endpoint')
    >>> parse_endpoint("https://api.anthropic.com", "default").port
    443
    >>> parse_endpoint("ftp://x", "--agent-endpoint")
    Traceback (most recent call last):
    ...
    ValueError: --agent-endpoint: agent endpoint 'ftp://x' is not an http(s) URL with a host; expected e.g. http://127.0.0.1:8000/v1 or https://api.openai.com
    """
    text = str(url).strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(
            f"{source}: agent endpoint {text!r} is not an http(s) URL with a host; expected e.g. "
            "http://127.0.0.1:8000/v1 or https://api.openai.com"
        )
    endpoint = Endpoint(text, parts.scheme, parts.hostname, port or _DEFAULT_PORTS[parts.scheme], source)
    if endpoint.loopback and endpoint.port < _FIRST_UNPRIVILEGED_PORT:
        raise ValueError(
            f"{source}: loopback endpoint {text!r} uses port {endpoint.port}; the agent's namespace can only "
            f"open ports >= {_FIRST_UNPRIVILEGED_PORT} for it: serve the model on such a port"
        )
    if not endpoint.loopback and endpoint.scheme != "https":
        raise ValueError(
            f"{source}: remote endpoint {text!r} is plain http; agents reach remote endpoints only over https "
            "(through an allow-listed CONNECT proxy), or pass --agent-network host"
        )
    return endpoint


@dataclass(frozen=True)
class NetworkPlan:
    """An agent's network: ``mode`` (``isolated`` or ``host``) and the endpoints it may reach.

    >>> plan = NetworkPlan.build("isolated", [("http://127.0.0.1:8000/v1", "ANTHROPIC_BASE_URL"),
    ...                                       ("https://api.openai.com/v1", "default")])
    >>> [route for route in plan.routes()]
    [('127.0.0.1', 8000, '0.sock'), ('127.0.0.1', 3128, 'proxy.sock')]
    >>> plan.agent_env()["HTTPS_PROXY"], plan.tunnels
    ('http://127.0.0.1:3128', (('api.openai.com', 443),))
    """

    mode: str
    endpoints: tuple[Endpoint, ...] = ()

    @classmethod
    def build(cls, mode: str, urls: Iterable[tuple[str, str]]) -> NetworkPlan:
        """A plan from ``(url, source)`` pairs, duplicates dropped; ``ValueError`` for a bad mode or URL."""
        if mode not in AGENT_NETWORKS:
            raise ValueError(f"agent_network must be one of {AGENT_NETWORKS}, got {mode!r}")
        endpoints: list[Endpoint] = []
        for url, source in urls:
            endpoint = parse_endpoint(url, source)
            if all(endpoint.url != known.url for known in endpoints):
                endpoints.append(endpoint)
        return cls(mode, tuple(endpoints))

    @property
    def isolated(self) -> bool:
        return self.mode == NETWORK_ISOLATED

    @property
    def forwards(self) -> tuple[tuple[str, int], ...]:
        """The loopback ``(host, port)`` pairs forwarded into the namespace, each once."""
        return tuple(dict.fromkeys((e.host, e.port) for e in self.endpoints if e.loopback))

    @property
    def tunnels(self) -> tuple[tuple[str, int], ...]:
        """The remote ``(host, port)`` pairs the ``CONNECT`` proxy tunnels to, each once."""
        return tuple(dict.fromkeys((e.host.lower(), e.port) for e in self.endpoints if not e.loopback))

    @property
    def proxy_port(self) -> int:
        taken = {port for _, port in self.forwards}
        port = PROXY_PORT
        while port in taken:
            port += 1
        return port

    def routes(self) -> list[tuple[str, int, str]]:
        """``(address, port, socket name)`` of each listener inside the namespace.

        A forwarded endpoint listens on its own port (on ``::1`` when named so,
        else ``127.0.0.1``); the proxy, when there is a remote endpoint, on :attr:`proxy_port`.
        """
        routes = []
        for index, (host, port) in enumerate(self.forwards):
            address = "::1" if host == "::1" else "127.0.0.1"
            routes.append((address, port, f"{index}.sock"))
        if self.tunnels:
            routes.append(("127.0.0.1", self.proxy_port, PROXY_SOCKET))
        return routes

    def targets(self) -> dict[str, tuple[str, int] | None]:
        """Socket name -> the host endpoint it relays to (``None``: the allow-listed proxy)."""
        targets: dict[str, tuple[str, int] | None] = {
            f"{index}.sock": forward for index, forward in enumerate(self.forwards)}
        if self.tunnels:
            targets[PROXY_SOCKET] = None
        return targets

    def agent_env(self) -> dict[str, str]:
        """Variables that send the agent's remote requests through the proxy, and loopback ones past it."""
        if not self.isolated or not self.tunnels:
            return {}
        proxy = f"http://127.0.0.1:{self.proxy_port}"
        local = ",".join(sorted(_LOCAL_NAMES))
        return {"HTTPS_PROXY": proxy, "https_proxy": proxy, "NO_PROXY": local, "no_proxy": local,
                "NODE_USE_ENV_PROXY": "1"}

    def relay_argv(self, python: str, relay: Path, folder: Path) -> list[str]:
        """The prefix that starts the listeners inside the namespace, then the agent (after its ``--``)."""
        if not self.isolated or not self.routes():
            return []
        listen = [f"[{address}]:{port}={name}" if ":" in address else f"{address}:{port}={name}"
                  for address, port, name in self.routes()]
        # A client may resolve "localhost" to ::1 first: listen there too, where the namespace has IPv6.
        listen += [f"?[::1]:{port}={index}.sock" for index, (host, port) in enumerate(self.forwards)
                   if host.lower() in _LOOPBACK_NAMES]
        return [python, "-I", "-S", str(relay), str(folder), *listen, "--"]

    def record(self, *, sandboxed: bool) -> dict[str, Any]:
        """The run record's ``network`` block: the mode as it applies, and each endpoint, its source and route."""
        mode = self.mode if sandboxed else "host (unconfined agent)"
        return {
            "mode": mode,
            "namespace": sandboxed and self.isolated,
            "endpoints": [
                {"url": e.url, "from": e.source,
                 "via": ("host network" if not (sandboxed and self.isolated) else
                         "forwarded" if e.loopback else "CONNECT proxy")}
                for e in self.endpoints
            ],
        }

    def describe(self, *, sandboxed: bool) -> str:
        """One line for ``--dry-run``: what the agent's network reaches."""
        if not sandboxed:
            return "network: the host's (unconfined agent): every service this machine reaches"
        if not self.isolated:
            return ("network: the host's (--agent-network host): every service on 127.0.0.1 and the other "
                    "items' agents are in reach")
        if not self.endpoints:
            return "network: a namespace of its own with nothing in reach (no endpoint)"
        shown = ", ".join(f"{e.url} ({'forwarded' if e.loopback else 'CONNECT proxy'}; from {e.source})"
                          for e in self.endpoints)
        return f"network: a namespace of its own; reaches only {shown}"
