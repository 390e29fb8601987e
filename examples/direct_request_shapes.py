"""What the other direct paths send for one item, shown without calling any model.

``gemini-direct:MODEL`` posts Gemini's native ``generateContent`` body;
``codex-direct:MODEL`` runs ``codex exec --output-schema`` with the texts on
stdin and one ``--image`` per screenshot. Both build the same texts and
screenshots as ``openai:MODEL`` under the same options; this script prints
them for the first item of AH-D under the authors' settings (``paper``
layout, step times, a budget over the whole input).

    python examples/direct_request_shapes.py        # a small sample corpus in a temp dir
    AGENTHORIZON_DATA=/path/to/release python examples/direct_request_shapes.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import agenthorizon
from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import make_judge

SETTINGS = {"layout": "paper", "timestamps": True, "prompt": "{{MARKDOWN}}", "images": "per-step",
            "image_token_budget": 8000, "budget_covers": "input", "image_quality": 60}


def data_root(work: Path) -> Path:
    """The release root from AGENTHORIZON_DATA, else a small sample freshly generated in ``work``."""
    if os.environ.get("AGENTHORIZON_DATA"):
        return Path(os.environ["AGENTHORIZON_DATA"])
    root = work / "release"
    agenthorizon.generate_sample(root, preset="small", seed=0)
    return root


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agenthorizon-example-") as work:
        root = data_root(Path(work))
        dev = agenthorizon.load_dataset(root, "AH-D", split="test", images="paths")
        item = build_judge_input(dev[0])  # the blind input: no label

        gemini = make_judge("gemini-direct:gemini-3.1-pro", cache_dir=None, **SETTINGS)
        body = gemini.request_body(gemini.build_messages(item))
        parts = body["contents"][0]["parts"]
        print(f"gemini-direct: POST {gemini.endpoint()}")
        print(f"  generationConfig {body['generationConfig']}")
        print(f"  {sum('text' in p for p in parts)} text parts, {sum('inlineData' in p for p in parts)} images; "
              f"first text part: {parts[0]['text'][:60]!r}")

        # A Codex config folder of the example's own (a real run reads yours: its model provider and login).
        codex = make_judge("codex-direct:gpt-5.5", cache_dir=None, sandbox="none",
                           env={"CODEX_HOME": str(Path(work) / "codex-home")}, **SETTINGS)
        prompt, images, _ = codex.build_request(item)
        print("codex-direct: " + " ".join(codex.spec()["command"]))
        print(f"  stdin: {len(prompt)} characters, starting {prompt[:60]!r}")
        print(f"  {len(images)} --image files of {images[0].size[0]}x{images[0].size[1]}" if images else "  no image")


if __name__ == "__main__":
    main()
