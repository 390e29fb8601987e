"""The one check that an exported config gives back the builder's rows, used on a local
export folder (test_export.py) and on the same export served by a Hub (test_hub.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def _relative(root: Path, path: str | None) -> str | None:
    return None if path is None else Path(os.path.relpath(path, root)).as_posix()


def assert_same_rows_as_builder(root: Path, plain, config: str, images: str) -> None:
    """``plain`` (``datasets.load_dataset`` of an export) holds the rows of
    ``agenthorizon.load_dataset(root, config)``, field for field, with the export's
    release-relative screenshot paths and its ``images`` mode for the screenshots."""
    from PIL import Image

    import agenthorizon
    from agenthorizon.data.export import export_features
    from agenthorizon.data.images import DEFAULT_SIZE, fit_size

    expected = [dict(row) for row in agenthorizon.load_dataset(root, config, split="test", images="paths")]
    assert plain.features == export_features(images), config
    assert len(plain) == len(expected) > 0, config
    for want, got in zip(expected, plain):
        shots = want.pop("screenshots")
        want["steps"] = [{**step, "screenshot": _relative(root, step["screenshot"])} for step in want["steps"]]
        got_shots = got.pop("screenshots", None)
        assert got == want, f"{config}: row {want['trajectory_id']} differs"
        if images == "none":
            assert got_shots is None and "screenshots" not in plain.column_names
            continue
        assert len(got_shots) == len(shots)
        for path, image in zip(shots, got_shots):
            if path is None:
                assert image is None
                continue
            if images == "paths":
                assert image == _relative(root, path)
                continue
            with Image.open(path) as original:
                original = original.convert("RGB")
                if images == "full":
                    assert image.format == "PNG"
                    assert image.size == original.size
                    assert np.array_equal(np.asarray(image.convert("RGB")), np.asarray(original))
                else:
                    assert image.format == "JPEG"
                    assert image.size == fit_size(original.size, DEFAULT_SIZE)
                    assert image.width <= 512 and image.height <= 332
                    small = np.asarray(original.resize(image.size), dtype=float)
                    # JPEG and the resampling filter differ a little; another screenshot differs a lot.
                    assert np.abs(np.asarray(image.convert("RGB"), dtype=float) - small).mean() < 12
