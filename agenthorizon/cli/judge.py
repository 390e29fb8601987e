# Over 500 lines: the `judge` command's argument groups (what, run, model, command) and the options they build, one parser.
"""``agenthorizon judge``: run a judge over a config, resumably, then print its score.

Examples::

    agenthorizon judge --data ./release --config AH-D --judge lexical --out runs/lexical-dev
    agenthorizon judge --data ./release --config AH --judge openai:Qwen/Qwen3-VL-8B-Instruct \\
        --base-url http://gpu-box:8000/v1 --max-images 32 --structured-output --concurrency 32 --out runs/qwen-ah
    agenthorizon judge --data ./release --config AH --judge "command:claude -p" --out runs/claude --shard 1/4
    agenthorizon judge --data ./release --config AH --judge openai:gpt-5.5 --preset paper-direct \\
        --system-prompt direct_system.txt --image-token-budget 8000 --out runs/direct-paper
    agenthorizon judge --data ./release --config AH --judge codex:gpt-5.5 --ablate instruction,actions --out runs/codex-screens-only

Exit status: 0 when every selected item has a result (a valid verdict, or the
judge's own invalid answer); 1 when some items errored or are missing (re-running
the same command resumes them) or ``--max-cost`` stopped the run; 2 for a usage
or input error (including another runner holding the folder).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from agenthorizon.cli._common import (
    EXIT_INCOMPLETE,
    add_bootstrap_arguments,
    add_selection_arguments,
    byte_size,
    incomplete,
    non_negative_int,
)
from agenthorizon.judging.judges.direct_preset import DIRECT_PRESETS
from agenthorizon.judging.judges.agent_network import AGENT_NETWORKS
from agenthorizon.judging.judges.presets import AGENT_TOOLS, HARNESSES, harness_specs
from agenthorizon.judging.runs.reask import REASK_RULES
from agenthorizon.judging.judges.sandbox import SANDBOX_MODES
from agenthorizon.judging.runs.loop import DEFAULT_BREAKER
from agenthorizon.util.terminal_text import printable

HELP = "Run a judge over a config (resumable; one result file per item) and print its score."



def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``agenthorizon judge``, in ``--help`` order: what to judge, how the run goes, each judge kind's own."""
    _add_what_arguments(parser)
    _add_run_arguments(parser)
    _add_model_arguments(parser.add_argument_group("model judges (openai:MODEL)"))
    _add_command_arguments(parser.add_argument_group(f"command judges (command:'CMD', {harness_specs(', ')})"))
    add_bootstrap_arguments(parser, default=1000)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--dry-run", action="store_true",
        help="build the judge, print what its agent would get of this machine (the sandbox's read-only and "
        "read-write host paths, its user, its limits) and exit without judging",
    )


def _add_what_arguments(parser: argparse.ArgumentParser) -> None:
    """Which release and items, which judge and prompt, and the run directory."""
    parser.add_argument("--data", required=True, metavar="ROOT", help="release root (local folder) or Hub repo id")
    add_selection_arguments(parser, from_run=False)
    parser.add_argument("--revision", default=None, help="branch, tag or commit, for a Hub repo id (recorded with its commit)")
    parser.add_argument(
        "--judge",
        required=True,
        metavar="SPEC",
        help=f"lexical | constant[:true|false] | random[:SEED] | openai:MODEL | command:'CMD ARGS' | {harness_specs()} | "
        "gemini-direct:MODEL | codex-direct:MODEL",
    )
    parser.add_argument(
        "--prompt",
        metavar="SOURCE",
        help="model and command judges: 'project' (this project's prompt; default for openai: and command:), "
        "'release' (the release's sandbox/prompt.md + AGENTS.md, as the paper; default for the harness "
        "presets), or a template file with {{TRAJECTORY_ID}} / {{MARKDOWN}} placeholders",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="run directory (re-running resumes it)")
    parser.add_argument(
        "--ablate", metavar="PARTS", type=_ablation,
        help="withhold parts of every judge input, comma-separated: instruction, actions, screenshots "
        "(the paper's information ablations; recorded in run.json and part of the judge's identity)",
    )
    parser.add_argument(
        "--perturb", metavar="NAME[,NAME]", type=_perturbation,
        help="show every item differently, comma-separated: shuffle-screenshots, instruction-last, first-half, "
        "last-half, paraphrase (recorded in run.json and part of the judge's identity; "
        "score the flip rate with `score PERTURBED --against UNPERTURBED`)",
    )


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """How the run goes: concurrency, shard and limit, time, retries and the two stopping rules."""
    parser.add_argument("--concurrency", type=int, default=8, metavar="N", help="items judged at once (default 8)")
    parser.add_argument("--shard", metavar="I/N", help="judge only shard I of N (1-based; sorted-id position mod N)")
    parser.add_argument("--limit", type=non_negative_int, metavar="N", help="judge at most N items (after sharding)")
    parser.add_argument(
        "--timeout", type=float, default=900.0, metavar="S",
        help="seconds one model request may take from start to end (default 900): an openai: request from "
        "connecting to the last byte of the answer or stream (no shorter read limit), a command agent's whole run "
        "(then killed with its sandbox), else one item attempt; each retry gets it again",
    )
    parser.add_argument(
        "--reask", type=non_negative_int, metavar="N",
        help="ask again, in a fresh request, after an answer --reask-when says needs it, up to N more times "
        "(default 0: one answer, or the --preset's; 2 = the benchmark authors' 3 attempts); every answer is kept",
    )
    parser.add_argument(
        "--reask-when", choices=REASK_RULES,
        help="which answers are asked again: invalid (default: no valid verdict, the score's own parse) or "
        "no-success-key (the authors' rule: the whole answer, code fences stripped, is not a JSON object "
        "holding success, whatever its value)",
    )
    parser.add_argument(
        "--retries", type=non_negative_int, default=2, metavar="N",
        help="retries after a transient failure, in one layer (default 2; 0 = one attempt per item)",
    )
    parser.add_argument(
        "--max-cost", type=float, metavar="USD",
        help="the most the run folder's items may cost: one item at a time until a cost is known, then an item "
        "starts only if the highest cost per item so far still fits for it and every item in flight; then exit 1 "
        "(costs come from --price-in/--price-out or the harness's own report; a judge that reports none is refused)",
    )
    parser.add_argument(
        "--max-output-bytes", type=byte_size, metavar="BYTES",
        help="keep at most this much of one answer, its end (an agent's stdout and stderr, or a server's "
        "answer; default 16M; M = MiB = 2^20, MB = 10^6); the result says how many bytes were dropped",
    )
    parser.add_argument(
        "--max-transport-failures", type=non_negative_int, default=DEFAULT_BREAKER, metavar="K",
        help=f"stop the run after K consecutive items could not reach the judge (default {DEFAULT_BREAKER}; 0 = never)",
    )


def _add_model_arguments(model: argparse._ArgumentGroup) -> None:
    """The options of model judges (``openai:MODEL``): each declared once as a setting
    (:mod:`agenthorizon.judging.judges.direct_settings`), then the preset, Gemini's cap and the helper models."""
    from agenthorizon.judging.judges.direct_settings import direct_knobs
    from agenthorizon.judging.judges.knobs import add_flags

    add_flags(model, direct_knobs())
    model.add_argument(
        "--preset", choices=tuple(DIRECT_PRESETS),
        help="paper-direct: the benchmark authors' direct judge (paper layout with timestamps, the whole-input "
        "budget, their re-ask rule with 3 attempts, temperature 0, 2048 tokens, JPEG 60, per-step images); "
        "explicit flags win; run.json records the preset and the effective values",
    )
    model.add_argument(
        "--thinking", action="store_true", default=None,
        help="gemini-direct: the output cap of a thinking model (16,384 tokens instead of 1,024)",
    )
    _add_helper_arguments(model)


def _add_helper_arguments(model: argparse._ArgumentGroup) -> None:
    """Step selection and screenshot summaries: a helper model before the direct judge (docs/judges.md)."""
    model.add_argument(
        "--select-steps", type=int, metavar="K",
        help="send only K steps' screenshots (every step's text stays), chosen by --step-selector; recorded per item",
    )
    model.add_argument(
        "--step-selector", metavar="RULE",
        help="last, even (default), edits, or model:MODEL (a cheap model reads the step texts and names K steps; "
        "its answer is cached per item, so another final model does not pay for it again)",
    )
    model.add_argument(
        "--summarise-with", metavar="MODEL",
        help="a vision model describes each screenshot once (cached per screenshot); the judge reads the "
        "descriptions, no image (load them with agenthorizon.judging.summaries_dataset.load_summaries)",
    )
    model.add_argument("--helper-base-url", metavar="URL", help="server of the selector or summariser (default --base-url)")
    model.add_argument("--helper-price-in", type=float, metavar="USD", help="the helper model's price per 1M input tokens")
    model.add_argument("--helper-price-out", type=float, metavar="USD", help="the helper model's price per 1M output tokens")
    model.add_argument(
        "--model-cache", metavar="DIR",
        help="where selections and summaries are cached (default $AGENTHORIZON_MODEL_CACHE, else "
        "<HF_HOME>/agenthorizon/model-calls)",
    )


def _add_command_arguments(agents: argparse._ArgumentGroup) -> None:
    """The options of command judges: the sandbox and the harness config folders it lets in."""
    agents.add_argument(
        "--sandbox", choices=SANDBOX_MODES,
        help="auto (default: bubblewrap when installed), bwrap, or none (agents run unconfined; warns)",
    )
    agents.add_argument(
        "--agent-tools", choices=AGENT_TOOLS,
        help="what a harness preset's agent may do: paper (default: the authors' permission flags, shell tools "
        "included, inside the sandbox) or read-only (file-reading tools only)",
    )
    agents.add_argument(
        "--reasoning-effort", metavar="LEVEL",
        help=f"a harness preset's reasoning effort, where its CLI has one ({_efforts_help()}); "
        "part of the judge's identity (default: the CLI's own)",
    )
    agents.add_argument(
        "--program", metavar="PATH",
        help="a harness preset's executable when it is not on PATH under its own name (e.g. OpenHands in a "
        "virtual environment of its own: ~/.local/bin/openhands)",
    )
    agents.add_argument(
        "--agent-max-processes", type=_positive_int, metavar="N",
        help="processes and threads one agent may run at once (default 1024; sandboxed agents only)",
    )
    agents.add_argument(
        "--agent-max-memory", type=byte_size, metavar="BYTES",
        help="heap and writable memory per agent process, e.g. 4G (default 8G)",
    )
    agents.add_argument(
        "--agent-max-files", type=_positive_int, metavar="N", help="open files per agent process (default 4096)",
    )
    agents.add_argument(
        "--agent-max-disk", type=byte_size, metavar="BYTES",
        help="what one agent may write in the sandbox, all its folders together (in memory), and the largest "
        "file it may write anywhere, e.g. 2GiB or 2GB (default 1 GiB)",
    )
    agents.add_argument(
        "--agent-endpoint", action="append", metavar="URL",
        help="a URL the agent may reach from its network namespace, repeatable: a loopback one is forwarded "
        "(http://127.0.0.1:8000/v1), a remote https one reached through an allow-listed CONNECT proxy; "
        "presets add the endpoints their variables and config name",
    )
    agents.add_argument(
        "--agent-network", choices=AGENT_NETWORKS,
        help="isolated (default: a network namespace per agent, only its endpoints in reach) or host (the "
        "host's network: every 127.0.0.1 service and the other agents in reach; warns)",
    )
    agents.add_argument(
        "--env", action="append", type=_env_entry, metavar="NAME[=VALUE]",
        help="a variable the agent gets, repeatable: NAME passes this environment's value, NAME=VALUE sets one "
        "(an agent gets only PATH, the locale and its preset's own variables otherwise)",
    )
    agents.add_argument(
        "--config-dir", action="append", metavar="DIR",
        help="a folder passed into the sandbox read-write and shared by every item, for a command judge's own "
        "files; repeatable (harness presets need none: each item gets a private home with copies of their login)",
    )


def _efforts_help() -> str:
    """Each harness with a reasoning effort, its flag and its values (from ``HARNESSES``)."""
    return "; ".join(
        f"{h.name}: {h.effort[0]} {', '.join(h.efforts[:-1])} or {h.efforts[-1]}" for h in HARNESSES.values() if h.efforts
    )


def _ablation(text: str) -> tuple[str, ...]:
    """``--ablate``'s value: part names, comma-separated, or a clear error."""
    from agenthorizon.judging.ablation import parse_ablation

    try:
        return parse_ablation(text, "--ablate")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _perturbation(text: str) -> tuple[str, ...]:
    """``--perturb``'s value: perturbation names, comma-separated, or a clear error."""
    from agenthorizon.judging.perturbation import parse_perturbation

    try:
        return parse_perturbation(text, "--perturb")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _env_entry(text: str) -> tuple[str, str]:
    """``--env``'s value: ``NAME=VALUE``, or ``NAME`` set in this environment, or a usage error saying so."""
    name, equals, value = text.partition("=")
    if not name or not name.replace("_", "a").isalnum() or name[0].isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME or NAME=VALUE with NAME a variable name, got {text!r}")
    if not equals:
        if name not in os.environ:
            raise argparse.ArgumentTypeError(f"{name} is not set in this environment; pass {name}=VALUE or export it")
        value = os.environ[name]
    return name, value


def _positive_int(text: str) -> int:
    """argparse type: an integer > 0."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a whole number > 0, got {text!r}")
    return value


# Which judge takes which option comes from the judges' own signatures (judge_option_names).
def _direct_flags() -> tuple[tuple[str, str, str], ...]:
    """The model-judge flags made from the settings' declarations, as (flag, dest, option)."""
    from agenthorizon.judging.judges.direct_settings import direct_knobs
    from agenthorizon.judging.judges.knobs import CLI_MODEL

    return tuple((k.flag, k.dest, k.option) for k in direct_knobs() if k.flag is not None and k.cli == CLI_MODEL)


_JUDGE_FLAGS = _direct_flags() + (
    ("--thinking", "thinking", "thinking"),
    ("--preset", "preset", "preset"),
    ("--select-steps", "select_steps", "select_steps"),
    ("--step-selector", "step_selector", "step_selector"),
    ("--summarise-with", "summarise_with", "summarise_with"),
    ("--helper-base-url", "helper_base_url", "helper_base_url"),
    ("--helper-price-in", "helper_price_in", "helper_price_input_per_1m"),
    ("--helper-price-out", "helper_price_out", "helper_price_output_per_1m"),
    ("--model-cache", "model_cache", "model_cache_dir"),
    ("--sandbox", "sandbox", "sandbox"),
    ("--agent-tools", "agent_tools", "agent_tools"),
    ("--reasoning-effort", "reasoning_effort", "reasoning_effort"),
    ("--program", "program", "program"),
    ("--config-dir", "config_dir", "config_dirs"),
    ("--agent-endpoint", "agent_endpoint", "agent_endpoints"),
    ("--agent-network", "agent_network", "agent_network"),
    ("--env", "env", "env"),
    ("--max-output-bytes", "max_output_bytes", "max_output_bytes"),
    ("--agent-max-processes", "agent_max_processes", "agent_max_processes"),
    ("--agent-max-memory", "agent_max_memory", "agent_max_memory"),
    ("--agent-max-files", "agent_max_files", "agent_max_files"),
    ("--agent-max-disk", "agent_max_disk", "agent_max_disk"),
)
_KIND_SPECS = {"openai": "openai:MODEL", "command": "command:'CMD'", "codex": "harness preset (codex:MODEL...)",
               "gemini-direct": "gemini-direct:MODEL", "codex-direct": "codex-direct:MODEL"}


def judge_options(args: argparse.Namespace) -> dict:
    """Options for :func:`agenthorizon.judging.judges.make_judge` from the command line (unset ones omitted)."""
    from agenthorizon.judging.judges.factory import judge_option_names

    kind = args.judge.split(":", 1)[0].strip().lower()
    accepted = judge_option_names(kind)
    prompt = _prompt(args.prompt)
    if prompt is not None and "prompt" not in accepted:
        raise ValueError(f"--prompt: an option of model and command judges, not of {args.judge!r}")
    options, refused = {"prompt": prompt}, []
    for flag, dest, name in _JUDGE_FLAGS:
        value = getattr(args, dest, None)
        if value is None:
            continue
        if name in accepted:
            options[name] = dict(value) if name == "env" else value
        else:
            owners = [spec for other, spec in _KIND_SPECS.items() if name in judge_option_names(other)]
            refused.append((flag, " or ".join(owners)))
    if refused:
        owners = " / ".join(sorted({owner for _, owner in refused}))
        raise ValueError(f"{', '.join(flag for flag, _ in refused)}: options of {owners} judges only, not of {args.judge!r}")
    return {k: v for k, v in options.items() if v is not None}


def enforced_options(args: argparse.Namespace) -> dict:
    """Run-wide flags a judge enforces itself: ``--timeout`` (a command judge kills its agent, the OpenAI
    judge bounds each request) and ``--retries`` (the OpenAI judge is the one retry layer for its requests)."""
    from agenthorizon.judging.judges.factory import judge_option_names

    accepted = judge_option_names(args.judge.split(":", 1)[0].strip().lower())
    options = {}
    if "timeout" in accepted:
        options["timeout"] = args.timeout
    if "retries" in accepted:
        options["retries"] = args.retries
    return options


def describe_exposure(judge) -> str:
    """What ``--dry-run`` prints: the host paths the judge's agent would get, its user and its limits."""
    spec = judge.spec()
    lines = [f"judge {spec.get('spec', judge.name)}"]
    if "sandbox" not in spec:
        lines.append("runs no program: nothing of this machine is exposed to it")
        return "\n".join(lines) + "\n"
    shown = spec.get("exposure")
    if shown is None:
        lines.append("sandbox: none -- the agent runs unconfined, with your rights: it can read and write "
                     "everything you can, the release's labels included")
    else:
        lines.append(f"sandbox: bwrap -- the agent runs as {shown['user']} in a user namespace of its own, with no "
                     "capability" + ("" if shown["nested_user_namespaces"] else " and no nested user namespace"))
        lines.append("<item> is a new folder per item, removed after it (work: the item's files; out: its answer "
                     "folder; tmp: TMPDIR; home: a preset's private home; usage: the sandbox's reading of the disk "
                     "budget, which an agent of a root harness cannot write)")
        for kind, title in (("read_only", "read-only"), ("read_write", "read-write"),
                            ("private", "private per item, on the disk budget")):
            lines.append(f"{title}:")
            lines += [f"  {path.lstrip('/') if path.startswith('/<item>') else path}" for path in shown[kind]]
    from agenthorizon.util.sizes import size_text

    limits = spec["limits"]
    parts = [f"{limits['processes']} processes and threads" if limits["processes"] else "processes not limited",
             f"{size_text(limits['memory_bytes'])} of memory per process", f"{limits['open_files']} open files per "
             f"process, the last {size_text(spec['max_output_bytes'])} of output kept"]
    lines.append("limits: " + ", ".join(parts))
    disk = size_text(limits["disk_bytes"])
    lines.append(f"disk: {disk} for all the agent writes in /tmp, /var/tmp, /run, work, tmp and home together (in "
                 f"memory; the item's files are bound in read-only), and {disk} per file anywhere (out included)"
                 if shown is not None else f"disk: {disk} per file (RLIMIT_FSIZE); nothing bounds the total unconfined")
    cgroup = spec.get("cgroup") or {}
    lines.append("cgroup: one per agent, memory.max and pids.max set to the limits above for all its processes"
                 if cgroup.get("used") else f"cgroup: none ({cgroup.get('reason')})")
    if "network" in spec:
        lines.append(judge.network.describe(sandboxed=shown is not None))
        lines.append("environment: " + ", ".join(spec["env_allowed"]) + (
            f"; and set here: {', '.join(spec['env'])}" if spec["env"] else ""))
    return "\n".join(lines) + "\n"


def _prompt(value: str | None) -> str | None:
    """``--prompt``'s value: a prompt source name, or the text of a template file."""
    from agenthorizon.judging.judges.release_prompt import prompt_option

    return prompt_option(value)


def missing_program(judge: Any) -> str | None:
    """Why an agent judge's program cannot be run here (not on ``PATH``, or not an executable file), with the
    install command of a preset; ``None`` when it can, or the judge runs no program."""
    import shutil

    argv = getattr(judge, "argv", None)
    if not argv:
        return None
    program = getattr(judge, "program", None) or argv[0]
    if shutil.which(program, path=judge._environment().get("PATH")) is not None:
        return None
    harness = getattr(judge, "harness", None)
    where = "is not an executable file" if os.sep in program else "is not on PATH"
    return f"{program!r} {where}" + (f": install {harness.title} with `{harness.install}`" if harness else "")


def run(args: argparse.Namespace) -> int:
    import agenthorizon
    from agenthorizon.judging.judges import make_judge
    from agenthorizon.report.tables import render_report
    from agenthorizon.judging.runs.runner import run_judge

    enforced = enforced_options(args)
    judge = make_judge(args.judge, **judge_options(args), **enforced)
    if args.dry_run:
        missing = missing_program(judge)
        if missing:  # said first: the plan is of a run that cannot start yet
            print(f"agenthorizon judge: {missing}; the plan below is what it would get once installed",
                  file=sys.stderr, flush=True)
        sys.stdout.write(describe_exposure(judge))
        return 0
    # Resolved first: a Hub repo's snapshot folder is the root the run records (repo id and commit).
    root = agenthorizon.resolve_release(
        args.data, args.config, images="paths", revision=args.revision, dev_groups=args.dev_groups,
        dev_manifest=args.dev_manifest,
    )
    dataset = agenthorizon.load_dataset(
        root,
        args.config,
        split="test",
        images="paths",  # the judge input reads screenshots lazily from their paths
        exclude_dev=args.exclude_dev,
        dev_groups=args.dev_groups,
        dev_manifest=args.dev_manifest,
    )
    data_options = {"dev_groups": args.dev_groups, "exclude_dev": args.exclude_dev, "dev_manifest": args.dev_manifest}
    summary = run_judge(
        judge,
        dataset,
        args.out,
        config=args.config,
        concurrency=args.concurrency,
        shard=args.shard,
        limit=args.limit,
        # A judge that enforces --timeout itself gets no second, racing timeout from the runner.
        timeout=None if "timeout" in enforced else args.timeout,
        reask=args.reask,
        reask_when=args.reask_when,
        retries=args.retries,
        max_cost=args.max_cost,
        breaker=args.max_transport_failures or None,
        progress=not args.no_progress,
        data_root=root,
        bootstrap=args.bootstrap,
        data_options=data_options,
        ablate=args.ablate,
        perturb=args.perturb,
    )
    print(summary)
    if summary.errors:
        shown = list(summary.errors.items())[:5]
        print(f"{len(summary.errors)} item(s) failed. First failures:")
        for trajectory_id, message in shown:
            print(f"  {printable(trajectory_id, limit=80)}: {printable(message, limit=300)}")
    if summary.score is not None:
        scope = f"{args.config}, {summary.n_selected} items"
        if args.shard or args.limit is not None:
            scope += " (this shard/limit only; merge shards with `agenthorizon score`)"
        manifest = {
            "config": args.config,
            "n_items": summary.record.data["n_items"],
            "sha256": summary.record.selection.label_manifest_sha256,
        }
        sys.stdout.write(render_report(summary.score, "table", title=f"Score of {args.out} ({scope})", manifest=manifest))
    sys.stdout.flush()
    interruption = summary.record.interruption
    if interruption is not None and interruption.cause == "max_cost":
        # The same command would stop again at once; the summary's "stopped early" line says why.
        print(f"agenthorizon judge: stopped by --max-cost {args.max_cost:g}, {summary.counts.missing} item(s) not "
              "started (why: the 'stopped early' line above)", file=sys.stderr)
        return EXIT_INCOMPLETE
    unresolved = {"error": summary.counts.error, "missing": summary.counts.missing}
    return incomplete(unresolved, "the same command")
