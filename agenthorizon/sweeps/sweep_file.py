"""The sweep file: a TOML description of a grid of judge runs, read into a :class:`Sweep`.

Shape (every key but ``data``, ``configs`` and one ``[[judge]]`` with a
``spec`` is optional)::

    data = "release"              # a release root (relative to this file) or a Hub repo id
    out = "sweep-runs"            # one run folder per judge x config x ablation below this
    configs = ["AH", "AH-S"]
    ablations = ["", "screenshots"]   # each a comma-separated list of parts; "" withholds nothing
    shards = 2
    throttle = 8                  # Slurm: at most this many array tasks of one judge at once
    [resources]                   # defaults of every judge's [judge.resources]
    cpus = 4
    [[judge]]
    spec = "openai:my-model"
    name = "qwen"                 # folder name (default: the spec, made safe)
    options = { base-url = "http://127.0.0.1:{port}/v1", images = "none", concurrency = 4 }
    server = "vllm serve my-model --port {port}"
    server_timeout = 900          # seconds to wait for /v1/models (default 600)
    resources = { cpus = 8, mem = "32G", time = "04:00:00", partition = "gpu", gpus = 1 }

Judge options are the ``judge`` command's flags without their dashes, checked
by a callable the caller passes. Every error names the file and the line.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from agenthorizon.judging.ablation import parse_ablation
from agenthorizon.schema import CONFIG_NAMES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["JudgeEntry", "Resources", "Sweep", "SweepFileError", "key_line", "parse_sweep", "read_sweep", "server_port"]

DEFAULT_SERVER_TIMEOUT = 600.0
"""Seconds a cell waits for its model server's ``/v1/models`` to answer."""

_TOP_KEYS = {"data", "out", "configs", "ablations", "shards", "throttle", "resources", "judge", "kubernetes"}
_JUDGE_KEYS = {"spec", "name", "options", "server", "server_timeout", "resources"}
_RESOURCE_KEYS = {"cpus": int, "mem": str, "time": str, "partition": str, "gpus": int}
_KUBERNETES_KEYS = {"image": str, "namespace": str}
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_HEADER = re.compile(r"^\s*\[(\[)?\s*([^\]]+?)\s*\]")

# options(judge spec, option mapping) -> problems as (option name or None, message).
OptionCheck = Callable[[str, Mapping[str, Any]], Sequence[tuple[str | None, str]]]


class SweepFileError(ValueError):
    """A sweep file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Resources:
    """What one array task asks the scheduler for; ``None``: the scheduler's default."""

    cpus: int | None = None
    mem: str | None = None
    time: str | None = None
    partition: str | None = None
    gpus: int | None = None


@dataclass(frozen=True)
class JudgeEntry:
    """One ``[[judge]]`` table: the spec, its ``judge`` options, its model server and resources."""

    spec: str
    name: str
    options: dict[str, Any] = field(default_factory=dict)
    server: str | None = None
    server_timeout: float = DEFAULT_SERVER_TIMEOUT
    resources: Resources = Resources()


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file. ``data`` is a local path (resolved against the file's folder) or a Hub id."""

    path: Path
    data: str
    out: Path
    configs: tuple[str, ...]
    ablations: tuple[tuple[str, ...], ...]
    shards: int
    judges: tuple[JudgeEntry, ...]
    throttle: int | None = None
    kubernetes: dict[str, str] = field(default_factory=dict)
    text: str = field(default="", repr=False)


def key_line(text: str, key: str, table: str | None = None, index: int = 0) -> int | None:
    """The 1-based line of ``key`` in TOML ``text``: at the top level, or in the ``index``-th ``[[table]]``.

    Keys in an inline table or a sub-table of that block are found too; ``None`` when the key is not written.

    >>> key_line('a = 1\\n[[judge]]\\nspec = "x"\\n[[judge]]\\nspec = "y"\\noptions = { images = "none" }', "images", "judge", 1)
    6
    """
    lines = text.splitlines()
    start, end, seen = 0, len(lines), -1
    if table is not None:
        start = None
        for number, line in enumerate(lines):
            match = _HEADER.match(line)
            if match and match.group(2) == table and match.group(1):
                seen += 1
                if seen == index:
                    start = number
                elif seen == index + 1:
                    end = number
                    break
        if start is None:
            return None
    else:
        end = next((n for n, line in enumerate(lines) if _HEADER.match(line)), len(lines))
    pattern = re.compile(r'(^|[{,\s])["\']?' + re.escape(key) + r'["\']?\s*=')
    for number in range(start, end):
        if pattern.search(lines[number].split("#", 1)[0]):
            return number + 1
    return start + 1 if table is not None else None


def server_port(server: str, options: Mapping[str, Any]) -> int | None:
    """The port of a server command without ``{port}``: the one of its judge's ``base-url``; else ``None``.

    >>> server_port("vllm serve m --port 8000", {"base-url": "http://127.0.0.1:8000/v1"})
    8000
    """
    from urllib.parse import urlsplit

    url = options.get("base-url")
    try:
        return urlsplit(url).port if isinstance(url, str) else None
    except ValueError:
        return None


class _Reader:
    """Errors of one sweep file, each with its line."""

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text = path, text

    def error(self, message: str, key: str | None = None, table: str | None = None, index: int = 0) -> SweepFileError:
        line = key_line(self.text, key, table, index) if key else None
        where = f"{self.path}, line {line}" if line else str(self.path)
        return SweepFileError(f"{where}: {message}")

    def typed(self, data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str,
              table: str | None = None, index: int = 0) -> Any:
        value = data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
            raise self.error(f"{key!r} must be {what}, got {value!r}", key, table, index)
        return value


def read_sweep(path: str | os.PathLike[str], check_options: OptionCheck | None = None) -> Sweep:
    """Read and check the sweep file at ``path`` (:func:`parse_sweep`); FileNotFoundError, or :class:`SweepFileError` naming the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such sweep file; expected a TOML file (see examples/sweep.toml)") from None
    return parse_sweep(text, path, check_options)


def parse_sweep(text: str, path: str | os.PathLike[str], check_options: OptionCheck | None = None) -> Sweep:
    """The :class:`Sweep` a sweep file's ``text`` describes; ``path`` names it in errors and anchors ``data`` and ``out``.

    ``check_options(spec, options)`` returns a judge's option problems as
    ``(option name or None, message)`` pairs. Raises :class:`SweepFileError`
    naming the line for bad TOML, an unknown key, config, ablation part, judge
    or option, or a wrong type.

    >>> sweep = parse_sweep('data = "r"\\nconfigs = ["AH"]\\n[[judge]]\\nspec = "lexical"\\n', "/tmp/s.toml")
    >>> sweep.configs, sweep.shards, [judge.name for judge in sweep.judges], str(sweep.out)
    (('AH',), 1, ['lexical'], '/tmp/sweep-runs')
    """
    path = Path(path)
    reader = _Reader(path, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SweepFileError(f"{path}: not valid TOML ({error}); expected a sweep file as in examples/sweep.toml") from None
    for key in data:
        if key not in _TOP_KEYS:
            raise reader.error(f"unknown key {key!r}; expected one of {', '.join(sorted(_TOP_KEYS))}", key)
    for key in ("data", "configs", "judge"):
        if key not in data:
            raise reader.error(f"missing {key!r}; a sweep names its data, its configs and at least one [[judge]]")
    base = path.parent
    raw_data = reader.typed(data, "data", str, "a release root or Hub repo id")
    local = base / raw_data
    data_root = str(local.resolve()) if local.exists() or raw_data.startswith((".", "/")) else raw_data
    out = base / reader.typed(data, "out", str, "a folder") if "out" in data else base / "sweep-runs"
    configs = reader.typed(data, "configs", list, "a list of config names")
    for config in configs:
        if config not in CONFIG_NAMES:
            raise reader.error(f"unknown config {config!r}; expected one of {', '.join(CONFIG_NAMES)}", "configs")
    if not configs or len(set(configs)) != len(configs):
        raise reader.error("'configs' must list each config once, at least one", "configs")
    ablations = _ablations(reader, data)
    shards = reader.typed(data, "shards", int, "a whole number >= 1") if "shards" in data else 1
    if shards < 1:
        raise reader.error(f"'shards' must be >= 1, got {shards}", "shards")
    throttle = reader.typed(data, "throttle", int, "a whole number >= 1") if "throttle" in data else None
    if throttle is not None and throttle < 1:
        raise reader.error(f"'throttle' must be >= 1, got {throttle}", "throttle")
    defaults = _resources(reader, data.get("resources", {}), None, 0, "resources")
    kubernetes = data.get("kubernetes", {})
    for key, value in kubernetes.items():
        if not isinstance(value, _KUBERNETES_KEYS.get(key, ())):
            raise reader.error(f"[kubernetes] {key!r}: expected one of {', '.join(_KUBERNETES_KEYS)} as text", key, "kubernetes")
    tables = data["judge"]
    if not isinstance(tables, list) or not tables:
        raise reader.error("'judge' must be [[judge]] tables, at least one", "judge")
    judges = tuple(_judge(reader, table, index, defaults, check_options) for index, table in enumerate(tables))
    names: dict[str, int] = {}
    for index, judge in enumerate(judges):
        if judge.name in names:
            raise reader.error(
                f"judge {judge.spec!r} has the folder name {judge.name!r} of judge {names[judge.name] + 1}; "
                "give one of them a distinct 'name'", "spec", "judge", index)
        names[judge.name] = index
    return Sweep(path=path, data=data_root, out=out.resolve(), configs=tuple(configs), ablations=ablations,
                 shards=shards, judges=judges, throttle=throttle, kubernetes=dict(kubernetes), text=text)


def _ablations(reader: _Reader, data: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    if "ablations" not in data:
        return ((),)
    values = reader.typed(data, "ablations", list, 'a list of part lists such as ["", "screenshots"]')
    parsed = []
    for value in values:
        if not isinstance(value, str):
            raise reader.error(f"each ablation must be text such as \"instruction,actions\", got {value!r}", "ablations")
        try:
            parsed.append(parse_ablation(value, "ablations"))
        except ValueError as error:
            raise reader.error(str(error), "ablations") from None
    if not parsed or len(set(parsed)) != len(parsed):
        raise reader.error("'ablations' must list each ablation once, at least one", "ablations")
    return tuple(parsed)


def _resources(reader: _Reader, data: Any, table: str | None, index: int, key: str,
               defaults: Resources | None = None) -> Resources:
    if not isinstance(data, dict):
        raise reader.error(f"{key!r} must be a table of {', '.join(_RESOURCE_KEYS)}", key, table, index)
    values = dict(vars(defaults)) if defaults else {}
    for name, value in data.items():
        kind = _RESOURCE_KEYS.get(name)
        if kind is None:
            raise reader.error(f"unknown resource {name!r}; expected {', '.join(_RESOURCE_KEYS)}", name, table, index)
        if not isinstance(value, kind) or isinstance(value, bool) or (kind is int and value < 0):
            what = "a whole number >= 0" if kind is int else "text"
            raise reader.error(f"resource {name!r} must be {what}, got {value!r}", name, table, index)
        if name == "mem" and not re.fullmatch(r"\d+[KMGT]?", value.strip().upper()):
            raise reader.error(f"resource 'mem' {value!r}: expected Slurm's form, e.g. 32G or 4000 (megabytes)",
                               name, table, index)
        values[name] = value
    return Resources(**values)


def _judge(reader: _Reader, table: Any, index: int, defaults: Resources, check: OptionCheck | None) -> JudgeEntry:
    if not isinstance(table, dict):
        raise reader.error("each [[judge]] must be a table", "judge")
    for key in table:
        if key not in _JUDGE_KEYS:
            raise reader.error(f"unknown key {key!r} in [[judge]]; expected {', '.join(sorted(_JUDGE_KEYS))}",
                               key, "judge", index)
    if "spec" not in table:
        raise reader.error("a [[judge]] without 'spec'; expected e.g. spec = \"lexical\"", "spec", "judge", index)
    spec = reader.typed(table, "spec", str, "a judge spec such as \"openai:MODEL\"", "judge", index)
    options = reader.typed(table, "options", dict, "a table of judge options", "judge", index) if "options" in table else {}
    server = reader.typed(table, "server", str, "a command line", "judge", index) if "server" in table else None
    timeout = DEFAULT_SERVER_TIMEOUT
    if "server_timeout" in table:
        timeout = float(reader.typed(table, "server_timeout", (int, float), "seconds > 0", "judge", index))
        if timeout <= 0:
            raise reader.error(f"'server_timeout' must be > 0, got {timeout:g}", "server_timeout", "judge", index)
    name = reader.typed(table, "name", str, "a folder name", "judge", index) if "name" in table else spec
    safe = _SAFE.sub("-", name).strip("-.")
    if not safe:
        raise reader.error(f"judge name {name!r} leaves no folder name; expected letters or digits", "spec", "judge", index)
    if server is not None and "{port}" not in server and server_port(server, options) is None:
        raise reader.error("a server command without {port} needs a base-url option with its port (to wait for "
                           "/v1/models there); expected e.g. server = \"vllm serve MODEL --port {port}\"",
                           "server", "judge", index)
    resources = _resources(reader, table.get("resources", {}), "judge", index, "resources", defaults)
    if check is not None:
        for option, message in check(spec, options):
            raise reader.error(message, option or "spec", "judge", index)
    return JudgeEntry(spec=spec, name=safe, options=dict(options), server=server, server_timeout=timeout,
                      resources=resources)
