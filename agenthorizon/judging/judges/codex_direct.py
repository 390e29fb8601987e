"""``codex-direct:MODEL``: a direct judge that goes through ``codex exec --output-schema``.

The paper's "GPT-5.5, direct" row (SPEC section 5). The OpenAI-compatible
judge's texts (:func:`~agenthorizon.judging.judges.direct_messages.chat_messages`),
joined by blank lines without the image captions, go on stdin; each screenshot
as ``--image FILE`` (:func:`attached_note` says which step each shows); the
verdict's JSON Schema as ``--output-schema FILE``; no tools (:data:`NO_TOOLS`).
Confined as the ``codex`` preset. The item's folder holds only the images and
the schema: no ``AGENTS.md``, which Codex would read into its instructions.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import JudgeOutput
from agenthorizon.judging.judges.direct_messages import SystemPrompt, chat_messages, check_layout, protocol_record, text_chars
from agenthorizon.judging.judges.direct_settings import MessageSettings, group_options
from agenthorizon.judging.judges.knobs import knobs
from agenthorizon.judging.judges.openai_images import ImageOptions, ImagePlan
from agenthorizon.judging.judges.presets import HARNESSES, HarnessJudge
from agenthorizon.judging.judges.prompts import DIRECT_PROMPT, verdict_json_schema
from agenthorizon.judging.judges.release_prompt import PROMPT_PROJECT, PROMPT_RELEASE, prompt_record
from agenthorizon.schema import ABLATE_SCREENSHOTS, IMAGE_MODE_AUTO, IMAGE_MODE_MOSAIC, IMAGE_MODE_NONE, IMAGE_MODE_PER_STEP

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["CODEX_DIRECT", "NO_TOOLS", "CodexDirectJudge", "attached_note", "joined_texts"]

SCHEMA_FILE = "verdict.schema.json"
IMAGES_FOLDER = "images"
NO_TOOLS = (
    "--disable", "shell_tool", "--disable", "multi_agent", "--disable", "goals", "-c", 'web_search="disabled"',
)
"""The ``codex exec`` settings that take the model's tools away: shell, sub-agents, goals, web search.

Codex still declares ``request_user_input`` (fails in exec mode) and ``view_image`` (the item's
folder only); the real-CLI test checks that exactly these two remain."""

CODEX_DIRECT = dataclasses.replace(
    HARNESSES["codex"],
    name="codex-direct",
    title="Codex CLI (direct)",
    # The prompt on stdin ("-" after "--": --image takes several values and would swallow it).
    argv=("codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "--sandbox", "read-only", *NO_TOOLS,
          "--output-schema", "{schema}", "-m", "{model}", "{images}", "--", "-"),
    stdin="{prompt}",
    tools={"paper": ()},
    # No shell command ever runs, so Codex's own sandbox (user namespaces) is never built.
    nested_userns=False,
)
"""The ``codex exec`` command line of the direct path, as a :class:`~agenthorizon.judging.judges.presets.Harness`."""


def attached_note(images: list[Any], mode: str) -> str:
    """The sentence that says which step each attached image shows.

    >>> from agenthorizon.data.images import PreparedImage
    >>> attached_note([PreparedImage((0,), b"", "image/jpeg", (1, 1)), PreparedImage((2,), b"", "image/jpeg", (1, 1))], "per-step")
    '2 screenshots are attached as images, in step order: steps 0, 2.'
    """
    if not images:
        return ""
    if mode == IMAGE_MODE_MOSAIC:
        held = "; ".join(f"image {index} holds steps {', '.join(map(str, image.steps))}"
                         for index, image in enumerate(images, 1))
        return (f"{len(images)} images are attached, each a 2x2 grid of consecutive screenshots read left to right, "
                f"top to bottom: {held}.")
    return f"{len(images)} screenshots are attached as images, in step order: steps {', '.join(str(image.steps[0]) for image in images)}."


def joined_texts(messages: list[dict[str, Any]], images: list[Any]) -> str:
    """Every text of ``messages`` in order, joined by blank lines, without the images' captions.

    >>> joined_texts([{"role": "system", "content": "Judge."},
    ...               {"role": "user", "content": [{"type": "text", "text": "Goal"}, {"type": "text", "text": "Step 1"}]}], [])
    'Judge.\\n\\nGoal\\n\\nStep 1'
    """
    captions = {image.caption() for image in images}
    texts: list[str] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
            continue
        for index, part in enumerate(content):
            if part.get("type") != "text":
                continue
            following = content[index + 1] if index + 1 < len(content) else {}
            if following.get("type") == "image_url" and part["text"] in captions:
                continue
            texts.append(part["text"])
    return "\n\n".join(texts)


@dataclass(frozen=True)
class _Request:
    """One item's request: the stdin text and the images in order."""

    prompt: str
    images: list[Any]


CODEX_DIRECT_OPTIONS = frozenset(item.option for item in knobs(ImageOptions, MessageSettings)) - {"max_images"}
"""The direct judge's options this judge takes: its message and screenshots (no server image limit)."""


class CodexDirectJudge(HarnessJudge):
    """The direct judge through ``codex exec --output-schema``.

    Parameters
    ----------
    model : str
        The model as Codex names it (``gpt-5.5``), of the provider the user's ``~/.codex/config.toml`` sets.
    images : ImageOptions, optional
        The screenshots, as for
        :class:`~agenthorizon.judging.judges.openai_compat.OpenAICompatibleJudge`;
        the mode is ``per-step`` (default), ``mosaic`` or ``none`` (no server
        limit to fall back from: ``auto`` is ``per-step`` here, ``max_images`` unused).
    message : MessageSettings, optional
        The prompt (``project`` or a template), layout, step times and system prompt.
    program : str, optional
        The ``codex`` executable, when it is not on ``PATH``.
    **options
        The command judge's (``timeout``, ``sandbox``, ``env``, ``agent_endpoints``...).

    :meth:`from_options` takes flat option names (``layout="paper"``).

    >>> judge = CodexDirectJudge.from_options("gpt-5.5", layout="paper")
    >>> judge.spec()["spec"], "--output-schema" in judge.spec()["command"]
    ('codex-direct:gpt-5.5', True)
    """

    def __init__(
        self, model: str, *, images: ImageOptions | None = None, message: MessageSettings | None = None,
        program: str | None = None, **options: Any,
    ) -> None:
        message = message or MessageSettings()
        if message.prompt == PROMPT_RELEASE:
            raise ValueError("codex-direct judge: prompt must be 'project' or a template; the release's prompt is "
                             "for agents that read the item's files (use codex:MODEL)")
        images = images or ImageOptions(IMAGE_MODE_PER_STEP)
        if images.mode == IMAGE_MODE_AUTO:
            images = dataclasses.replace(images, mode=IMAGE_MODE_PER_STEP)
        # The command judge's prompt is unused (command_line sends this judge's own text); it must only be valid.
        super().__init__(CODEX_DIRECT, model, prompt="{{TRAJECTORY_ID}}", program=program, **options)
        self.template = DIRECT_PROMPT if message.prompt == PROMPT_PROJECT else message.prompt
        self.image_options = images
        self.ablation = (ABLATE_SCREENSHOTS,) if images.mode == IMAGE_MODE_NONE else ()
        self.layout = check_layout(message.layout, bool(message.timestamps))
        self.timestamps = bool(message.timestamps)
        self.system_prompt = None if message.system_prompt is None else SystemPrompt.read(message.system_prompt)
        self.reports_cost = False
        # Set by make_judge(..., preset=NAME), as for the OpenAI-compatible judge.
        self.preset: dict[str, Any] | None = None
        self.run_defaults: dict[str, Any] = {}
        self._requests: dict[str, _Request] = {}

    @classmethod
    def from_options(cls, model: str, **options: Any) -> CodexDirectJudge:
        """The judge from flat options: :data:`CODEX_DIRECT_OPTIONS` and the command judge's."""
        own = {name: options.pop(name) for name in list(options) if name in CODEX_DIRECT_OPTIONS}
        groups = group_options({"images": IMAGE_MODE_PER_STEP, **own})
        return cls(model, images=groups["images"], message=groups["message"], **options)

    # --- description ------------------------------------------------------------

    def spec(self) -> dict[str, Any]:
        spec = super().spec()
        spec.update(
            name=self.harness.name, spec=f"{self.harness.name}:{self.model}", images=self.image_options.record(),
            layout=self.layout, timestamps=self.timestamps, sampling={"output_schema": verdict_json_schema()},
        )
        for key in ("agent_tools", "reasoning_effort", "framework"):
            spec.pop(key, None)
        spec.update(protocol_record(self.system_prompt, self.preset))
        return spec

    def _prompt_record(self) -> dict[str, Any]:
        return prompt_record(self.template, None)

    @property
    def needs_release(self) -> bool:
        return False

    def bind_release(self, root: Any) -> None:
        """Nothing to read: the item's folder holds no release file."""

    def image_settings(self, mode: str | None = None) -> Any:
        """The image settings of ``mode`` (default: this judge's); ``None`` for text only."""
        return self.image_options.settings(mode)

    # --- one item ------------------------------------------------------------------

    def _messages(self, judge_input: JudgeInput, images: list[Any], mode: str) -> list[dict[str, Any]]:
        return chat_messages(self.template, judge_input, images, mode=mode, layout=self.layout,
                             system=self.system_prompt, timestamps=self.timestamps,
                             image_note=attached_note(images, mode))

    def build_request(self, judge_input: JudgeInput) -> tuple[str, list[Any], ImagePlan]:
        """The stdin text, the prepared images in order and their plan, for one item."""
        counter = None
        if self.image_options.covers_input:
            def counter(plan: ImagePlan) -> int:
                # The same count as the OpenAI-compatible judge's: every text part (SPEC section 5's texts).
                return text_chars(self._messages(judge_input, self.image_options.stand_ins(judge_input, plan), plan.mode))
        plan = self.image_options.plan(judge_input, counter)
        images = list(self.image_options.prepare(judge_input, plan))
        return joined_texts(self._messages(judge_input, images, plan.mode), images), images, plan

    async def ajudge(self, judge_input: JudgeInput) -> JudgeOutput:
        import asyncio

        prompt, images, plan = await asyncio.to_thread(self.build_request, judge_input)
        self._requests[judge_input.trajectory_id] = _Request(prompt, images)
        try:
            output = await super().ajudge(judge_input)
        finally:
            self._requests.pop(judge_input.trajectory_id, None)
        output.extra.update(plan.telemetry(images))
        return output

    def write_workdir(self, judge_input: JudgeInput, workdir: Path) -> None:
        """The item's folder: its images (``images/N.jpg``, in order) and the verdict schema; nothing else."""
        request = self._requests[judge_input.trajectory_id]
        (workdir / IMAGES_FOLDER).mkdir()
        for path, image in zip(self._image_paths(workdir, request), request.images):
            path.write_bytes(image.data)
        (workdir / SCHEMA_FILE).write_text(json.dumps(verdict_json_schema()), encoding="utf-8")

    def _image_paths(self, workdir: Path, request: _Request) -> list[Path]:
        suffix = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp"}
        return [workdir / IMAGES_FOLDER / f"{index}{suffix.get(image.mime_type, '.jpg')}"
                for index, image in enumerate(request.images, 1)]

    def command_line(self, prompt: str, scratch: Path, workdir: Path, trajectory_id: str) -> tuple[list[str], str | None]:
        request = self._requests[trajectory_id]
        argv, _ = super().command_line(prompt, scratch, workdir, trajectory_id)
        images = [piece for path in self._image_paths(workdir, request) for piece in ("--image", str(path))]
        expanded: list[str] = []
        for part in argv:
            if part == "{images}":
                expanded += images
            else:
                expanded.append(part.replace("{schema}", str(workdir / SCHEMA_FILE)))
        return expanded, request.prompt

    def exposure(self) -> dict[str, Any] | None:
        """As the preset's, for an item of no images (the argv's image files are the item's own)."""
        self._requests.setdefault("<trajectory_id>", _Request("", []))
        try:
            return super().exposure()
        finally:
            self._requests.pop("<trajectory_id>", None)

