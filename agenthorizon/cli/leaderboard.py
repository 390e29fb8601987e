"""``agenthorizon leaderboard``: one table across judge runs, shaped like the paper's Table 2.

The rows are :func:`agenthorizon.leaderboard`'s, rendered with their label manifests and notes.
"""

from __future__ import annotations

import argparse

HELP = "Compare judge runs in one table shaped like the paper's Table 2 (AH and AH-S)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.cli._data import add_data_argument

    from agenthorizon.cli._common import add_bootstrap_arguments, add_model_alias_argument
    from agenthorizon.report.tables import FORMATS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories (each holds run.json or run-shard-*.json)")
    add_data_argument(parser)
    add_bootstrap_arguments(parser, default=0)
    parser.add_argument("--format", default="markdown", choices=FORMATS, help="output format (default markdown)")
    parser.add_argument(
        "--columns", default="accuracy", metavar="SETS",
        help="comma-separated column sets: accuracy (Table 2), paired (rejection by type, instruction sensitivity, "
        "pair-group accuracy), cost (cost, tokens, wall time, turns, tool calls per trajectory), significance (every "
        "pair of judges on AH: paired difference with its interval, exact McNemar p, Holm-adjusted p, the group tied "
        "with the best and a compact letter display; --bootstrap resamples give the intervals) (default accuracy)",
    )
    parser.add_argument(
        "--rank-correlation", metavar="A,B",
        help="also report Spearman rho and Kendall tau-b between the judges' balanced accuracies on item sets A and B: "
        "configs (AH,AH-S) or slices (os=linux,os=windows); --bootstrap resamples give their intervals",
    )
    parser.add_argument(
        "--harnesses", action="store_true",
        help="also compare harnesses: for each model run through several harnesses, every harness's scores and each "
        "harness-vs-harness difference with its pair-clustered paired interval (--bootstrap resamples) and exact "
        "McNemar p",
    )
    parser.add_argument(
        "--evidence", action="store_true",
        help="also report what each agentic judge opened (screenshots viewed and where, the Markdown, the JSON), "
        "grouped by model so that the harnesses of one model line up (needs the release's trajectory files)",
    )
    add_model_alias_argument(parser)
    parser.add_argument(
        "--include-partial", action="store_true",
        help="rank judges whose runs lack results for some items (interrupted, --limit, Inspect's -T limit) with the "
        "others; by default they are marked PARTIAL, unranked, and left out of --rank-correlation and significance",
    )
    parser.add_argument("--out", metavar="FILE", help="write the table here instead of standard output")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.cli._common import write_output
    from agenthorizon.report.leaderboard import leaderboard
    from agenthorizon.report.scored_runs import LEADERBOARD_CONFIGS
    from agenthorizon.report.tables import render_leaderboard

    from agenthorizon.report.ranking import parse_item_sets, rank_correlation, rank_correlation_table
    from agenthorizon.report.tables import render_table

    from agenthorizon.report.harnesses import harness_comparison, harness_comparison_table, parse_model_aliases

    columns = [name.strip() for name in args.columns.split(",") if name.strip()]
    wants_significance = "significance" in columns
    columns = [name for name in columns if name != "significance"] or ["accuracy"]
    sets = parse_item_sets(args.rank_correlation) if args.rank_correlation else None
    if args.model_alias and not args.harnesses:
        raise ValueError("--model-alias: an option of --harnesses; add --harnesses")
    aliases = parse_model_aliases(args.model_alias)
    board = leaderboard(args.runs, args.data, bootstrap=args.bootstrap, seed=args.seed,
                        include_partial=args.include_partial)
    extra: dict = {}
    if sets:
        extra["rank_correlation"] = rank_correlation(board, sets, data_root=args.data, selection=board.selection,
                                                     bootstrap=args.bootstrap, seed=args.seed)
    if args.harnesses:
        extra["harnesses"] = harness_comparison(board, aliases=aliases, bootstrap=args.bootstrap, seed=args.seed)
    if args.evidence:
        from agenthorizon.report.evidence import leaderboard_evidence

        extra["evidence"] = leaderboard_evidence(board, args.data, bootstrap=args.bootstrap, seed=args.seed)
    tested = None
    if wants_significance:
        from agenthorizon.report.significance import leaderboard_significance, significance_table

        tested = leaderboard_significance(board, bootstrap=args.bootstrap, seed=args.seed)
        extra["significance"] = tested[0].to_dict()
    text = render_leaderboard(board, LEADERBOARD_CONFIGS, args.format, manifests=board.manifests, notes=board.notes,
                              columns=columns, extra=extra or None)
    if args.format != "json":
        if "rank_correlation" in extra:
            text += "\n" + render_table(rank_correlation_table(extra["rank_correlation"]), args.format)
        if "harnesses" in extra:
            text += "\n" + render_table(harness_comparison_table(extra["harnesses"]), args.format)
        if "evidence" in extra:
            from agenthorizon.report.evidence import evidence_table

            text += "\n" + render_table(evidence_table(extra["evidence"]), args.format)
        if tested:
            text += "\n" + render_table(significance_table(tested[0], left_out=tested[1]), args.format)
    write_output(text, args.out)
    return 0
