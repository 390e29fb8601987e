"""Screenshots for model input: downscale, mosaics, selection, cache."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from agenthorizon.data import images as preprocess
from agenthorizon.data.images import (
    ImageSettings,
    PreparedImage,
    fit_size,
    prepare_images,
    reading_order_sentence,
    select_steps,
)

COLORS = [(220, 30, 30), (30, 200, 40), (30, 60, 220), (240, 220, 20), (200, 40, 200)]


def _save(path: Path, size: tuple[int, int], color: tuple[int, int, int]) -> Path:
    Image.new("RGB", size, color).save(path)
    return path


@pytest.fixture()
def coloured_shots(tmp_path: Path) -> list[Path]:
    """Five 16:9 solid-colour screenshots (larger than the box), one colour per step."""
    return [_save(tmp_path / f"step_{i + 1}.png", (1280, 720), c) for i, c in enumerate(COLORS)]


def _decode(image: PreparedImage) -> Image.Image:
    return Image.open(io.BytesIO(image.data)).convert("RGB")


def _close(pixel: tuple[int, ...], color: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, color))


# --- downscale -----------------------------------------------------------------------


def test_downscale_of_a_large_greyscale_screenshot_holds_no_full_size_rgb_copy() -> None:
    """A greyscale screenshot is resized before it becomes RGB: no full-size RGB buffer (3 bytes a pixel) beside it."""
    import subprocess
    import sys

    program = """
import resource
from PIL import Image
from agenthorizon.data.images import downscale
image = Image.new("L", (8000, 8000), 90)  # 61 MiB
image.load()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
small = downscale(image, (512, 332))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(small.mode, small.size[0], small.size[1], after - before)
"""
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split()
    assert out[:3] == ["RGB", "332", "332"]
    # Converting first would add a 183 MiB RGB copy to the peak; resizing first adds a few MiB.
    assert int(out[3]) < 40 * 1024, f"peak grew by {int(out[3]) // 1024} MiB"


@pytest.mark.parametrize("mode", ["RGBA", "L", "LA", "RGBX", "P"])
def test_downscale_gives_the_same_pixels_whatever_the_opaque_source_mode(mode: str) -> None:
    import numpy as np

    pixels = np.random.default_rng(0).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    source = Image.fromarray(pixels).convert(mode)
    small = preprocess.downscale(source)
    expected = source.convert("RGB").resize(small.size, Image.LANCZOS, reducing_gap=1.5)
    assert small.mode == "RGB" and np.array_equal(np.asarray(small), np.asarray(expected))


@pytest.mark.parametrize("mode", ["I", "F", "CMYK"])
def test_downscale_of_a_mode_whose_rgb_conversion_clips_or_mixes_is_the_downscaled_rgb_image(mode: str) -> None:
    # Converting "I" and "F" to RGB clips each value to 0-255 and CMYK mixes each ink with
    # black: resizing first would average values the RGB image does not have (columns of
    # 0 and 1000 are a grey RGB image, not a white one).
    import numpy as np

    if mode == "CMYK":
        source = Image.fromarray(np.random.default_rng(0).integers(0, 256, (720, 1280, 4), dtype=np.uint8), "CMYK")
    else:
        values = np.zeros((720, 1280), dtype=np.int32 if mode == "I" else np.float32)
        values[:, ::2] = 1000
        source = Image.fromarray(values)
    assert source.mode == mode
    small = preprocess.downscale(source)
    expected = source.convert("RGB").resize(small.size, Image.LANCZOS, reducing_gap=1.5)
    assert small.mode == "RGB" and np.array_equal(np.asarray(small), np.asarray(expected))



@pytest.mark.parametrize(
    "source",
    [(1920, 1080), (1080, 1920), (2560, 1600), (1366, 768), (3840, 2160), (800, 200), (100, 2000)],
)
def test_downscale_fits_the_box_and_keeps_the_aspect_ratio(source: tuple[int, int]) -> None:
    image = preprocess.downscale(Image.new("RGB", source, (9, 9, 9)))
    width, height = image.size
    assert width <= 512 and height <= 332
    assert width == 512 or height == 332  # as large as the box allows
    # Both sides are scaled by the same factor, to within one pixel of rounding.
    scale = min(512 / source[0], 332 / source[1])
    assert abs(width - source[0] * scale) <= 1
    assert abs(height - source[1] * scale) <= 1


def test_small_screenshots_are_not_upscaled_and_size_is_configurable() -> None:
    assert fit_size((400, 300), (512, 332)) == (400, 300)
    assert fit_size((1920, 1080), (256, 256)) == (256, 144)


def test_per_step_images_are_jpeg_of_the_fitted_size(coloured_shots: list[Path], tmp_path: Path) -> None:
    images = prepare_images(coloured_shots[:2], cache_dir=tmp_path / "cache", quality=70)
    assert [image.steps for image in images] == [(0,), (1,)]
    for image, color in zip(images, COLORS):
        assert image.mime_type == "image/jpeg" and image.data[:3] == b"\xff\xd8\xff"
        decoded = _decode(image)
        assert decoded.size == image.size == (512, 288)
        assert _close(decoded.getpixel((256, 144)), color)
        header, payload = image.data_url().split(",", 1)
        assert header == "data:image/jpeg;base64"
        assert base64.b64decode(payload) == image.data


def test_quality_and_png_change_the_encoding(coloured_shots: list[Path], tmp_path: Path) -> None:
    noisy = tmp_path / "noisy.png"
    Image.effect_noise((800, 450), 60).convert("RGB").save(noisy)
    low = prepare_images([noisy], quality=20, use_cache=False)[0]
    high = prepare_images([noisy], quality=95, use_cache=False)[0]
    assert len(low.data) < len(high.data)
    png = prepare_images([coloured_shots[0]], format="png", use_cache=False)[0]
    assert png.mime_type == "image/png" and png.data.startswith(b"\x89PNG")
    assert _decode(png).getpixel((10, 10)) == COLORS[0]  # lossless


# --- mosaics -------------------------------------------------------------------------


def test_mosaic_is_1024x664_and_row_major(coloured_shots: list[Path], tmp_path: Path) -> None:
    images = prepare_images(coloured_shots[:4], mode="mosaic", cache_dir=tmp_path / "cache")
    assert len(images) == 1
    mosaic = images[0]
    assert mosaic.kind == "mosaic" and mosaic.steps == (0, 1, 2, 3)
    picture = _decode(mosaic)
    assert picture.size == mosaic.size == (1024, 664)
    quadrant_centres = [(256, 166), (768, 166), (256, 498), (768, 498)]  # TL, TR, BL, BR
    for centre, color in zip(quadrant_centres, COLORS):
        assert _close(picture.getpixel(centre), color), (centre, picture.getpixel(centre), color)
    # 16:9 tiles are letterboxed: the top strip of each cell is blank.
    assert _close(picture.getpixel((256, 5)), preprocess.BLANK_COLOR)


def test_final_partial_mosaic_has_blank_cells_and_says_so(coloured_shots: list[Path]) -> None:
    images = prepare_images(coloured_shots, mode="mosaic", format="png", use_cache=False)
    assert [image.steps for image in images] == [(0, 1, 2, 3), (4,)]
    last = _decode(images[1])
    assert last.size == (1024, 664)
    assert last.getpixel((256, 166)) == COLORS[4]
    for centre in [(768, 166), (256, 498), (768, 498)]:
        assert last.getpixel(centre) == preprocess.BLANK_COLOR
    caption = images[1].caption()
    assert "top-left = step 4" in caption and "bottom-right = blank" in caption


def test_reading_order_sentence_states_the_grid_order() -> None:
    general = reading_order_sentence()
    assert "2x2" in general and "left to right, top to bottom" in general
    assert general.index("top-left") < general.index("top-right") < general.index("bottom-left")
    concrete = reading_order_sentence([12, 13, 14, 15])
    assert "top-left = step 12, top-right = step 13, bottom-left = step 14, bottom-right = step 15" in concrete
    assert ImageSettings(mode="mosaic").to_dict()["reading_order"] == general
    with pytest.raises(ValueError, match="1 to 4"):
        reading_order_sentence([1, 2, 3, 4, 5])


def test_step_ids_and_missing_screenshots_are_recorded(coloured_shots: list[Path]) -> None:
    shots = [coloured_shots[0], None, coloured_shots[1], None, coloured_shots[2]]
    images = prepare_images(shots, step_ids=[10, 11, 12, 13, 14], mode="mosaic", use_cache=False)
    assert images.skipped_steps == (11, 13)
    assert images.selected_steps == (10, 12, 14)
    assert images[0].steps == (10, 12, 14)


def test_objects_with_paths_are_read_through_their_paths(coloured_shots: list[Path]) -> None:
    class LazyLike:
        """Stands in for LazyScreenshots: indexing it would be a bug here."""

        def __init__(self, paths: list[str | None]) -> None:
            self.paths = paths

        def __getitem__(self, index: int) -> Image.Image:
            raise AssertionError("decoded through the lazy sequence")

        def __len__(self) -> int:
            return len(self.paths)

    lazy = LazyLike([str(coloured_shots[0]), None])
    images = prepare_images(lazy, use_cache=False)
    assert [image.steps for image in images] == [(0,)] and images.skipped_steps == (1,)


def test_lazy_screenshots_are_not_decoded(coloured_shots: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from agenthorizon.data.screenshots import LazyScreenshots

    def forbidden(self, *args):  # type: ignore[no-untyped-def]
        raise AssertionError("prepare_images decoded through LazyScreenshots")

    monkeypatch.setattr(LazyScreenshots, "__getitem__", forbidden)
    monkeypatch.setattr(LazyScreenshots, "__iter__", forbidden)
    lazy = LazyScreenshots([coloured_shots[0], None, coloured_shots[2]])
    images = prepare_images(lazy, mode="mosaic", use_cache=False)
    assert images[0].steps == (0, 2) and images.skipped_steps == (1,)


def test_pil_images_are_accepted_and_mode_none_sends_nothing(coloured_shots: list[Path]) -> None:
    pil = [Image.new("RGBA", (1280, 800), (10, 200, 10, 255)), None]
    images = prepare_images(pil, use_cache=False)
    assert images[0].size == (512, 320)
    assert _close(_decode(images[0]).getpixel((5, 5)), (10, 200, 10))
    none = prepare_images(coloured_shots, mode="none")
    assert list(none) == [] and none.settings.mode == "none"


def test_bad_inputs_raise_clear_errors(tmp_path: Path) -> None:
    missing = tmp_path / "images" / "step_3.png"
    with pytest.raises(FileNotFoundError, match="step_3.png"):
        prepare_images([missing], use_cache=False)
    not_image = tmp_path / "step_1.png"
    not_image.write_text("not a png")
    with pytest.raises(ValueError, match="step_1.png"):
        prepare_images([not_image], use_cache=False)
    with pytest.raises(ValueError, match="step 0 is a int"):
        prepare_images([3], use_cache=False)
    with pytest.raises(ValueError, match="image mode 'grid'"):
        ImageSettings(mode="grid")
    with pytest.raises(ValueError, match="quality"):
        ImageSettings(quality=0)
    with pytest.raises(ValueError, match="budget"):
        ImageSettings(budget=0)


# --- selection -------------------------------------------------------------------------


@pytest.mark.parametrize("n,budget", [(300, 16), (300, 2), (17, 5), (5, 5), (3, 10), (120, 1)])
def test_even_selection_respects_the_budget_and_keeps_first_and_last(n: int, budget: int) -> None:
    steps = list(range(100, 100 + n))
    chosen = select_steps(steps, "even", budget=budget)
    assert len(chosen) == min(n, budget)
    assert chosen == sorted(set(chosen)) and set(chosen) <= set(steps)
    assert chosen[-1] == steps[-1]
    if budget > 1:
        assert chosen[0] == steps[0]
    assert chosen == select_steps(list(reversed(steps)), "even", budget=budget)  # deterministic
    if budget > 2 and n > budget:
        gaps = [b - a for a, b in zip(chosen, chosen[1:])]
        assert max(gaps) - min(gaps) <= 1  # evenly spaced


def test_every_k_and_all_strategies() -> None:
    assert select_steps(range(10), "every-k", every=3) == [0, 3, 6, 9]
    assert select_steps(range(10), "all") == list(range(10))
    thinned = select_steps(range(10), "every-k", every=2, budget=3)  # 0 2 4 6 8 -> 3 of them
    assert thinned == [0, 4, 8]
    with pytest.raises(ValueError, match="strategy"):
        select_steps(range(3), "random")


def test_mosaic_budget_counts_mosaics(tmp_path: Path) -> None:
    shots = [_save(tmp_path / f"s{i}.png", (64, 40), (i * 9, 0, 0)) for i in range(25)]
    images = prepare_images(shots, mode="mosaic", budget=2, strategy="even", use_cache=False)
    assert len(images) == 2
    covered = [step for image in images for step in image.steps]
    assert len(covered) == 8 and covered[0] == 0 and covered[-1] == 24
    per_step = prepare_images(shots, budget=3, use_cache=False)
    assert [image.steps[0] for image in per_step] == [0, 12, 24]


# --- cache -------------------------------------------------------------------------------


@pytest.fixture()
def count_encodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = preprocess.encode_image

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(preprocess, "encode_image", counting)
    return calls


def test_second_run_reencodes_nothing(coloured_shots: list[Path], tmp_path: Path, count_encodes: list[int]) -> None:
    cache = tmp_path / "cache"
    first = prepare_images(coloured_shots, cache_dir=cache, workers=2)
    assert len(count_encodes) == 5 and first.encoded == 5 and first.cache_hits == 0
    second = prepare_images(coloured_shots, cache_dir=cache, workers=2)
    assert len(count_encodes) == 5, "the warm run encoded again"
    assert second.encoded == 0 and second.cache_hits == 5
    assert [image.data for image in second] == [image.data for image in first]
    assert [image.size for image in second] == [image.size for image in first]
    # Mosaics are cached too.
    prepare_images(coloured_shots, mode="mosaic", cache_dir=cache)
    before = len(count_encodes)
    assert prepare_images(coloured_shots, mode="mosaic", cache_dir=cache).encoded == 0
    assert len(count_encodes) == before


def test_changed_source_or_parameter_misses(coloured_shots: list[Path], tmp_path: Path, count_encodes: list[int]) -> None:
    cache = tmp_path / "cache"
    shots = coloured_shots[:2]
    prepare_images(shots, cache_dir=cache)
    # Same path, new content (size and colour): the content hash must miss.
    _save(shots[0], (1280, 720), (1, 2, 3))
    again = prepare_images(shots, cache_dir=cache)
    assert again.encoded == 1 and again.cache_hits == 1
    assert _close(_decode(again[0]).getpixel((5, 5)), (1, 2, 3))
    assert prepare_images(shots, cache_dir=cache, quality=50).encoded == 2
    assert prepare_images(shots, cache_dir=cache, size=(256, 166)).encoded == 2
    assert prepare_images(shots, cache_dir=cache, format="png").encoded == 2
    # A copy elsewhere hits: the key is the content, not the path.
    copy = tmp_path / "elsewhere.png"
    copy.write_bytes(shots[1].read_bytes())
    assert prepare_images([copy], cache_dir=cache).cache_hits == 1


def test_process_executor_gives_the_same_bytes(coloured_shots: list[Path]) -> None:
    threads = prepare_images(coloured_shots[:3], use_cache=False, workers=2, executor="thread")
    processes = prepare_images(coloured_shots[:3], use_cache=False, workers=2, executor="process")
    assert [i.data for i in threads] == [i.data for i in processes]


def test_default_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(preprocess.CACHE_ENV, str(tmp_path / "mine"))
    assert preprocess.default_cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(preprocess.CACHE_ENV)
    from huggingface_hub import constants

    assert preprocess.default_cache_dir() == Path(constants.HF_HOME) / "agenthorizon" / "images"


def test_settings_record_is_json_ready() -> None:
    import json

    record = ImageSettings(mode="per-step", quality=70, budget=8, strategy="even").to_dict()
    assert json.loads(json.dumps(record)) == record
    assert record["size"] == [512, 332] and record["mosaic"] is None and record["budget"] == 8


def test_without_a_cache_no_file_is_read_just_to_be_hashed(
    coloured_shots: list[Path], monkeypatch: pytest.MonkeyPatch, count_encodes: list[int]
) -> None:
    hashed: list[str] = []
    real = preprocess._file_digest
    monkeypatch.setattr(preprocess, "_file_digest", lambda path: hashed.append(path) or real(path))
    uncached = prepare_images(coloured_shots, use_cache=False, workers=2)
    assert hashed == [] and uncached.encoded == len(coloured_shots) == len(count_encodes)
    assert [image.steps for image in uncached] == [(i,) for i in range(len(coloured_shots))]
    with_cache = prepare_images(coloured_shots, cache_dir=coloured_shots[0].parent / "cache", workers=2)
    assert len(hashed) == len(coloured_shots)  # the cache is keyed by content
    assert [image.data for image in with_cache] == [image.data for image in uncached]
