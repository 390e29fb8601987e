"""Screenshots of sample trajectories: small PNGs that look like desktop windows.

Each shows the task bar, the active application's window with the document's
lines at that step, any open picker list or scrolled document, and the pointer.
Every value the trajectory enters is readable (Pillow's bitmap font). Palette
PNGs with fixed encoder settings and no metadata: the same frame, the same bytes.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from agenthorizon.release.sample.trajectories import SELECTED_LINE, Frame, Overlay
from agenthorizon.schema import screenshot_filename

_COLOURS = (
    (46, 52, 64),  # 0 linux desktop
    (0, 84, 147),  # 1 windows desktop
    (107, 91, 149),  # 2 macos desktop
    (250, 250, 250),  # 3 window background
    (52, 58, 70),  # 4 title bar
    (240, 240, 240),  # 5 title text
    (226, 228, 232),  # 6 menu row
    (236, 239, 244),  # 7 side panel
    (30, 30, 30),  # 8 text
    (53, 132, 228),  # 9 accent
    (200, 204, 210),  # 10 placeholder lines
    (0, 0, 0),  # 11 pointer outline
    (255, 255, 255),  # 12 pointer fill
    (24, 26, 32),  # 13 task bar
    (255, 243, 176),  # 14 typed-text highlight
    (120, 124, 130),  # 15 secondary text
)
_PALETTE = [channel for colour in _COLOURS for channel in colour] + [0] * (768 - 3 * len(_COLOURS))
_DESKTOP = {"linux": 0, "windows": 1, "macos": 2}
_SECONDARY_PANEL = ("Recent", "Favourites", "Shared", "Settings")
_MENU = "File  Edit  View  Insert  Tools  Window  Help"
_PNG_OPTIONS = {"compress_level": 1, "bits": 4, "optimize": False}
"""Fixed encoder settings: the bytes depend on the pixels only."""


@dataclass(frozen=True)
class ScreenSpec:
    """Everything needed to draw one deliverable's screenshots (picklable)."""

    steps_id: str
    os: str
    screen_resolution: tuple[int, int]
    applications: tuple[str, ...]
    document: str
    side_panel: tuple[str, ...]
    states: tuple[tuple[tuple[int, str, int], ...], ...]  # document lines (app, text, style) per state
    overlays: tuple[Overlay, ...]
    frames: tuple[Frame, ...]


def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default_imagefont()


class _Layout:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.bar = max(10, height // 14)  # task bar height
        self.margin = max(4, width // 40)
        self.window = (self.margin, self.margin, width - self.margin, height - self.bar - self.margin)
        self.title = max(12, height // 14)
        self.menu = 12
        left, top, right, _ = self.window
        self.panel = (left, top + self.title + self.menu, left + (right - left) // 4, self.window[3])
        self.content = (self.panel[2] + 6, self.panel[1] + 4, right - 6, self.window[3] - 4)
        self.line_height = 12


def _fit(text: str, pixels: int) -> str:
    limit = max(1, pixels // 6)  # the bitmap font is 6 pixels wide
    return text if len(text) <= limit else text[: limit - 1] + "~"


def _base(spec: ScreenSpec, app: int, layout: _Layout, font) -> Image.Image:
    image = Image.new("P", (layout.width, layout.height), _DESKTOP.get(spec.os, 0))
    image.putpalette(_PALETTE)
    draw = ImageDraw.Draw(image)
    width, height = layout.width, layout.height
    draw.rectangle((0, height - layout.bar, width, height), fill=13)
    for index, name in enumerate(spec.applications):
        x = int(width * (0.3 + 0.06 * index))  # where the trajectory clicks to open it
        draw.rectangle((x - 5, height - layout.bar + 2, x + 5, height - 2), fill=9 if index == app else 15)
    if app < 0:
        return image
    left, top, right, bottom = layout.window
    draw.rectangle(layout.window, fill=3, outline=4)
    draw.rectangle((left, top, right, top + layout.title), fill=4)
    # the task's document lives in its first application; the others show their own name
    title = f"{spec.document} - {spec.applications[app]}" if app == 0 else spec.applications[app]
    draw.text((left + 6, top + (layout.title - 11) // 2), _fit(title, right - left - 40), fill=5, font=font)
    for offset, colour in ((14, 11), (26, 15), (38, 15)):  # window buttons
        draw.rectangle((right - offset, top + 3, right - offset + 7, top + 10), fill=colour)
    draw.rectangle((left, top + layout.title, right, top + layout.title + layout.menu), fill=6)
    draw.text((left + 4, top + layout.title), _fit(_MENU, right - left - 8), fill=8, font=font)
    draw.rectangle(layout.panel, fill=7)
    for index, entry in enumerate(spec.side_panel if app == 0 else _SECONDARY_PANEL):
        y = layout.panel[1] + 4 + index * layout.line_height
        if y + 11 > layout.panel[3]:
            break
        draw.text((layout.panel[0] + 4, y), _fit(entry, layout.panel[2] - layout.panel[0] - 6), fill=8, font=font)
    # placeholder content: grey bars whose lengths depend on the application only
    seed = zlib.crc32(spec.applications[app].encode("utf-8"))
    x0, y0, x1, y1 = layout.content
    y = y1 - 8
    while y > y0 + (y1 - y0) // 2:
        length = (x1 - x0) * (40 + seed % 55) // 100
        draw.rectangle((x0, y, x0 + length, y + 3), fill=10)
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        y -= 8
    return image


def _pointer(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    draw.polygon([(x, y), (x, y + 11), (x + 3, y + 8), (x + 7, y + 8)], fill=12, outline=11)


def _overlay(draw: ImageDraw.ImageDraw, overlay: Overlay, layout: _Layout, font) -> None:
    """A picker list (entries, one highlighted) or a document, in the lower part of the content area."""
    x0, y0, x1, y1 = layout.content
    top = y0 + (y1 - y0) // 3
    rows = max(1, (y1 - top - layout.line_height - 4) // layout.line_height)
    entries = overlay.entries[:rows]
    bottom = min(y1, top + (len(entries) + 1) * layout.line_height + 4)
    draw.rectangle((x0, top, x1, bottom), fill=3, outline=4)
    draw.rectangle((x0, top, x1, top + layout.line_height), fill=4)
    draw.text((x0 + 3, top), _fit(overlay.title, x1 - x0 - 6), fill=5, font=font)
    for index, entry in enumerate(entries):
        y = top + (index + 1) * layout.line_height + 2
        if index == overlay.highlight:
            draw.rectangle((x0 + 1, y - 1, x1 - 1, y + 10), fill=9)
        draw.text((x0 + 3, y), _fit(entry, x1 - x0 - 6), fill=12 if index == overlay.highlight else 8, font=font)


def draw_frame(spec: ScreenSpec, frame: Frame, layout: _Layout, bases: dict, font) -> Image.Image:
    """The screenshot of one step."""
    if frame.app not in bases:
        bases[frame.app] = _base(spec, frame.app, layout, font)
    image = bases[frame.app].copy()
    draw = ImageDraw.Draw(image)
    if frame.app >= 0:
        x0, y0, x1, y1 = layout.content
        lines = [(text, style) for app, text, style in spec.states[frame.state] if app == frame.app]
        rows = max(1, ((y1 - y0) // 2) // layout.line_height)
        for index, (text, style) in enumerate(lines[-rows:]):
            y = y0 + index * layout.line_height
            shown = _fit(text, x1 - x0 - 4)
            if style == SELECTED_LINE:  # a field holding a value picked from a list
                draw.rectangle((x0 - 2, y - 1, x0 + 6 * len(shown) + 1, y + 10), fill=7, outline=9)
            else:  # typed text
                draw.rectangle((x0 - 2, y - 1, x0 + 6 * len(shown) + 1, y + 10), fill=14)
            draw.text((x0, y), shown, fill=8, font=font)
        caret_y = y0 + min(len(lines), rows) * layout.line_height
        draw.line((x0, caret_y, x0, caret_y + 9), fill=9)
        if frame.overlay >= 0:
            _overlay(draw, spec.overlays[frame.overlay], layout, font)
    width, height = spec.screen_resolution
    x = int(frame.cursor[0] * layout.width / width)
    y = int(frame.cursor[1] * layout.height / height)
    _pointer(draw, min(x, layout.width - 8), min(y, layout.height - 12))
    return image


def write_screens(spec: ScreenSpec, folder: str | os.PathLike, size: tuple[int, int]) -> int:
    """Write every screenshot of one deliverable into ``folder``; return how many."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    layout = _Layout(*size)
    font = _font()
    bases: dict[int, Image.Image] = {}
    for frame in spec.frames:
        image = draw_frame(spec, frame, layout, bases, font)
        image.save(folder / screenshot_filename(frame.step_id), format="PNG", **_PNG_OPTIONS)
    return len(spec.frames)


def write_screens_task(args: tuple) -> int:
    """``write_screens`` with one tuple argument, for process pools."""
    return write_screens(*args)
