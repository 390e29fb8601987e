"""``agenthorizon sweep``: a grid of judges x configs x ablations x shards, on Slurm, Kubernetes or a shell loop.

Examples::

    agenthorizon sweep plan sweep.toml                 # every cell, its run folder and judge key; writes nothing
    agenthorizon sweep submit sweep.toml --dry-run     # the sbatch scripts, one per judge
    agenthorizon sweep submit sweep.toml               # sbatch them; job ids go to the sweep's state file
    agenthorizon sweep run sweep.toml --cell 7         # one cell (K from SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX)
    agenthorizon sweep status sweep.toml               # pending / running / done / partial / failed per cell
    agenthorizon sweep submit sweep.toml --only-unfinished
    agenthorizon sweep collect sweep.toml              # the grid's leaderboard (exit 2 if shards do not merge)
    agenthorizon sweep submit sweep.toml --scheduler kubernetes --dry-run > job.json

A cell runs the ``judge`` command itself, with the sweep file's options as
its flags (resume included). Exit status: ``run`` returns the judge command's;
``collect`` 2 when shards are missing, overlap or disagree.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from typing import Any, Mapping, Sequence

HELP = "Plan, submit (Slurm, Kubernetes), run, follow and collect a sweep of judges x configs from a TOML file."

# Flags the sweep sets itself, or that would change which items a shard holds.
_SET_BY_SWEEP = {"data": "data", "config": "configs", "judge": "spec", "out": "out", "shard": "shards",
                 "ablate": "ablations"}
_NOT_IN_SWEEP = ("dry-run", "help", "no-progress", "limit", "exclude-dev", "dev-groups", "dev-manifest")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    plan = actions.add_parser("plan", help="print every cell with its run folder and judge key; writes nothing")
    run = actions.add_parser("run", help="run one cell (what each scheduler task calls)")
    run.add_argument("--cell", type=int, metavar="K",
                     help="cell index (default: SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX)")
    run.add_argument("--judge", type=int, metavar="J",
                     help="K counts the cells of the J-th judge (0-based) only: how a judge's Slurm array calls it")
    status = actions.add_parser("status", help="each cell's state and item counts, from the run folders, squeue and sacct")
    submit = actions.add_parser("submit", help="submit one array per judge (Slurm), or print an Indexed Job (Kubernetes)")
    submit.add_argument("--scheduler", choices=("slurm", "kubernetes"), default="slurm", help="default slurm")
    submit.add_argument("--dry-run", action="store_true", help="print the scripts (or the Job manifest), submit nothing")
    submit.add_argument("--only-unfinished", action="store_true",
                        help="submit only the cells that are not done and not running (resume does the rest)")
    collect = actions.add_parser("collect", help="the grid's leaderboard; exit 2 when shards are missing or disagree")
    from agenthorizon.cli._common import add_bootstrap_arguments
    from agenthorizon.report.tables import FORMATS

    add_bootstrap_arguments(collect, default=0)
    collect.add_argument("--format", default="markdown", choices=FORMATS, help="output format (default markdown)")
    collect.add_argument("--out", metavar="FILE", help="write the table here instead of standard output")
    collect.add_argument("--report", metavar="DIR",
                         help="also write the HTML report of each config's runs (as `agenthorizon report`) to DIR/CONFIG.html")
    for sub in (plan, run, status, submit, collect):
        sub.add_argument("file", metavar="FILE", help="the sweep file (TOML; see examples/sweep.toml)")


class _Refusing(argparse.ArgumentParser):
    """The ``judge`` parser for checking a sweep's options: an error is raised, not printed and exited."""

    def error(self, message: str) -> Any:  # noqa: D102 - argparse's hook
        raise ValueError(message)


def judge_parser() -> argparse.ArgumentParser:
    """The ``agenthorizon judge`` argument parser itself, raising ``ValueError`` on bad arguments."""
    from agenthorizon.cli import judge

    parser = _Refusing(prog="agenthorizon judge", add_help=False)
    judge.add_arguments(parser)
    return parser


class JudgeCommand:
    """The ``judge`` command as the sweep uses it: option checks, judge keys, and running a cell's arguments."""

    def __init__(self) -> None:
        self.parser = judge_parser()
        self.flags = {option[2:] for option in self.parser._option_string_actions if option.startswith("--")}
        self.data: str | None = None

    def check(self, spec: str, options: Mapping[str, Any]) -> list[tuple[str | None, str]]:
        """The problems of one judge's ``options`` as ``(option, message)``; the first stops the read."""
        from agenthorizon.sweeps.grid import PORT_PLACEHOLDER, option_argv

        for name in options:
            if name in _SET_BY_SWEEP:
                return [(name, f"option {name!r} is set by the sweep (its {_SET_BY_SWEEP[name]!r}), not per judge")]
            if name in _NOT_IN_SWEEP or name not in self.flags:
                known = ", ".join(sorted(self.flags - set(_SET_BY_SWEEP) - set(_NOT_IN_SWEEP)))
                what = "not a sweep option" if name in _NOT_IN_SWEEP else "unknown judge option"
                return [(name, f"{what} {name!r}; expected the judge command's flags without dashes: {known}")]
        # Any port will do: the server URL is not part of the judge key.
        argv = ["--data", "-", "--config", "AH", "--judge", spec, "--out", "-",
                *(word.replace(PORT_PLACEHOLDER, "1") for word in option_argv(options))]
        try:
            self.key(argv)
        except ValueError as error:
            text = str(error)
            named = next((name for name in options if f"--{name}" in text), None)
            return [(named, f"judge {spec!r}: {text}")]
        return []

    def build(self, argv: Sequence[str]) -> tuple[argparse.Namespace, Any]:
        from agenthorizon.cli.judge import enforced_options, judge_options
        from agenthorizon.judging.judges import make_judge

        args = self.parser.parse_args(list(argv))
        with warnings.catch_warnings():
            # Said by the cell's own run (`--sandbox none` and the like), not once per plan or status.
            warnings.simplefilter("ignore")
            return args, make_judge(args.judge, **judge_options(args), **enforced_options(args))

    def key(self, argv: Sequence[str], data_root: str | None = None) -> str:
        """The judge key the run of ``argv`` records (as the runner builds its record)."""
        from agenthorizon.judging.ablation import parse_ablation
        from agenthorizon.judging.runs.records import RunRecord

        args, judge = self.build(argv)
        if data_root is not None and os.path.isdir(data_root) and judge.needs_release:
            judge.bind_release(data_root)  # the release prompt's sha256 is part of the key
        ablation = parse_ablation([*parse_ablation(args.ablate), *parse_ablation(judge.ablation)])
        return RunRecord.build({**judge.spec(), "reask": args.reask}, None, ablation).judge_key

    def run(self, argv: Sequence[str]) -> int:
        from agenthorizon.cli import judge

        return judge.run(self.parser.parse_args([*argv, "--no-progress"]))


def _grid(path: str) -> tuple[Any, Any, JudgeCommand]:
    from agenthorizon.sweeps.grid import judge_argv, plan_grid
    from agenthorizon.sweeps.release_items import config_items
    from agenthorizon.sweeps.sweep_file import read_sweep

    command = JudgeCommand()
    sweep = read_sweep(path, command.check)
    items = config_items(sweep.data, sweep.configs)

    def key_of(judge, ablation):
        argv = judge_argv(judge, sweep.configs[0], ablation, sweep.out, None, port=1, data=sweep.data)
        return command.key(argv, sweep.data)

    grid = plan_grid(sweep, {config: len(found.ids) for config, found in items.items()}, key_of)
    return grid, items, command


def run(args: argparse.Namespace) -> int:
    from agenthorizon.sweeps.server import ServerError
    from agenthorizon.sweeps.slurm import SlurmError

    action = {"plan": _plan, "run": _run, "status": _status, "submit": _submit, "collect": _collect}[args.action]
    try:
        return action(args)
    except (ServerError, SlurmError) as error:
        # A server that did not come up: the cell can be run again (exit 1); a missing or failing Slurm: exit 2.
        print(f"agenthorizon sweep {args.action}: error: {error}", file=sys.stderr)
        return 1 if isinstance(error, ServerError) else 2


def _plan(args: argparse.Namespace) -> int:
    from agenthorizon.sweeps.grid import describe_plan

    grid, _, _ = _grid(args.file)
    sys.stdout.write(describe_plan(grid))
    return 0


def _run(args: argparse.Namespace) -> int:
    from agenthorizon.sweeps.cell_run import cell_from_environment, run_cell

    grid, items, command = _grid(args.file)
    index = args.cell if args.cell is not None else cell_from_environment(os.environ)
    if args.judge is not None:
        if not 0 <= args.judge < len(grid.sweep.judges):
            raise ValueError(f"--judge {args.judge}: the sweep has judges 0..{len(grid.sweep.judges) - 1}")
        cells = grid.of_judge(args.judge)
        if not 0 <= index < len(cells):
            raise ValueError(f"cell {index} of judge {args.judge}: that judge has cells 0..{len(cells) - 1}")
        cell = cells[index]
    else:
        cell = grid.cell(index)
    print(f"agenthorizon sweep: cell {cell.index} ({cell.name}), judge key {cell.judge_key}", file=sys.stderr)
    return run_cell(cell, items[cell.config], command.run)


def _statuses(grid: Any, items: Any) -> tuple[list[Any], list[str], list[str]]:
    from agenthorizon.sweeps.slurm import ended_states, queue_states
    from agenthorizon.sweeps.state import changed_cells, read_state
    from agenthorizon.sweeps.status import cell_status

    state = read_state(grid)
    latest = state.latest_jobs()
    slurm_ids = sorted({job.job_id for job in latest.values() if job.scheduler == "slurm"})
    queued, note = queue_states(slurm_ids)
    ended, ended_note = ended_states(slurm_ids) if slurm_ids and note is None else ({}, None)
    statuses = []
    for cell in grid.cells:
        job = latest.get(cell.index)
        key = None if job is None else (job.job_id, cell.position)
        # The queue's word for a task still there; otherwise how it ended (sacct, or scontrol).
        word = "" if key is None else queued.get(key) or ended.get(key, "")
        statuses.append(cell_status(cell, items[cell.config], word))
    return statuses, changed_cells(grid, state), [line for line in (note, ended_note) if line]


def _status(args: argparse.Namespace) -> int:
    from agenthorizon.sweeps.status import describe_status

    grid, items, _ = _grid(args.file)
    statuses, changed, notes = _statuses(grid, items)
    sys.stdout.write(describe_status(statuses, changed, notes))
    return 0


def _submit(args: argparse.Namespace) -> int:
    grid, items, _ = _grid(args.file)
    cells = list(grid.cells)
    if args.only_unfinished:
        from agenthorizon.sweeps.status import unfinished

        cells = unfinished(_statuses(grid, items)[0])
        if not cells:
            print("agenthorizon sweep: every cell is done or running; nothing to submit")
            return 0
    if args.scheduler == "kubernetes":
        return _submit_kubernetes(args, grid, cells)
    from agenthorizon.sweeps.slurm import agenthorizon_command, sbatch_script, submit_script
    from agenthorizon.sweeps.state import read_state, record_submission, write_state

    state = read_state(grid)
    for judge_index, judge in enumerate(grid.sweep.judges):
        mine = [cell for cell in cells if cell.judge_index == judge_index]
        if not mine:
            continue
        script = sbatch_script(grid, judge_index, mine, agenthorizon_command())
        if args.dry_run:
            sys.stdout.write(f"# --- judge {judge_index} ({judge.name}): {len(mine)} cells\n{script}\n")
            continue
        (grid.sweep.out / judge.name / "slurm").mkdir(parents=True, exist_ok=True)
        job_id = submit_script(script)
        record_submission(state, "slurm", job_id, judge_index, mine)
        write_state(grid, state)  # after each job: a later failure keeps the ids of those submitted
        print(f"judge {judge_index} ({judge.name}): job {job_id}, {len(mine)} cells "
              f"({', '.join(str(cell.index) for cell in mine)})")
    return 0


def _submit_kubernetes(args: argparse.Namespace, grid: Any, cells: list[Any]) -> int:
    from agenthorizon.sweeps.kubernetes import indexed_job

    if not args.dry_run:
        raise ValueError("--scheduler kubernetes: pass --dry-run and apply the manifest it prints with "
                         "`kubectl apply -f job.json` (this command talks to no cluster)")
    if len(cells) != len(grid.cells):
        raise ValueError("--scheduler kubernetes --only-unfinished: an Indexed Job runs every index; re-apply the "
                         "whole Job instead (finished cells resume at once with nothing to judge)")
    sys.stdout.write(json.dumps(indexed_job(grid), indent=2) + "\n")
    return 0


def _collect(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import write_output
    from agenthorizon.report.scored_runs import LEADERBOARD_CONFIGS
    from agenthorizon.report.tables import render_leaderboard
    from agenthorizon.sweeps.collect import collect, partial_notes

    grid, items, _ = _grid(args.file)
    collected = collect(grid, items, bootstrap=args.bootstrap, seed=args.seed)
    board = collected.board
    notes = [*partial_notes(collected.partial), *board.notes]
    write_output(render_leaderboard(board, LEADERBOARD_CONFIGS, args.format, manifests=board.manifests, notes=notes),
                 args.out)
    if args.report:
        from agenthorizon.sweeps.collect import write_grid_reports

        for path in write_grid_reports(grid, args.report, bootstrap=args.bootstrap, seed=args.seed):
            print(f"wrote {path}", file=sys.stderr)
    return 0
