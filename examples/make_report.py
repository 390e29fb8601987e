"""Judge a sample corpus twice, then write an HTML report, figures and a Parquet export.

Runs offline in well under a minute on the `small` sample corpus (the real
release works the same way: pass its root instead of the generated one).

    .venv/bin/python examples/make_report.py [OUT_DIR]     # OUT_DIR: ./agenthorizon-report by default

Writes OUT_DIR/report.html (open it in a browser: one self-contained file),
OUT_DIR/figures/*.png|svg (needs matplotlib: pip install agenthorizon[plot])
and OUT_DIR/export/ (Parquet + dataset card that plain datasets.load_dataset reads).
"""

from __future__ import annotations

import sys
from pathlib import Path

import agenthorizon
from agenthorizon.data.export import export_release
from agenthorizon.report.html import ReportOptions, write_report
from agenthorizon.report.plots import make_plots
from agenthorizon.judging.runs.runner import run_judge


def main(out: Path) -> None:
    root = out / "release"
    if not (root / "AgentHorizon.jsonl").exists():
        agenthorizon.generate_sample(root, preset="small", seed=0)

    # Two real runs of baseline judges on AH: a keyword-matching judge and one
    # that accepts everything (the chance floor of balanced accuracy).
    dataset = agenthorizon.load_dataset(root, "AH", split="test", images="paths")
    runs = [out / "runs" / "lexical", out / "runs" / "accept-all"]
    for spec, run_dir in zip(("lexical", "constant:true"), runs):
        summary = run_judge(spec, dataset, run_dir, config="AH", data_root=root, progress=False)
        print(summary)

    # The report: metrics with intervals, the paired comparison, browsable items.
    report = write_report(runs, root, out / "report.html", options=ReportOptions(bootstrap=1000))
    print(f"report: {report} ({report.stat().st_size / 1e6:.1f} MB)")

    # Paper figures, PNG and SVG.
    for stem, paths in make_plots(runs, root, out / "figures").items():
        print(f"figure {stem}: {', '.join(p.name for p in paths)}")

    # A no-code copy for the Hub: thumbnails embedded, loads with plain datasets.
    exported = export_release(root, out / "export", configs=["AH", "AH-S"], images="thumbnails")
    import datasets

    plain = datasets.load_dataset(str(exported.out), "AH", split="test")
    print(f"export: {exported.out} -> plain datasets sees {len(plain)} AH rows, columns {plain.column_names[:4]}...")


if __name__ == "__main__":
    # The report is what this script is for: it goes where it can be opened, never to a temporary folder.
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "agenthorizon-report"))
