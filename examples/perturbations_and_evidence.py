"""Robustness to presentation and evidence selection (issue 34, sections 6 and 3), on the sample corpus.

Runs the lexical baseline once as released and once per perturbation, and
prints each perturbation's flip rate against the unperturbed run with its
pair-clustered interval -- what `agenthorizon score PERTURBED --against RUN`
prints. Then reads which files an agentic CLI opened from one line of its
event stream (what the harness presets record for every item) and
aggregates such records the way `score --evidence` does.

    .venv/bin/python examples/perturbations_and_evidence.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import agenthorizon
from agenthorizon.judging.judges.evidence_readers import read_evidence
from agenthorizon.judging.perturbation import PERTURBATIONS
from agenthorizon.report.flips import flip_note, perturbation_flips
from agenthorizon.report.references import load_run_references
from agenthorizon.release.item_selection import Selection
from agenthorizon.scoring.evidence import evidence_summary

with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp) / "release"
    agenthorizon.generate_sample(root, preset="small", seed=0)
    rows = agenthorizon.load_dataset(root, "AH", split="test", images="paths", cache_dir=Path(tmp) / "cache")
    references = load_run_references(root, Selection("AH")).rows

    plain = Path(tmp) / "lexical"
    agenthorizon.run_judge("lexical", rows, plain, data_root=root, progress=False)
    for name in PERTURBATIONS:
        folder = Path(tmp) / f"lexical-{name}"
        agenthorizon.run_judge("lexical", rows, folder, perturb=name, data_root=root, progress=False)
        print(flip_note(perturbation_flips([folder], [plain], references, bootstrap=2000, seed=0)))

    # One Codex event: a shell command that opens the Markdown and two screenshots of item T.
    event = {"type": "item.completed", "item": {"type": "command_execution",
             "command": "cat data/markdowns/T.md && file data/media/images/T/step_1.png data/media/images/T/step_9.png"}}
    evidence = read_evidence("codex_events", json.dumps(event), "T")
    print(evidence)
    summary = evidence_summary([evidence, None], num_steps=[10, 12], correct=[True, False], clusters=["g1", "g2"])
    print(f"known for {summary.n_known} of {summary.n_items} items; screenshots viewed {summary.mean_fraction_viewed:.0%}, "
          f"first decile {summary.first_decile_share:.0%}, last decile {summary.last_decile_share:.0%}")
