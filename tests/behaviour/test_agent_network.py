"""Each confined agent has a network of its own (issue 30 section 4.1): two hostile agents running at
once cannot meet over loopback TCP or an abstract unix socket, reach no 127.0.0.1 service of the host,
see no host socket in /proc/net/tcp, and reach exactly the endpoint they are given.

Real bubblewrap, as root here and in CI; the agents are scripts run by the real CLI
(``python -m agenthorizon judge``). ``--agent-network host`` is the control: the same agents on the
host's network do meet, which proves each check can fail."""

from __future__ import annotations

import json
import socket
import sys
import threading

import pytest

from test_untrusted_agents import cli, results

TRIES = 8

# Both agents do the same: bind a TCP port and an abstract unix socket that serve their own item id,
# then try TRIES times to reach "the other" there; a try meets when the id that answers is not their own.
# Then: the host's own service (not declared), the declared endpoint, and /proc/net/tcp.
MEET = r"""
import json, os, re, socket, sys, threading, time
tid = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", sys.stdin.read()).group(0)
ports = json.loads(os.environ["AH_PORTS"])
TRIES = %d

def serve(listener):
    while True:
        connection, _ = listener.accept()
        connection.sendall(tid.encode())
        connection.close()

def listen(family, address):
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.bind(address)
    except OSError:  # taken: by the other agent, when both share a network
        return
    listener.listen(8)
    threading.Thread(target=serve, args=(listener,), daemon=True).start()

def ask(family, address, greeting=b""):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as connection:
            connection.settimeout(3)
            connection.connect(address)
            if greeting:
                connection.sendall(greeting)
            return connection.recv(200).decode(errors="replace")
    except OSError as error:
        return "refused: " + type(error).__name__

channels = {"tcp": (socket.AF_INET, ("127.0.0.1", ports["meet"])),
            "abstract": (socket.AF_UNIX, "\0agenthorizon-meet-" + ports["token"])}
for family, address in channels.values():
    listen(family, address)
met = {name: [] for name in channels}
for _ in range(TRIES):
    for name, (family, address) in channels.items():
        answer = ask(family, address)
        met[name].append(answer if answer != tid and not answer.startswith("refused") else "")
    time.sleep(0.5)
report = {
    "tid": tid,
    "met": {name: [answer for answer in answers if answer] for name, answers in met.items()},
    "host_service": ask(socket.AF_INET, ("127.0.0.1", ports["host"]), b"knock"),
    "endpoint": ask(socket.AF_INET, ("127.0.0.1", ports["endpoint"]), tid.encode()),
    "proc_net_tcp": open("/proc/net/tcp").read(),
}
print(json.dumps({"success": True, "reasoning": json.dumps(report)}))
""" % TRIES


class LineServer:
    """A TCP service on the host's 127.0.0.1 answering ``NAME:<what it received>``."""

    def __init__(self, name: str) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.name = name
        self.seen: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(5)
                try:
                    received = connection.recv(200).decode(errors="replace")
                except OSError:
                    received = ""
                self.seen.append(received)
                connection.sendall(f"{self.name}:{received}".encode())

    def close(self) -> None:
        self.listener.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("network", ["isolated", "host"])
def test_two_agents_at_once_never_meet_and_reach_only_their_endpoint(bubblewrap, tiny_root, tmp_path, network):
    host_service, endpoint = LineServer("host-service"), LineServer("endpoint")
    script = tmp_path / "meet.py"
    script.write_text(MEET)
    ports = {"meet": _free_port(), "token": tmp_path.name, "host": host_service.port, "endpoint": endpoint.port}
    out = tmp_path / "run"
    try:
        process = cli(tiny_root, out, f"command:{sys.executable} {script}", tmp_path / "tmp", "--limit", "2",
                      "--concurrency", "2", "--retries", "0", "--sandbox", "bwrap", "--agent-network", network,
                      "--agent-endpoint", f"http://127.0.0.1:{endpoint.port}/v1", "--env", "AH_PORTS",
                      env={"AH_PORTS": json.dumps(ports)})
        stdout, stderr = process.communicate(timeout=300)
    finally:
        host_service.close()
        endpoint.close()
    assert process.returncode == 0, stderr
    reports = [json.loads(r["verdict"]["reasoning"]) for r in results(out).values()]
    assert len(reports) == 2
    host_port = f":{host_service.port:04X} "
    record = json.loads((out / "run.json").read_text())["judge"]["network"]
    assert record["endpoints"] == [{"url": f"http://127.0.0.1:{endpoint.port}/v1", "from": "--agent-endpoint",
                                    "via": "forwarded" if network == "isolated" else "host network"}]
    # The declared endpoint answers each agent, and it saw each agent's own id only.
    assert sorted(report["endpoint"] for report in reports) == sorted(f"endpoint:{r['tid']}" for r in reports)
    if network == "isolated":
        assert record["mode"] == "isolated" and record["namespace"] is True
        for report in reports:
            assert report["met"] == {"tcp": [], "abstract": []}, report["met"]  # 8 of 8 tries failed, each way
            assert report["host_service"].startswith("refused"), report["host_service"]
            assert host_port not in report["proc_net_tcp"]
            assert f":{endpoint.port:04X} " in report["proc_net_tcp"]  # the forwarder's listener: its own only
        assert host_service.seen == []
    else:  # the control: on the host's network one agent reaches the other on both channels, and the service
        assert record == {"mode": "host", "namespace": False, "endpoints": record["endpoints"]}
        tids = {report["tid"] for report in reports}
        met = [answer for report in reports for answers in report["met"].values() for answer in answers]
        assert met and set(met) <= tids
        assert {name for report in reports for name, answers in report["met"].items() if answers} == {"tcp",
                                                                                                       "abstract"}
        assert all(report["host_service"].startswith("host-service:") for report in reports)
        assert all(host_port in report["proc_net_tcp"] for report in reports)


PROXY = r"""
import json, os, socket, sys
prompt = sys.stdin.read()
proxy = os.environ["HTTPS_PROXY"].rsplit(":", 1)
def connect(target):
    with socket.create_connection((proxy[0].split("//")[1], int(proxy[1])), timeout=60) as connection:
        connection.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        return connection.recv(200).decode(errors="replace").split("\r\n")[0]
answers = {target: connect(target) for target in ("api.allowed.invalid:443", "evil.invalid:443",
                                                  "api.allowed.invalid:8443")}
answers["no_proxy"] = os.environ.get("NO_PROXY")
if os.environ["AH_FAIL"] in prompt:
    sys.exit(1)
print(json.dumps({"success": True, "reasoning": json.dumps(answers)}))
"""


def judge_two(tiny_root, tmp_path, agent: str, *flags: str, env: dict | None = None):
    """The first two items judged under bubblewrap by the script ``agent`` through the real CLI, the second
    item's id in ``AH_FAIL`` (for an agent that fails there): their ids and the finished process."""
    import agenthorizon

    ids = list(agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths",
                                         cache_dir=tmp_path / "cache")["trajectory_id"])[:2]
    script = tmp_path / "agent.py"
    script.write_text(agent)
    process = cli(tiny_root, tmp_path / "run", f"command:{sys.executable} {script}", tmp_path / "tmp", "--limit",
                  "2", "--retries", "0", "--sandbox", "bwrap", *flags, env={**(env or {}), "AH_FAIL": ids[1]})
    stdout, stderr = process.communicate(timeout=300)
    return ids, process, stdout, stderr


def test_a_remote_endpoint_is_reached_through_a_proxy_that_tunnels_to_it_alone(bubblewrap, tiny_root, tmp_path):
    ids, process, stdout, stderr = judge_two(tiny_root, tmp_path, PROXY, "--agent-endpoint",
                                             "https://api.allowed.invalid/v1")
    out = tmp_path / "run"
    assert process.returncode == 1, stderr  # the second item fails, as its agent was told to
    found = results(out)
    # The failed item's error says what its network refused, and how to allow it.
    assert "its network refused evil.invalid:443, api.allowed.invalid:8443 (not among its endpoints: " \
           "--agent-endpoint https://HOST adds one)" in found[ids[1]]["error"], found[ids[1]]["error"]
    answers = json.loads(found[ids[0]]["verdict"]["reasoning"])
    # The listed host and port is tunnelled to (here it cannot be resolved: 502); anything else is refused.
    assert answers["api.allowed.invalid:443"] == "HTTP/1.1 502 Bad Gateway"
    assert answers["evil.invalid:443"] == "HTTP/1.1 403 Forbidden"
    assert answers["api.allowed.invalid:8443"] == "HTTP/1.1 403 Forbidden"
    assert "127.0.0.1" in answers["no_proxy"]
    record = json.loads((out / "run.json").read_text())["judge"]["network"]
    assert record["endpoints"] == [{"url": "https://api.allowed.invalid/v1", "from": "--agent-endpoint",
                                    "via": "CONNECT proxy"}]


def test_the_dry_run_plan_names_the_network_and_the_variables(bubblewrap, tiny_root, tmp_path):
    process = cli(tiny_root, tmp_path / "run", "command:python3 judge.py", tmp_path / "tmp", "--dry-run",
                  "--sandbox", "bwrap", "--agent-endpoint", "http://127.0.0.1:8000/v1", "--env", "AH_X=1")
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "network: a namespace of its own; reaches only http://127.0.0.1:8000/v1 (forwarded; from " \
           "--agent-endpoint)" in stdout
    assert "environment: PATH, LANG" in stdout and "set here: AH_X" in stdout


@pytest.mark.parametrize("url, expected", [
    ("ftp://example.com", "is not an http(s) URL with a host"),
    ("http://127.0.0.1:80/v1", "uses port 80"),
    ("http://api.example.com/v1", "is plain http"),
])
@pytest.mark.slow
def test_a_bad_endpoint_is_refused_before_the_run_naming_it(tiny_root, tmp_path, url, expected):
    process = cli(tiny_root, tmp_path / "run", "command:python3 judge.py", tmp_path / "tmp", "--dry-run",
                  "--agent-endpoint", url)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 2
    assert f"--agent-endpoint: " in stderr and url in stderr and expected in stderr, stderr


HOARD = r"""
import json, os, socket, sys, time
sys.stdin.read()
port = int(os.environ["AH_PORT"])
held = []
for _ in range(150):
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.sendall(b"x")
    held.append(connection)
time.sleep(3)
print(json.dumps({"success": True, "reasoning": str(len(held))}))
"""


def test_an_agent_holds_at_most_64_connections_to_its_endpoint(bubblewrap, tiny_root, tmp_path):
    """Each relayed connection costs the harness two descriptors: an agent hoarding 150 gets 64."""
    from agenthorizon.judging.judges.agent_forwarder import MAX_CONNECTIONS

    listener = socket.create_server(("127.0.0.1", 0), backlog=256)
    accepted: list[socket.socket] = []

    def hold() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=hold, daemon=True).start()
    script = tmp_path / "hoard.py"
    script.write_text(HOARD)
    port = listener.getsockname()[1]
    try:
        process = cli(tiny_root, tmp_path / "run", f"command:{sys.executable} {script}", tmp_path / "tmp",
                      "--limit", "1", "--retries", "0", "--sandbox", "bwrap",
                      "--agent-endpoint", f"http://127.0.0.1:{port}", env={"AH_PORT": str(port)})
        stdout, stderr = process.communicate(timeout=300)
    finally:
        listener.close()
    assert process.returncode == 0, stderr
    assert len(accepted) == MAX_CONNECTIONS == 64
    for connection in accepted:
        connection.close()
