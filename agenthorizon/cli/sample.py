"""``agenthorizon sample DIR --preset P``: write a deterministic sample corpus."""

from __future__ import annotations

import argparse

HELP = "Write a deterministic sample corpus in the exact release layout."


def _image_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 320x200, got {text!r}") from None
    return width, height


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agenthorizon.release.sample.presets import PRESETS

    parser.add_argument("root", metavar="DIR", help="release root to create")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small",
                        help="tiny (tests), small (demo, default) or full (the release's shape)")
    parser.add_argument("--seed", type=int, default=0, help="same preset and seed give identical files (default 0)")
    parser.add_argument("--image-size", type=_image_size, default=None, metavar="WxH",
                        help="screenshot size in pixels (default 320x200)")
    parser.add_argument("--no-images", action="store_true", help="write no screenshot files")
    parser.add_argument("--workers", type=int, default=None, help="processes drawing screenshots (default: CPUs)")
    parser.add_argument("--overwrite", action="store_true",
                        help="write into a DIR that is not empty, replacing only a sample corpus's own paths there")


def run(args: argparse.Namespace) -> int:
    from agenthorizon.release.sample import DEFAULT_IMAGE_SIZE, generate

    summary = generate(
        args.root,
        preset=args.preset,
        seed=args.seed,
        image_size=args.image_size or DEFAULT_IMAGE_SIZE,
        images=not args.no_images,
        workers=args.workers,
        overwrite=args.overwrite,
        progress=True,
    )
    print(summary.describe())
    return 0
