"""Benchmark: building the model payload of a long trajectory.

Makes a 300-step trajectory of 1920x1080 desktop-like PNG screenshots in a
temporary directory, then times :func:`agenthorizon.data.images.prepare_images`
plus the base64 data URLs a chat request carries:

- per-step (512x332 JPEG) and 2x2 mosaic (1024x664 JPEG) payloads;
- cold cache against warm cache (the second run of a sweep);
- serial encoding against parallel encoding (threads and processes), on the
  first ``--subset`` steps, in interleaved rounds so that load from other jobs
  on a shared machine affects every configuration alike;
- the cost of the content hash that keys the cache, against a full encode.

Every number is a ratio against a baseline measured in the same run, so it
can be compared across machines. Run:

    .venv/bin/python benchmarks/bench_payload.py [--steps 300] [--workers N]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from agenthorizon.data.images import prepare_images

WIDTH, HEIGHT = 1920, 1080
WORDS = (
    "File Edit View Insert Format Tools Help Save Export Invoice Quarterly Report "
    "Budget Total Revenue Python Terminal Settings Display Presentation Slide Chart "
    "Monday Tuesday November December Customer Order Shipping Draft Inbox Sent"
).split()


def make_screenshot(step: int, rng: random.Random) -> Image.Image:
    """A desktop-like screenshot: wallpaper gradient, taskbar, windows with text,
    a table, a photo-like region; different for every step."""
    y = np.linspace(0, 1, HEIGHT, dtype=np.float32)[:, None]
    x = np.linspace(0, 1, WIDTH, dtype=np.float32)[None, :]
    wallpaper = np.stack(
        [40 + 60 * y + 20 * x, 70 + 40 * x + 0 * y, 120 + 80 * y * x], axis=-1
    ).astype(np.uint8)
    image = Image.fromarray(wallpaper, "RGB")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, HEIGHT - 48, WIDTH, HEIGHT), fill=(32, 32, 36))
    for i in range(10):
        draw.rounded_rectangle((12 + 56 * i, HEIGHT - 42, 52 + 56 * i, HEIGHT - 6), 6, fill=(70 + 15 * i, 90, 140))
    draw.text((WIDTH - 110, HEIGHT - 32), f"10:{step % 60:02d} AM", fill=(230, 230, 230))
    for window in range(rng.randint(2, 3)):
        left = rng.randint(0, 700) + window * 60
        top = rng.randint(0, 250) + window * 40
        right, bottom = left + rng.randint(900, 1200), top + rng.randint(500, 750)
        draw.rectangle((left, top, right, bottom), fill=(250, 250, 250), outline=(120, 120, 120))
        draw.rectangle((left, top, right, top + 32), fill=(225, 228, 235))
        draw.text((left + 12, top + 10), " ".join(rng.sample(WORDS, 4)), fill=(20, 20, 20))
        line_y = top + 48
        while line_y < bottom - 24:
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 18)))
            draw.text((left + 16, line_y), words, fill=(30, 30, 30))
            line_y += 18
        # A spreadsheet-like grid in the front window.
        if window == 1:
            for gx in range(left + 20, right - 20, 110):
                draw.line((gx, top + 60, gx, bottom - 20), fill=(200, 200, 200))
    # A photo-like patch (noisy texture, as in an image editor or a web page).
    noise = np.random.default_rng(step).integers(0, 255, (220, 340, 3), dtype=np.uint8)
    image.paste(Image.fromarray(noise, "RGB").resize((340, 220)), (rng.randint(1000, 1500), rng.randint(100, 600)))
    cursor = (rng.randint(0, WIDTH - 20), rng.randint(0, HEIGHT - 80))
    draw.polygon([cursor, (cursor[0], cursor[1] + 18), (cursor[0] + 12, cursor[1] + 12)], fill=(0, 0, 0))
    return image


def make_trajectory(directory: Path, steps: int) -> list[Path]:
    rng = random.Random(0)
    paths = []
    for step in range(steps):
        path = directory / f"step_{step + 1}.png"
        make_screenshot(step, rng).save(path)
        paths.append(path)
    return paths


def timed(function) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def build_payload(paths: list[Path], cache: Path, **kwargs) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    def run():  # type: ignore[no-untyped-def]
        images = prepare_images(paths, cache_dir=cache, **kwargs)
        urls = [image.data_url() for image in images]
        return images, sum(len(url) for url in urls)

    return timed(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--subset", type=int, default=48, help="steps in the serial/parallel comparison")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the serial/parallel comparison")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="agenthorizon-bench-payload-"))
    try:
        print(f"making {args.steps} screenshots of {WIDTH}x{HEIGHT} in {workdir} ...", flush=True)
        (workdir / "images").mkdir()
        paths = make_trajectory(workdir / "images", args.steps)
        total_mb = sum(p.stat().st_size for p in paths) / 1e6
        print(f"  {total_mb:.1f} MB of PNG, {total_mb / len(paths) * 1000:.0f} kB per screenshot")
        print(f"workers: {args.workers} (CPUs available: {len(os.sched_getaffinity(0))})")
        # Parallel ratios mean little on a machine that other jobs keep busy: say how busy.
        print("load average at start: {:.1f} {:.1f} {:.1f}\n".format(*os.getloadavg()))

        rows: list[tuple[str, float, str]] = []

        def report(name: str, seconds: float, note: str = "") -> None:
            rows.append((name, seconds, note))
            print(f"{name:45s} {seconds:8.2f} s  {note}", flush=True)

        hash_s, _ = timed(lambda: [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths])
        stat_s, _ = timed(lambda: [(os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths])
        report("sha256 of every source file", hash_s)
        report("stat signature of every source file", stat_s)

        # Cold against warm on the whole trajectory, with the default executor.
        results: dict[str, float] = {}
        for mode in ("per-step", "mosaic"):
            cache = workdir / f"cache-{mode}"
            seconds, (images, url_bytes) = build_payload(paths, cache, mode=mode, workers=args.workers)
            assert images.encoded == len(images)
            results[f"{mode} cold"] = seconds
            report(f"{mode} cold ({args.workers} threads)", seconds,
                   f"{len(images)} images, {url_bytes / 1e6:.1f} MB of data URLs")
            warm_times = []
            for _ in range(3):
                seconds, (images, _) = build_payload(paths, cache, mode=mode, workers=args.workers)
                assert images.encoded == 0 and images.cache_hits == len(images)
                warm_times.append(seconds)
            results[f"{mode} warm"] = statistics.median(warm_times)
            report(f"{mode} warm (median of 3)", results[f"{mode} warm"], "0 images encoded")

        # Serial against parallel encoding: rounds that run every configuration
        # in a rotating order, so drifting load from other jobs hits all alike;
        # the medians are compared.
        subset = paths[: args.subset]
        configs = [("serial", 1, "thread"), ("threads", args.workers, "thread"), ("processes", args.workers, "process")]
        times: dict[str, list[float]] = {label: [] for label, _, _ in configs}
        for round_index in range(args.rounds):
            order = configs[round_index % len(configs):] + configs[: round_index % len(configs)]
            for label, workers, executor in order:
                cache = workdir / f"cache-executor-{label}-{round_index}"
                seconds, (images, _) = build_payload(subset, cache, workers=workers, executor=executor)
                assert images.encoded == len(subset)
                times[label].append(seconds)
        for label, workers, _ in configs:
            results[f"cold {label}"] = statistics.median(times[label])
            report(f"per-step cold, {len(subset)} steps, {label} ({workers})",
                   results[f"cold {label}"], f"median of {args.rounds}")

        print("load average at end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
        print("\nratios (same run):")
        ratios = {
            "per-step warm / cold": results["per-step warm"] / results["per-step cold"],
            "mosaic warm / cold": results["mosaic warm"] / results["mosaic cold"],
            "threads / serial (cold)": results["cold threads"] / results["cold serial"],
            "processes / serial (cold)": results["cold processes"] / results["cold serial"],
            "sha256 of sources / per-step cold": hash_s / results["per-step cold"],
        }
        for name, value in ratios.items():
            print(f"  {name:38s} {value:6.3f}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
