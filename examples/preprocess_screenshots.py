"""Prepare a trajectory's screenshots for a model, and parse judge answers.

Run it as is (it draws a 10-step trajectory of fake screenshots), or point it
at a folder of release screenshots (``step_1.png``, ``step_2.png``, ...), for
example ``sandbox/data/media/images/<steps_id>`` of the release or of a sample
corpus made with ``agenthorizon sample``::

    .venv/bin/python examples/preprocess_screenshots.py [IMAGE_DIR]
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

from agenthorizon.data.images import ImageSettings, prepare_images, reading_order_sentence
from agenthorizon.scoring.verdicts import parse_verdict


def fake_trajectory(directory: Path, steps: int = 10) -> list[Path | None]:
    """Screenshots named as in the release; step 6 has none, as happens in the data."""
    paths: list[Path | None] = []
    for step in range(steps):
        if step == 6:
            paths.append(None)
            continue
        image = Image.new("RGB", (1920, 1080), (30 + 20 * step, 90, 160))
        ImageDraw.Draw(image).text((60, 60), f"step {step}", fill=(255, 255, 255))
        path = directory / f"step_{step + 1}.png"  # file names are 1-based
        image.save(path)
        paths.append(path)
    return paths


def release_folder(directory: Path) -> list[Path | None]:
    """Screenshots of a release image folder, in step order, None for gaps."""
    numbered = {int(m.group(1)): p for p in directory.glob("step_*.png") if (m := re.fullmatch(r"step_(\d+)\.png", p.name))}
    if not numbered:
        raise SystemExit(f"{directory}: no step_N.png files")
    return [numbered.get(n) for n in range(1, max(numbered) + 1)]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"  # a throwaway cache, so the example leaves nothing behind
        if len(sys.argv) > 1:
            screenshots = release_folder(Path(sys.argv[1]))
        else:
            screenshots = fake_trajectory(Path(tmp))

        # 1. One 512x332-fitting JPEG per step, at most 4 images: first, last, evenly spaced.
        settings = ImageSettings(mode="per-step", quality=80, budget=4, strategy="even")
        images = prepare_images(screenshots, settings, cache_dir=cache)
        print("per-step:", [(image.caption(), image.size, len(image.data)) for image in images])
        print("  skipped (no screenshot):", images.skipped_steps, "| encoded:", images.encoded)

        # 2. The same again: everything comes from the cache.
        again = prepare_images(screenshots, settings, cache_dir=cache)
        print("  second run encoded", again.encoded, "images, read", again.cache_hits, "from the cache")

        # 3. 2x2 mosaics of four consecutive steps, 1024x664, with their reading order.
        mosaics = prepare_images(screenshots, mode="mosaic", cache_dir=cache)
        print("\nprompt sentence:", reading_order_sentence())
        for mosaic in mosaics:
            print(" ", mosaic.size, mosaic.caption())

        # 4. What an OpenAI-compatible chat request carries.
        content = [{"type": "text", "text": reading_order_sentence()}]
        for mosaic in mosaics:
            content += [{"type": "text", "text": mosaic.caption()}, mosaic.content_part()]
        print("\nrequest content parts:", len(content), "| first data URL starts:", mosaics[0].data_url()[:40])
        print("run record 'images':", mosaics.settings.to_dict())

    # 5. Parsing judge answers: the verdict and its parse status.
    answers = [
        'The file was exported as JPEG.\n```json\n{"success": false, "mistake_type": '
        '"Misunderstanding of the Instruction", "confidence": "high", "reasoning": "JPEG, not PNG"}\n```',
        'All good {"success": "true"}',
        '{"success": true, "reasoning": "cut off mid-sent',
        "I believe the agent succeeded.",
    ]
    print()
    for answer in answers:
        verdict = parse_verdict(answer)
        print(f"{verdict.status:15s} success={verdict.success!s:5s} type={verdict.mistake_type}  <- {answer[:40]!r}")


if __name__ == "__main__":
    main()
