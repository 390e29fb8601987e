"""``agenthorizon judge``: run a judge over a config, resumably, then print its score.

Examples::

    agenthorizon judge --data ./release --config AH-D --judge lexical --out runs/lexical-dev
    agenthorizon judge --data ./release --config AH --judge openai:Qwen/Qwen3-VL-8B-Instruct \\
        --base-url http://gpu-box:8000/v1 --max-images 32 --structured-output --concurrency 32 --out runs/qwen-ah
    agenthorizon judge --data ./release --config AH --judge "command:claude -p" --out runs/claude --shard 1/4
    agenthorizon judge --data ./release --config AH --judge codex:gpt-5.5 --out runs/codex
    agenthorizon judge --data ./release --config AH --judge openai:gpt-5.5 --prompt release --jpeg-quality 60 --out runs/direct

Exit status: 0 when every selected item has a result (a valid verdict, or
the judge's own invalid answer, which re-asking would change); 1 when some
items errored or are missing -- re-running the same command resumes them;
2 for a usage or input error (including another runner holding the folder).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agenthorizon.cli._common import add_bootstrap_arguments, add_selection_arguments, incomplete, non_negative_int
from agenthorizon.schema import JUDGE_IMAGE_MODES

HELP = "Run a judge over a config (resumable; one result file per item) and print its score."



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, metavar="ROOT", help="release root (local folder) or Hub repo id")
    add_selection_arguments(parser, from_run=False)
    parser.add_argument("--revision", default=None, help="branch, tag or commit, for a Hub repo id (recorded with its commit)")
    parser.add_argument(
        "--judge",
        required=True,
        metavar="SPEC",
        help="lexical | constant[:true|false] | random[:SEED] | openai:MODEL | command:'CMD ARGS' | "
        "codex:MODEL | claude:MODEL | gemini:MODEL | opencode:MODEL",
    )
    parser.add_argument(
        "--prompt",
        metavar="SOURCE",
        help="model and command judges: 'project' (this project's prompt; default for openai: and command:), "
        "'release' (the release's sandbox/prompt.md + AGENTS.md, as the paper; default for the codex/claude/"
        "gemini/opencode presets), or a template file with {{TRAJECTORY_ID}} / {{MARKDOWN}} placeholders",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="run directory (re-running resumes it)")
    parser.add_argument("--concurrency", type=int, default=8, metavar="N", help="items judged at once (default 8)")
    parser.add_argument("--shard", metavar="I/N", help="judge only shard I of N (1-based; sorted-id position mod N)")
    parser.add_argument("--limit", type=non_negative_int, metavar="N", help="judge at most N items (after sharding)")
    parser.add_argument("--timeout", type=float, default=900.0, metavar="S", help="seconds per item attempt (default 900)")
    parser.add_argument("--retries", type=int, default=2, metavar="N", help="runner retries after a timeout (default 2)")
    model = parser.add_argument_group("model judges (openai:MODEL)")
    model.add_argument(
        "--images",
        choices=JUDGE_IMAGE_MODES,
        help="screenshots: auto (default: per-step, 2x2 mosaics past --max-images or a server limit), "
        "per-step, mosaic or none",
    )
    model.add_argument("--image-budget", type=int, metavar="N", help="most images per request")
    model.add_argument(
        "--max-images",
        type=int,
        metavar="N",
        help="the server's image limit per request (vLLM --limit-mm-per-prompt); more screenshots are merged",
    )
    model.add_argument(
        "--structured-output",
        action="store_true",
        default=None,
        help="constrain answers to the verdict JSON schema (response_format json_schema)",
    )
    model.add_argument(
        "--extra-body",
        type=_json_object,
        metavar="JSON",
        help='more request fields as a JSON object, e.g. \'{"top_p": 0.95, "seed": 0}\'',
    )
    model.add_argument(
        "--jpeg-quality",
        type=int,
        metavar="Q",
        help="JPEG quality of the screenshots sent, 1-100 (default 85; the paper's preprocessing used 60)",
    )
    model.add_argument("--base-url", metavar="URL", help="OpenAI-compatible server, e.g. http://localhost:8000/v1")
    model.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the API key (default OPENAI_API_KEY)")
    model.add_argument("--temperature", type=float, metavar="T", help="sampling temperature (default 0)")
    model.add_argument("--max-tokens", type=int, metavar="N", help="most output tokens (default 2048)")
    model.add_argument("--price-in", type=float, metavar="USD", help="price per 1M input tokens, to record costs")
    model.add_argument("--price-out", type=float, metavar="USD", help="price per 1M output tokens, to record costs")
    add_bootstrap_arguments(parser, default=1000)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _json_object(text: str) -> dict:
    """``--extra-body``'s value: a JSON object, or a clear error."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(
            f"not valid JSON ({error.msg} at character {error.pos}); expected an object such as "
            '\'{"top_p": 0.95, "seed": 0}\''
        ) from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object ({{...}}), got {type(value).__name__}: {text}")
    return value


def judge_options(args: argparse.Namespace) -> dict:
    """Options for :func:`agenthorizon.judging.judges.make_judge` from the command line (unset ones omitted)."""
    from agenthorizon.judging.judges.presets import HARNESSES

    kind = args.judge.split(":", 1)[0].strip().lower()
    options = {}
    prompt = _prompt(args.prompt)
    if prompt is not None and kind not in ("openai", "command", *HARNESSES):
        raise ValueError(f"--prompt: an option of model and command judges, not of {args.judge!r}")
    if kind == "openai":
        options = {
            "prompt": prompt,
            "image_quality": args.jpeg_quality,
            "images": args.images,
            "image_budget": args.image_budget,
            "max_images": args.max_images,
            "structured_output": args.structured_output,
            "extra_body": args.extra_body,
            "base_url": args.base_url,
            "api_key_env": args.api_key_env,
            "temperature": args.temperature,
            "max_tokens": args.max_tokens,
            "price_input_per_1m": args.price_in,
            "price_output_per_1m": args.price_out,
        }
    else:
        options = {"prompt": prompt}
        given = [
            flag
            for flag, value in (
                ("--images", args.images),
                ("--image-budget", args.image_budget),
                ("--max-images", args.max_images),
                ("--structured-output", args.structured_output),
                ("--extra-body", args.extra_body),
                ("--base-url", args.base_url),
                ("--api-key-env", args.api_key_env),
                ("--temperature", args.temperature),
                ("--max-tokens", args.max_tokens),
                ("--price-in", args.price_in),
                ("--price-out", args.price_out),
                ("--jpeg-quality", args.jpeg_quality),
            )
            if value is not None
        ]
        if given:
            raise ValueError(f"{', '.join(given)}: options of openai:MODEL judges only, not of {args.judge!r}")
    return {k: v for k, v in options.items() if v is not None}


def _prompt(value: str | None) -> str | None:
    """``--prompt``'s value: a prompt source name, or the text of a template file."""
    from agenthorizon.judging.judges.release_prompt import PROMPT_SOURCES

    if value is None or value in PROMPT_SOURCES:
        return value
    path = Path(value)
    if not path.is_file():
        raise ValueError(
            f"--prompt {value!r}: expected {' or '.join(PROMPT_SOURCES)}, or a template file (no such file {path})"
        )
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"--prompt {path}: not UTF-8 text ({error.reason}); expected a prompt template") from None


def run(args: argparse.Namespace) -> int:
    import agenthorizon
    from agenthorizon.judging.judges import make_judge
    from agenthorizon.report.tables import render_report
    from agenthorizon.judging.runs.runner import run_judge

    judge = make_judge(args.judge, **judge_options(args))
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
        timeout=args.timeout,
        retries=args.retries,
        progress=not args.no_progress,
        data_root=root,
        bootstrap=args.bootstrap,
        data_options=data_options,
    )
    print(summary)
    if summary.errors:
        shown = list(summary.errors.items())[:5]
        print(f"{len(summary.errors)} item(s) failed. First failures:")
        for trajectory_id, message in shown:
            print(f"  {trajectory_id}: {message[:300]}")
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
    unresolved = {"error": summary.counts["error"], "missing": summary.counts["missing"]}
    return incomplete(unresolved, "the same command")
