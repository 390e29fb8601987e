"""Step sequences of sample trajectories, and what each screenshot shows.

A trajectory is its template's beats with ordinary desktop activity between
them, up to the wanted number of steps. It records a :class:`Frame` per
screenshot, so screenshots are drawn later (possibly in another process) from
plain data. How the detail is entered is its :class:`Evidence`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from agenthorizon.release.sample.tasks import OS_APPLICATION_NAMES, TaskTemplate
from agenthorizon.schema import screenshot_ref

_FILLER_KINDS = (
    "click", "right_click", "double_click", "scroll", "drag", "move", "press", "hotkey", "key_hold", "wait",
)
_FILLER_LENGTH = {"key_hold": 3}  # key_down, a click while the key is held, key_up
_UNKNOWN_ACTIONS = ("triple_click", "screenshot")
"""Action types outside the SPEC's list; they must be carried through, not dropped."""

_PRESS_KEYS = (("tab",), ("down",), ("up",), ("down", "down"), ("pagedown",), ("escape",), ("home",))
_HOTKEYS = (("ctrl", "c"), ("ctrl", "z"), ("alt", "tab"), ("ctrl", "shift", "t"), ("ctrl", "f"), ("ctrl", "a"))
_HOLD_KEYS = ("shift", "ctrl", "alt")


MODES = ("typed", "selected", "reformatted", "corrected")
"""Evidence modes, from the easiest to read from text to the ones that need the screenshots."""

TYPED_LINE, SELECTED_LINE = 0, 1
"""Styles of a document line: typed text (highlighted) or a value picked from a list (a field)."""


@dataclass(frozen=True)
class Evidence:
    """How a trajectory enters its detail: what makes an item easy or hard to judge.

    ``mode`` is ``typed`` (verbatim: a string match finds it), ``selected``
    (clicked in a picker list: the value shows only in the screenshots; free
    text says ``template.neutral``), ``reformatted`` (another surface form of
    the same value, ``14.03.2025`` for March 14, 2025) or ``corrected``
    (``wrong``, a sibling's value, typed first, then overwritten: only the
    last counts). ``distractor`` is a sibling's value in a document the agent
    scrolls past (any mode; it never enters the typed text), or None.
    """

    mode: str = "typed"
    wrong: str | None = None
    distractor: str | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown evidence mode {self.mode!r}; expected one of {', '.join(MODES)}")
        if (self.mode == "corrected") != (self.wrong is not None):
            raise ValueError("a wrong value is given exactly for the corrected mode")


@dataclass(frozen=True)
class Frame:
    """Screen state shown by one step's screenshot (taken before its action)."""

    step_id: int
    app: int  # index into the trajectory's applications; -1: the desktop
    state: int  # index into Trajectory.states: the document lines at that moment
    cursor: tuple[float, float]  # pointer position in screen coordinates
    overlay: int = -1  # index into Trajectory.overlays: an open list or document; -1: none


@dataclass(frozen=True)
class Overlay:
    """A popup drawn over the document: a picker list (``highlight`` >= 0) or a scrolled document."""

    title: str
    entries: tuple[str, ...]
    highlight: int = -1


@dataclass(frozen=True)
class Trajectory:
    """One deliverable's recorded trajectory."""

    steps: list[dict]  # JSON steps (step_id, screenshot?, action, timestamp_us?)
    frames: list[Frame]  # one per step that has a screenshot
    typed: list[tuple[int, str]]  # (app index, text) of every type action, in order
    applications: tuple[str, ...]
    states: list[tuple[tuple[int, str, int], ...]] = field(default_factory=list)  # (app, text, style) lines
    overlays: list[Overlay] = field(default_factory=list)
    evidence: Evidence = Evidence()

    def final_lines(self) -> tuple[str, ...]:
        """The document lines of the last state: what the final screenshots can show."""
        return tuple(text for _, text, _ in self.states[-1]) if self.states else ()


@dataclass
class FillerCycle:
    """Corpus-wide rotation through the filler action kinds, so even the tiny corpus shows every action type."""

    rng: random.Random
    order: list[str] = field(default_factory=list)
    rounds: int = 0
    count: int = 0

    def next_kind(self, budget: int) -> str:
        """The next kind that fits in ``budget`` steps; a kind that does not fit waits its turn."""
        if not self.order:
            kinds = list(_FILLER_KINDS)
            if self.rounds % 4 == 0:
                kinds.append(_UNKNOWN_ACTIONS[(self.rounds // 4) % len(_UNKNOWN_ACTIONS)])
            self.rng.shuffle(kinds)
            self.order = kinds
            self.rounds += 1
        self.count += 1
        for index in range(len(self.order) - 1, -1, -1):
            if _FILLER_LENGTH.get(self.order[index], 1) <= budget:
                return self.order.pop(index)
        return "move"  # only multi-step kinds are left and they do not fit


def application_name(application: str, os_name: str) -> str:
    """The application's name on ``os_name`` (Files is Finder on macOS, ...)."""
    return OS_APPLICATION_NAMES.get(application, {}).get(os_name, application)


def _carries_detail(beat: tuple) -> bool:
    return beat[0] == "type" and ("{d}" in beat[1] or "{dl}" in beat[1])


def _beat_length(beat: tuple) -> int:
    return 2 if beat[0] == "type" else 1  # typing needs a click into the field first


def _mode_length(beat: tuple, mode: str, primary: bool) -> int:
    """Steps a detail beat takes in ``mode`` (picking: open the list, click the entry)."""
    if mode == "selected" and (primary or beat[1] in ("{d}", "{dl}")):
        return 2
    if mode == "corrected" and primary:
        return 4  # click, type the wrong value, select it, type the right one over it
    return _beat_length(beat)


def _select_beats(template: TaskTemplate, n_steps: int) -> list[tuple]:
    """The template's beats, dropping optional ones (no detail, not the first open) when short."""
    beats = list(template.beats)
    essential = [
        index == 0 or _carries_detail(beat)
        for index, beat in enumerate(beats)
    ]
    # leave a third of a short trajectory to ordinary activity, so that even the
    # tiny corpus shows every action type
    budget = n_steps - n_steps // 3
    while sum(_beat_length(beat) for beat in beats) > budget and not all(essential):
        drop = max(index for index, keep in enumerate(essential) if not keep)
        del beats[drop], essential[drop]
    return beats


class _Builder:
    """Accumulates steps, frames and typed texts of one trajectory."""

    def __init__(self, steps_id, template, detail, evidence, os_name, resolution, start_us, rng, flags):
        self.steps_id = steps_id
        self.template = template
        self.detail = detail
        self.evidence = evidence
        self.primary_done = False
        self.lines: list[tuple[int, str, int]] = []
        self.states: list[tuple[tuple[int, str, int], ...]] = [()]
        self.overlays: list[Overlay] = []
        self.overlay = -1
        self.os = os_name
        self.width, self.height = resolution
        self.rng = rng
        self.flags = flags
        self.now = start_us
        self.app = -1
        self.cursor = (self.width / 2, self.height / 2)
        self.steps: list[dict] = []
        self.frames: list[Frame] = []
        self.typed: list[tuple[int, str]] = []

    # coordinates ---------------------------------------------------------------
    def coord(self, value: float) -> int | float:
        # macOS records points: half-pixel coordinates occur there and stay floats
        if self.os == "macos" and self.rng.random() < 0.3:
            return int(value) + 0.5
        return int(value)

    def point_in_document(self) -> tuple[int | float, int | float]:
        return (
            self.coord(self.rng.uniform(0.32, 0.9) * self.width),
            self.coord(self.rng.uniform(0.25, 0.85) * self.height),
        )

    def keys(self, keys: tuple[str, ...]) -> list[str]:
        if self.os == "macos":
            return ["command" if key == "ctrl" else key for key in keys]
        return list(keys)

    # steps -----------------------------------------------------------------------
    def add(self, kind: str, parameters: dict, *, pointer: tuple | None = None) -> None:
        step_id = len(self.steps)
        if pointer is not None:
            self.cursor = (float(pointer[0]), float(pointer[1]))
        step: dict = {"step_id": step_id}
        # draw the random numbers unconditionally so a forced gap changes nothing else
        no_shot = self.rng.random() < 0.02 or self.flags.get("no_screenshot") == step_id
        no_time = self.rng.random() < 0.02 or self.flags.get("no_timestamp") == step_id
        if not no_shot:
            step["screenshot"] = screenshot_ref(self.steps_id, step_id)
            self.frames.append(Frame(step_id, self.app, len(self.states) - 1, self.cursor, self.overlay))
        step["action"] = {"type": kind, "parameters": parameters}
        if not no_time:
            step["timestamp_us"] = self.now
        self.steps.append(step)
        self.now += self.rng.randint(350_000, 4_800_000)

    def click(self, point, *, button: str = "left", clicks: int = 1) -> None:
        parameters = {"x": point[0], "y": point[1], "button": button}
        if clicks > 1:
            parameters["num_clicks"] = clicks
        self.add("click", parameters, pointer=point)

    def open_app(self, index: int) -> None:
        slot = self.coord(self.width * (0.3 + 0.06 * index))
        self.click((slot, self.coord(self.height - 18)))
        self.app = index

    def show(self, text: str, style: int = TYPED_LINE, *, replace: bool = False) -> None:
        """Change the document lines after an action (the next screenshot shows it)."""
        if replace:
            self.lines[-1] = (self.app, text, style)
        else:
            self.lines.append((self.app, text, style))
        self.states.append(tuple(self.lines))

    def type_text(self, text: str) -> None:
        self.click(self.point_in_document())
        self.add("type", {"text": text})
        self.typed.append((self.app, text))
        self.show(text)

    def pick(self, title: str, value: str, options: tuple[str, ...]) -> None:
        """Open a list and click one entry: two clicks, the value only on screen."""
        self.click(self.point_in_document())
        self.overlays.append(Overlay(title, options, options.index(value)))
        self.overlay = len(self.overlays) - 1
        self.click(self.point_in_document())
        self.overlay = -1
        self.show(f"{title}: {value}", SELECTED_LINE)

    def correct(self, wrong_text: str, right_text: str) -> None:
        """Type a wrong value, select it, type the right one over it."""
        self.type_text(wrong_text)
        self.add("hotkey", {"keys": self.keys(("ctrl", "a"))})
        self.add("type", {"text": right_text})
        self.typed.append((self.app, right_text))
        self.show(right_text, replace=True)

    def scroll_past(self, title: str, lines: tuple[str, ...]) -> None:
        """Open a reference document, scroll through it, close it (four steps)."""
        self.click(self.point_in_document())
        self.overlays.append(Overlay(title, lines))
        self.overlay = len(self.overlays) - 1
        for _ in range(2):
            x, y = self.point_in_document()
            self.add("scroll", {"x": x, "y": y, "direction": "down", "amount": 300}, pointer=(x, y))
        self.add("press", {"keys": ["escape"]})
        self.overlay = -1

    def detail_beat(self, text: str) -> None:
        """A typed beat that carries the detail, entered as the evidence mode says."""
        template, detail, mode = self.template, self.detail, self.evidence.mode
        primary = not self.primary_done
        self.primary_done = True
        if mode == "typed":
            self.type_text(template.render(text, detail))
        elif mode == "reformatted":
            self.type_text(template.render(text, detail, template.alternate(detail)))
        elif mode == "corrected":
            if primary:
                self.correct(template.render(text, self.evidence.wrong), template.render(text, detail))
            else:
                self.type_text(template.render(text, detail))
        elif primary or text in ("{d}", "{dl}"):  # selected: a field the value is picked for
            self.pick(template.picker, detail, template.options(detail))
        else:  # selected: free text refers to the picked value without spelling it
            self.type_text(template.render(text, detail, template.neutral))

    def beat(self, beat: tuple) -> None:
        kind = beat[0]
        if kind == "open":
            self.open_app(beat[1])
        elif kind == "type" and _carries_detail(beat):
            self.detail_beat(beat[1])
        elif kind == "type":
            self.type_text(self.template.render(beat[1], self.detail))
        elif kind == "distract":
            self.scroll_past(*beat[1:])
        elif kind in ("hotkey", "press"):
            self.add(kind, {"keys": self.keys(beat[1])})
        else:  # pragma: no cover - templates are data of this package
            raise ValueError(f"unknown beat {beat!r}")

    def filler(self, kind: str, missing_value: bool) -> None:
        """Add one filler action (three steps for a held key)."""
        rng = self.rng
        if kind == "click":
            self.click(self.point_in_document())
        elif kind == "right_click":
            self.click(self.point_in_document(), button="right")
        elif kind == "double_click":
            self.click(self.point_in_document(), clicks=2)
        elif kind == "scroll":
            x, y = self.point_in_document()
            parameters = {"x": x, "y": y, "direction": rng.choice(("up", "down", "down")),
                          "amount": rng.choice((100, 200, 300, 500))}
            if missing_value:  # recorders sometimes lose a value; it must render as "?"
                del parameters["amount"]
            self.add("scroll", parameters, pointer=(x, y))
        elif kind == "drag":
            start, end = self.point_in_document(), self.point_in_document()
            self.add("drag", {"start_x": start[0], "start_y": start[1], "end_x": end[0], "end_y": end[1]},
                     pointer=end)
        elif kind == "move":
            point = self.point_in_document()
            self.add("move", {"x": point[0], "y": point[1]}, pointer=point)
        elif kind == "press":
            self.add("press", {"keys": self.keys(rng.choice(_PRESS_KEYS))})
        elif kind == "hotkey":
            self.add("hotkey", {"keys": self.keys(rng.choice(_HOTKEYS))})
        elif kind == "key_hold":
            key = rng.choice(_HOLD_KEYS)
            self.add("key_down", {"key": key})
            self.click(self.point_in_document())
            self.add("key_up", {"key": key})
        elif kind == "wait":
            self.add("wait", {"duration_s": rng.choice((0.5, 1, 1.5, 2, 3))})
        elif kind == "triple_click":
            point = self.point_in_document()
            self.add("triple_click", {"x": point[0], "y": point[1]}, pointer=point)
        else:  # "screenshot" and any other unknown kind: no parameters
            self.add(kind, {})


def build_trajectory(
    steps_id: str,
    template: TaskTemplate,
    detail: str,
    os_name: str,
    resolution: tuple[int, int],
    n_steps: int,
    start_us: int,
    rng: random.Random,
    cycle: FillerCycle,
    flags: dict | None = None,
    evidence: Evidence = Evidence(),
) -> Trajectory:
    """Build a trajectory of ``n_steps`` steps (more if the detail beats need more).

    ``evidence`` says how the detail is entered (:class:`Evidence`).
    ``flags`` may ask for a step without screenshot (``{"no_screenshot": k}``)
    or without timestamp (``{"no_timestamp": k}``) at step ``k``.
    """
    if evidence.mode not in template.modes:
        raise ValueError(f"task {template.document!r} does not support the {evidence.mode!r} evidence mode")
    builder = _Builder(steps_id, template, detail, evidence, os_name, resolution, start_us, rng, dict(flags or {}))
    beats = _select_beats(template, n_steps)
    if evidence.distractor is not None:
        # the reference document is read early, before the detail is entered
        beats.insert(1, ("distract", distractor_title(template), distractor_lines(template, evidence.distractor)))
    lengths, seen_primary = [], False
    for beat in beats:
        if beat[0] == "distract":
            lengths.append(4)
        elif _carries_detail(beat):
            lengths.append(_mode_length(beat, evidence.mode, not seen_primary))
            seen_primary = True
        else:
            lengths.append(_beat_length(beat))
    core = sum(lengths)
    n_fill = max(0, n_steps - core)
    # draw the fillers first (whole units: a held key takes three steps), then
    # scatter them over the gaps after each beat (none before the first beat)
    fillers: list[tuple[str, bool]] = []
    remaining = n_fill
    while remaining > 0:
        missing_value = cycle.count % 150 == 7  # now and then a recorder loses a value
        kind = cycle.next_kind(remaining)
        fillers.append((kind, missing_value))
        remaining -= _FILLER_LENGTH.get(kind, 1)
    gaps: list[list[tuple[str, bool]]] = [[] for _ in beats]
    for filler in fillers:
        gaps[rng.randrange(len(beats))].append(filler)
    for beat, gap in zip(beats, gaps):
        builder.beat(beat)
        for kind, missing_value in gap:
            builder.filler(kind, missing_value)
    applications = tuple(application_name(app, os_name) for app in template.applications)
    return Trajectory(builder.steps, builder.frames, builder.typed, applications, builder.states,
                      builder.overlays, evidence)


def distractor_title(template: TaskTemplate) -> str:
    """Title of the reference document a trajectory scrolls past."""
    return f"notes_{template.detail_kind.replace(' ', '_')}.txt"


def distractor_lines(template: TaskTemplate, value: str) -> tuple[str, ...]:
    """Lines of the reference document: they mention ``value``, a sibling's detail."""
    return (
        f"Last time the {template.detail_kind} was {value}.",
        "Check the current request before changing anything.",
        f"Archived request: {template.render(template.instruction, value)}",
    )
