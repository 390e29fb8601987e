"""The grid of a sweep: one cell per judge x config x ablation x shard, numbered, each with its run folder.

Cells are numbered judge-major (then config, ablation, shard), from 0, so a
judge's cells are consecutive (one Slurm array per judge). The shards of one
judge x config x ablation share one run folder.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from agenthorizon.sweeps.sweep_file import JudgeEntry, Sweep

__all__ = ["PORT_PLACEHOLDER", "Cell", "Grid", "describe_plan", "judge_argv", "option_argv", "plan_grid", "run_folder", "shard_sizes"]

PORT_PLACEHOLDER = "{port}"
"""In a judge's ``server`` command and options: the port the cell's server listens on."""


@dataclass(frozen=True)
class Cell:
    """One task of a sweep: a judge on one config, ablation and shard.

    ``index``: its number in the sweep; ``position``: its number among its
    judge's cells (the Slurm array index); ``shard``: ``(I, N)``, 1-based;
    ``n_items``: the items of its shard.
    """

    index: int
    position: int
    judge: JudgeEntry
    judge_index: int
    config: str
    ablation: tuple[str, ...]
    shard: tuple[int, int]
    folder: Path
    judge_key: str
    n_items: int
    data: str

    @property
    def name(self) -> str:
        """``judge/config[~ablation]/shard-I-of-N``: how messages name the cell."""
        return f"{self.folder.parent.name}/{self.folder.name}/shard-{self.shard[0]}-of-{self.shard[1]}"

    def argv(self, port: int | None = None) -> list[str]:
        """The ``judge`` command's arguments for this cell (``{port}`` filled in when ``port`` is given)."""
        return judge_argv(self.judge, self.config, self.ablation, self.folder, self.shard, port, self.data)

    def digest(self) -> str:
        """16 hex digits that change when anything the cell does changes: its arguments, server and key."""
        text = json.dumps([self.argv(), self.judge.server, self.judge_key, self.n_items])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Grid:
    """Every cell of a sweep, and the items per config."""

    sweep: Sweep
    cells: tuple[Cell, ...]
    items: dict[str, int]

    def of_judge(self, judge_index: int) -> list[Cell]:
        """The cells of the ``judge_index``-th judge, by position."""
        return [cell for cell in self.cells if cell.judge_index == judge_index]

    def cell(self, index: int) -> Cell:
        """Cell ``index``, or a ``ValueError`` naming the range."""
        if not 0 <= index < len(self.cells):
            raise ValueError(f"cell {index}: the sweep {self.sweep.path} has cells 0..{len(self.cells) - 1}")
        return self.cells[index]


def option_argv(options: Mapping[str, Any]) -> list[str]:
    """A judge's options as ``judge`` flags: ``true`` is the bare flag, a list repeats it, a table is JSON.

    >>> option_argv({"base-url": "http://h/v1", "structured-output": True, "config-dir": ["a", "b"], "extra-body": {"seed": 0}})
    ['--base-url', 'http://h/v1', '--structured-output', '--config-dir', 'a', '--config-dir', 'b', '--extra-body', '{"seed": 0}']
    """
    argv: list[str] = []
    for name, value in options.items():
        flag = f"--{name}"
        if value is True:
            argv.append(flag)
        elif value is False:
            continue  # a switch left off
        elif isinstance(value, list):
            for item in value:
                argv += [flag, str(item)]
        elif isinstance(value, dict):
            argv += [flag, json.dumps(value, sort_keys=True)]
        else:
            argv += [flag, str(value)]
    return argv


def judge_argv(judge: JudgeEntry, config: str, ablation: Sequence[str], folder: Path, shard: tuple[int, int] | None,
               port: int | None = None, data: str = "{data}") -> list[str]:
    """The ``agenthorizon judge`` arguments of one run (``--data`` left as ``{data}`` unless given)."""
    argv = ["--data", data, "--config", config, "--judge", judge.spec, "--out", str(folder)]
    if shard is not None:
        argv += ["--shard", f"{shard[0]}/{shard[1]}"]
    if ablation:
        argv += ["--ablate", ",".join(ablation)]
    argv += option_argv(judge.options)
    if port is not None:
        argv = [word.replace(PORT_PLACEHOLDER, str(port)) for word in argv]
    return argv


def run_folder(sweep: Sweep, judge: JudgeEntry, config: str, ablation: Sequence[str]) -> Path:
    """``<out>/<judge name>/<config>`` (``<config>~without-<parts>`` for an ablation)."""
    return sweep.out / judge.name / (config + (f"~without-{'-'.join(ablation)}" if ablation else ""))


def shard_sizes(n_items: int, shards: int) -> list[int]:
    """Items per shard when ``n_items`` are dealt round-robin over ``shards`` (the runner's assignment).

    >>> shard_sizes(10, 4)
    [3, 3, 2, 2]
    """
    return [len(range(index, n_items, shards)) for index in range(shards)]


def plan_grid(sweep: Sweep, items: Mapping[str, int], key_of: Callable[[JudgeEntry, tuple[str, ...]], str]) -> Grid:
    """Every cell of ``sweep``: ``len(judges) * len(configs) * len(ablations) * shards``, numbered judge-major.

    ``items`` gives the items per config; ``key_of(judge, ablation)`` the judge
    key its runs record (called once per judge and ablation).

    >>> from agenthorizon.sweeps.sweep_file import parse_sweep
    >>> sweep = parse_sweep('data = "r"\\nconfigs = ["AH", "AH-S"]\\nshards = 2\\n[[judge]]\\nspec = "lexical"\\n', "/s/x.toml")
    >>> grid = plan_grid(sweep, {"AH": 5, "AH-S": 4}, lambda judge, ablation: "k")
    >>> [(cell.index, cell.name, cell.n_items) for cell in grid.cells]
    [(0, 'lexical/AH/shard-1-of-2', 3), (1, 'lexical/AH/shard-2-of-2', 2), (2, 'lexical/AH-S/shard-1-of-2', 2), (3, 'lexical/AH-S/shard-2-of-2', 2)]
    """
    cells: list[Cell] = []
    sizes = {config: shard_sizes(items[config], sweep.shards) for config in sweep.configs}
    for judge_index, judge in enumerate(sweep.judges):
        keys = {ablation: key_of(judge, ablation) for ablation in sweep.ablations}
        position = 0
        for config in sweep.configs:
            for ablation in sweep.ablations:
                folder = run_folder(sweep, judge, config, ablation)
                for shard in range(1, sweep.shards + 1):
                    cells.append(Cell(len(cells), position, judge, judge_index, config, ablation, (shard, sweep.shards),
                                      folder, keys[ablation], sizes[config][shard - 1], sweep.data))
                    position += 1
    return Grid(sweep, tuple(cells), {config: items[config] for config in sweep.configs})


def describe_plan(grid: Grid) -> str:
    """The text ``sweep plan`` prints: one line per cell, then the counts."""
    lines = [f"{'cell':>5}  {'judge key':<16}  {'items':>5}  {'shard':>7}  run folder"]
    for cell in grid.cells:
        lines.append(f"{cell.index:>5}  {cell.judge_key:<16}  {cell.n_items:>5}  "
                     f"{cell.shard[0]:>3}/{cell.shard[1]:<3}  {cell.folder}")
    sweep = grid.sweep
    items = ", ".join(f"{config} {count}" for config, count in grid.items.items())
    lines.append(f"{len(grid.cells)} cells = {len(sweep.judges)} judges x {len(sweep.configs)} configs x "
                 f"{len(sweep.ablations)} ablations x {sweep.shards} shards; items: {items}; "
                 f"{sum(cell.n_items for cell in grid.cells)} judgements in all")
    for judge_index, judge in enumerate(sweep.judges):
        if judge.server:
            lines.append(f"judge {judge_index} ({judge.name}) starts its server per cell: {judge.server}")
    return "\n".join(lines) + "\n"
