"""The judge-facing text files of the sample sandbox: AGENTS.md / CLAUDE.md and prompt.md.

Written for this project (the release's own texts are not copied); the prompt
is templated on ``{{TRAJECTORY_ID}}``.
"""

from __future__ import annotations

from agenthorizon.release.sample.marker import SAMPLE_MARKER
from agenthorizon.schema import PROMPT_PLACEHOLDER

FRAMEWORK_TEXT = SAMPLE_MARKER + """
# Judging computer-use trajectories

You are a judge. Each task gives you the id of one recorded desktop trajectory
and asks whether that trajectory accomplished its instruction.

## Where things are

- `data/markdowns/<trajectory_id>.md`: the instruction (under "Goal") and every
  step: its action and, when recorded, a screenshot link and a timestamp.
- `data/jsons/<trajectory_id>.json`: the same trajectory as structured data.
- `data/media/images/<folder>/step_N.png`: screenshots; step ids are 0-based,
  screenshot file names 1-based (step 0 is `step_1.png`).

## How to judge

1. Read the instruction and note every detail that decides success: names,
   dates, numbers, formats, recipients, file names.
2. Follow the steps. Check in the typed text and the screenshots that each of
   those details was used exactly as asked. A clean, coherent run of a
   *similar* task is still a failure.
3. Look at the final screenshots for the end state.

## Mistake types (when the trajectory fails)

- "Critical Mistake": the core objective is not achieved (wrong entity, wrong
  primary action); the user would have to start over.
- "Bad Side Effect": the goal is largely met, but with an unwanted, costly,
  risky or externally visible consequence that must be undone.
- "Misunderstanding of the Instruction": a coherent result that misses a
  parameter or constraint and can be fixed by a small local edit.

## Answer

Reply with one JSON object and nothing after it:

```json
{"success": false, "reasoning": "...", "confidence": "high", "mistake_type": "Critical Mistake"}
```

`success` is a JSON boolean; `confidence` is "low", "medium" or "high";
`mistake_type` is null when `success` is true.
"""

PROMPT_TEXT = f"""\
Judge the trajectory {PROMPT_PLACEHOLDER}.

Read data/markdowns/{PROMPT_PLACEHOLDER}.md, open the screenshots it links as
needed, and decide whether the trajectory accomplished its Goal exactly as
stated. Follow the framework in AGENTS.md and answer with its JSON object.
"""
