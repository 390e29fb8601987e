"""The direct judge's settings objects: build a judge from them, see each setting's spellings, read them back.

Each setting is declared once (agenthorizon/judging/judges/direct_settings.py);
this script builds an ``openai:`` judge from settings objects, prints every
setting's flag, Inspect parameter and run.json key as the declarations give
them, and rebuilds the judge from its own run record. No model is called.

    python examples/judge_settings.py
"""

from __future__ import annotations

import json

from agenthorizon.judging.judges.direct_settings import (
    MessageSettings,
    SamplingSettings,
    TransportSettings,
    direct_knobs,
    settings_from_record,
)
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge
from agenthorizon.judging.judges.openai_images import ImageOptions


def main() -> None:
    judge = OpenAICompatibleJudge(
        "Qwen/Qwen3-VL-8B-Instruct",
        sampling=SamplingSettings(temperature=0.0, max_tokens=1024, structured_output=True),
        images=ImageOptions(mode="auto", max_images=32, quality=60),
        transport=TransportSettings(base_url="http://localhost:8000/v1", retries=3),
        message=MessageSettings(layout="interleaved", timestamps=True),
    )
    # The same judge from flat option names, as make_judge and the presets give them.
    same = OpenAICompatibleJudge.from_options(
        "Qwen/Qwen3-VL-8B-Instruct", temperature=0.0, max_tokens=1024, structured_output=True, images="auto",
        max_images=32, image_quality=60, base_url="http://localhost:8000/v1", retries=3, layout="interleaved",
        timestamps=True,
    )
    assert same.spec() == judge.spec()

    print(f"{'option':<20} {'flag':<22} {'inspect':<20} run.json key")
    for item in direct_knobs():
        record = "judge." + ".".join(item.record) if item.record else "(not recorded)"
        inspect = item.dest if item.inspect else "-"
        print(f"{item.option:<20} {item.flag or '-':<22} {inspect:<20} {record}")

    record = json.loads(json.dumps(judge.spec()))  # as run.json holds it
    again = OpenAICompatibleJudge("Qwen/Qwen3-VL-8B-Instruct", **settings_from_record(record))
    print("rebuilt from its record, same record:", again.spec() == record)


if __name__ == "__main__":
    main()
