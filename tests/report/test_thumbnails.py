"""The report's thumbnails: each distinct screenshot decoded once, the bytes the judges' own pipeline makes."""

from __future__ import annotations

import base64
from collections import Counter
from pathlib import Path

from agenthorizon.report.html import REPORT_FIELDS
from agenthorizon.report.items import item_views
from agenthorizon.report.options import ReportOptions
from agenthorizon.report.runs import load_runs
from agenthorizon.judging.runs.runner import run_judge


def test_each_distinct_screenshot_is_decoded_once_and_matches_prepare_images(tiny_root: Path, tmp_path: Path, monkeypatch):
    import agenthorizon
    import agenthorizon.data.images as images

    dataset = agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths", cache_dir=tmp_path / "cache")
    run_judge("lexical", dataset, tmp_path / "run", config="all", data_root=tiny_root, progress=False)
    run_set = load_runs([tmp_path / "run"], tiny_root, fields=REPORT_FIELDS)
    opened: Counter[str] = Counter()
    real_open = images.open_image

    def counting_open(path, **options):  # a spy: the real function, counted
        opened[str(path)] += 1
        return real_open(path, **options)

    monkeypatch.setattr(images, "open_image", counting_open)
    options = ReportOptions()
    views = item_views(run_set, options, unreadable := [])
    shown = [thumb for view in views for thumb in view["thumbnails"]]
    assert unreadable == [] and len(shown) > len(opened)  # items share screenshots (a negative shows its sibling's)
    assert set(opened.values()) == {1}
    # The same bytes as a one-image prepare_images call, the way the report made them before.
    row = run_set.rows[0]
    first = views[0]["thumbnails"][0]
    index = row["step_ids"].index(first["step"])
    monkeypatch.setattr(images, "open_image", real_open)
    (expected,) = images.prepare_images(
        [row["screenshots"][index]], mode="per-step", size=options.thumbnail_size, format="jpeg",
        quality=options.thumbnail_quality, step_ids=[first["step"]], use_cache=False, workers=1,
    )
    assert base64.b64decode(first["src"].split(",", 1)[1]) == expected.data
