"""A release is downloaded data: hostile copies of the sample corpus, and what the package does with them.

Each test damages a private copy of the tiny corpus the way a malicious or
broken release could (links out of the release, references to label files,
bomb and truncated PNGs, deep JSON, text that is not UTF-8, ids that are not
UUIDs) and checks what a user sees: loading, ``verify``, export, the report,
the command judge's working directory and the CLI refuse or survive with a
message naming the file, never a traceback, and never a byte from outside
the release.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.data.images import ScreenshotError, open_image
from agenthorizon.release.files import read_labels
from agenthorizon.release.verify import verify_release
from agenthorizon.schema import LABEL_FILE_EASY, LABEL_FILE_HARD, json_relpath, markdown_relpath

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY----- not really"


# --- helpers -------------------------------------------------------------------------


def _load(root: Path, cache: Path, config: str = "all", **kwargs):
    return agenthorizon.load_dataset(root, config, split="test", cache_dir=cache, **kwargs)


def _rows(root: Path, name: str = LABEL_FILE_HARD) -> list[dict]:
    return [row for row in read_labels(root) if row["location"].startswith(name)]


def _shots(root: Path, row: dict) -> list[Path]:
    trajectory = json.loads((root / json_relpath(row["trajectory_id"])).read_text())
    folder = root / "sandbox/data/jsons"
    return [(folder / step["screenshot"]).resolve() for step in trajectory["steps"] if step.get("screenshot")]


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` pixels and holds (almost) no data: a bomb's header."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def _link(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


@pytest.fixture()
def secret(tmp_path: Path) -> Path:
    """A file outside the release, shaped like a private key."""
    path = tmp_path / "home" / ".ssh" / "id_rsa"
    path.parent.mkdir(parents=True)
    path.write_bytes(SECRET)
    return path


# --- links out of the release ----------------------------------------------------------


def test_a_screenshot_linked_out_of_the_release_is_refused_by_load_verify_and_export(
    tiny_copy: Path, datasets_cache: Path, secret: Path, tmp_path: Path, capsys
):
    row = _rows(tiny_copy)[0]
    first, second = _shots(tiny_copy, row)[:2]
    _link(first, secret)
    _link(second, secret)

    with pytest.raises(ValueError, match=rf"{first}.* is a link that leads out of the release \(to {secret}\)"):
        _load(tiny_copy, datasets_cache)
    # verify names every escaping link (for each label row showing the folder).
    problems = verify_release(tiny_copy)
    escaping = {p.path for p in problems if "leads out of the release" in p.message}
    assert escaping == {str(first), str(second)}
    # export --images full: refused with one line, and the key is in no file written.
    out = tmp_path / "out"
    assert main(["export", str(tiny_copy), str(out), "--images", "full", "--configs", "AH"]) == 2
    err = capsys.readouterr().err
    assert "leads out of the release" in err and "Traceback" not in err
    written = [p.read_bytes() for p in out.rglob("*") if p.is_file()] if out.exists() else []
    assert not any(SECRET in data for data in written)


def test_a_link_added_after_the_cache_was_built_is_refused_on_the_next_load(
    tiny_copy: Path, datasets_cache: Path, secret: Path
):
    assert len(_load(tiny_copy, datasets_cache, images="paths")) > 0  # cache built
    first = _shots(tiny_copy, _rows(tiny_copy)[0])[0]
    _link(first, secret)
    with pytest.raises(ValueError, match="leads out of the release"):
        _load(tiny_copy, datasets_cache, images="paths")


def test_a_trajectory_json_or_markdown_linked_out_is_refused(tiny_copy: Path, datasets_cache: Path, secret: Path):
    row = _rows(tiny_copy)[0]
    markdown = tiny_copy / markdown_relpath(row["trajectory_id"])
    _link(markdown, secret)
    with pytest.raises(ValueError, match=rf"{markdown}: markdown file is a link that leads out of the release"):
        _load(tiny_copy, datasets_cache)
    json_path = tiny_copy / json_relpath(row["trajectory_id"])
    _link(json_path, secret)
    messages = [p.message for p in verify_release(tiny_copy) if p.where == row["location"]]
    assert any("markdown file is a link that leads out" in m for m in messages)
    assert any("trajectory json is a link that leads out" in m for m in messages)


def test_a_label_file_linked_out_is_refused(tiny_copy: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere.jsonl"
    shutil.copy(tiny_copy / LABEL_FILE_EASY, outside)
    _link(tiny_copy / LABEL_FILE_EASY, outside)
    with pytest.raises(ValueError, match="label file is a link that leads out of the release"):
        read_labels(tiny_copy)
    assert any("label file is a link" in p.message for p in verify_release(tiny_copy))


def test_a_hub_snapshot_may_link_into_its_own_blob_store(tiny_root: Path, tmp_path: Path, datasets_cache: Path):
    """huggingface_hub's cache layout: snapshots/<commit>/<file> -> ../../blobs/<hash>."""
    import hashlib

    repo = tmp_path / "hub" / "datasets--owner--name"
    snapshot = repo / "snapshots" / ("c" * 40)
    (repo / "blobs").mkdir(parents=True)
    for source in tiny_root.rglob("*"):
        if source.is_file():
            data = source.read_bytes()
            blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
            blob.write_bytes(data)
            target = snapshot / source.relative_to(tiny_root)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(os.path.relpath(blob, target.parent))
    assert verify_release(snapshot) == []
    ds = _load(snapshot, datasets_cache, "AH")
    row = next(r for r in ds if any(p is not None for p in r["screenshots"].paths))
    index = next(i for i, p in enumerate(row["screenshots"].paths) if p is not None)
    assert row["screenshots"][index].size[0] > 0


# --- references that stay in the release but are not screenshots -----------------------------


def test_a_screenshot_reference_to_a_label_file_is_refused(tiny_copy: Path, datasets_cache: Path):
    row = _rows(tiny_copy)[0]
    json_path = tiny_copy / json_relpath(row["trajectory_id"])
    trajectory = json.loads(json_path.read_text())
    trajectory["steps"][0]["screenshot"] = "../../../AgentHorizon.jsonl"
    json_path.write_text(json.dumps(trajectory))
    with pytest.raises(ValueError, match=r"step 0: screenshot path '../../../AgentHorizon.jsonl' points at .*outside the screenshot folder"):
        _load(tiny_copy, datasets_cache)
    problems = [p for p in verify_release(tiny_copy) if p.where == row["location"]]
    assert any("outside the screenshot folder" in p.message for p in problems)


def test_the_command_judge_copies_only_files_that_decode_as_images(tiny_copy: Path, datasets_cache: Path, tmp_path: Path):
    from agenthorizon.judging.inputs import build_judge_input
    from agenthorizon.judging.judges.command import write_workdir

    row = _rows(tiny_copy)[0]
    shots = _shots(tiny_copy, row)
    shots[0].write_bytes((tiny_copy / LABEL_FILE_HARD).read_bytes())  # the label file, renamed step_1.png
    ds = _load(tiny_copy, datasets_cache)
    item = next(r for r in ds if r["trajectory_id"] == row["trajectory_id"])
    with pytest.warns(UserWarning, match=r"1 screenshot\(s\) do not decode as images .*screenshot of step 0"):
        workdir = write_workdir(build_judge_input(item), tmp_path / "work")
    copied = list((workdir / "data/media/images").rglob("*.png"))
    assert len(copied) == len(shots) - 1
    labels = (tiny_copy / LABEL_FILE_HARD).read_bytes()
    assert not any(p.read_bytes() == labels for p in workdir.rglob("*") if p.is_file())


# --- images: bombs, truncation ---------------------------------------------------------------


def test_a_bomb_header_is_refused_before_decoding_with_the_path(tiny_copy: Path, datasets_cache: Path):
    row = _rows(tiny_copy)[0]
    small_bomb, pillow_bomb = _shots(tiny_copy, row)[:2]
    small_bomb.write_bytes(_png_header(13000, 13000))  # under Pillow's own limit, over the budget
    pillow_bomb.write_bytes(_png_header(30000, 30000))  # over Pillow's limit too
    ds = _load(tiny_copy, datasets_cache)
    item = next(r for r in ds if r["trajectory_id"] == row["trajectory_id"])
    paths = item["screenshots"].paths
    with pytest.raises(ScreenshotError, match=rf"{small_bomb}: image of 13000x13000 = 169,000,000 pixels is over the pixel budget"):
        item["screenshots"][paths.index(str(small_bomb))]
    with pytest.raises(ScreenshotError, match=rf"{pillow_bomb}: image .*(decompression bomb|over the pixel budget)"):
        item["screenshots"][paths.index(str(pillow_bomb))]
    messages = {p.path: p.message for p in verify_release(tiny_copy)}
    assert "over the pixel budget" in messages[str(small_bomb)]
    assert "bomb" in messages[str(pillow_bomb)]


def test_the_pixel_budget_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from PIL import Image

    path = tmp_path / "wide.png"
    Image.new("RGB", (2000, 1000)).save(path)
    assert open_image(path).size == (2000, 1000)
    with pytest.raises(ScreenshotError, match="over the pixel budget of 1,000,000"):
        open_image(path, max_pixels=1_000_000)
    monkeypatch.setenv("AGENTHORIZON_MAX_PIXELS", "1000000")
    with pytest.raises(ScreenshotError, match="AGENTHORIZON_MAX_PIXELS"):
        open_image(path)


def test_a_truncated_png_fails_by_name_and_export_and_report_survive(
    tiny_copy: Path, datasets_cache: Path, tmp_path: Path
):
    row = _rows(tiny_copy)[0]
    shot = _shots(tiny_copy, row)[0]
    data = shot.read_bytes()
    shot.write_bytes(data[: len(data) // 2])
    ds = _load(tiny_copy, datasets_cache)
    item = next(r for r in ds if r["trajectory_id"] == row["trajectory_id"])
    with pytest.raises(ScreenshotError, match=rf"{shot}: image data does not decode"):
        item["screenshots"][item["screenshots"].paths.index(str(shot))]
    assert any(p.path == str(shot) and "does not read" in p.message for p in verify_release(tiny_copy))

    from agenthorizon.data.export import export_release

    for images in ("full", "thumbnails"):
        with pytest.warns(UserWarning, match=r"do not decode as images and were exported as null"):
            summary = export_release(tiny_copy, tmp_path / images, configs=["AH"], images=images)
        skipped = summary.configs["AH"].skipped_screenshots
        # every row showing the folder (the positive and its negative) counts it
        assert skipped and all(str(shot) in line for line in skipped)


def test_the_report_shows_a_placeholder_for_an_unreadable_screenshot(tiny_copy: Path, tmp_path: Path):
    from agenthorizon.judging.judges import make_judge
    from agenthorizon.judging.runs.runner import run_judge
    from agenthorizon.report.html import write_report

    ds = agenthorizon.load_dataset(tiny_copy, "AH", split="test", cache_dir=tmp_path / "cache")
    run = tmp_path / "run"
    run_judge(make_judge("constant"), ds, run, config="AH", data_root=tiny_copy, progress=False)
    for row in _rows(tiny_copy):
        for shot in _shots(tiny_copy, row):
            shot.write_bytes(_png_header(30000, 30000))
    with pytest.warns(UserWarning, match=r"screenshot\(s\) could not be read and are shown as placeholders"):
        path = write_report([run], tiny_copy, tmp_path / "report.html")
    text = path.read_text()
    assert "could not be read and are shown as placeholders" in text


# --- text that does not parse -------------------------------------------------------------------


def test_deep_json_gives_one_line_errors_naming_the_file(tiny_copy: Path, datasets_cache: Path, capsys):
    row = _rows(tiny_copy)[0]
    json_path = tiny_copy / json_relpath(row["trajectory_id"])
    json_path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match=rf"{json_path} .*json nested too deeply"):
        _load(tiny_copy, datasets_cache)
    assert main(["verify", str(tiny_copy)]) == 1
    out = capsys.readouterr().out
    assert f"{json_path}: json nested too deeply" in out
    assert main(["info", str(tiny_copy)]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and str(json_path) in err and "Traceback" not in err


def test_verify_refuses_what_loading_refuses(tiny_copy: Path, datasets_cache: Path):
    hard, easy = _rows(tiny_copy), _rows(tiny_copy, LABEL_FILE_EASY)
    markdown = tiny_copy / markdown_relpath(hard[0]["trajectory_id"])
    markdown.write_bytes(b"\xff\xfe not utf-8")
    json_path = tiny_copy / json_relpath(hard[1]["trajectory_id"])
    trajectory = json.loads(json_path.read_text())
    trajectory["steps"][0]["step_id"] = True
    json_path.write_text(json.dumps(trajectory))
    with pytest.raises(ValueError, match="not UTF-8"):
        _load(tiny_copy, datasets_cache)
    by_where = {}
    for problem in verify_release(tiny_copy):
        by_where.setdefault(problem.where, []).append(problem.message)
    assert any("not UTF-8" in m for m in by_where[hard[0]["location"]])
    assert any("step 0: step_id is True; expected an integer" in m for m in by_where[hard[1]["location"]])
    # steps_id versus the folder the json uses
    moved = tiny_copy / json_relpath(easy[0]["trajectory_id"])
    trajectory = json.loads(moved.read_text())
    other = next(r["steps_id"] for r in hard if r["steps_id"] != easy[0]["steps_id"])
    for step in trajectory["steps"]:
        if step.get("screenshot"):
            step["screenshot"] = f"../media/images/{other}/" + step["screenshot"].rsplit("/", 1)[1]
    moved.write_text(json.dumps(trajectory))
    assert any("not in the folder of the row's steps_id" in p.message for p in verify_release(tiny_copy))


def test_verify_refuses_an_empty_label_file_and_a_uuid_with_a_trailing_newline(tiny_copy: Path):
    (tiny_copy / LABEL_FILE_EASY).write_text("\n\n")
    problems = verify_release(tiny_copy)
    assert any(p.where == LABEL_FILE_EASY and "empty label file" in p.message for p in problems)
    lines = (tiny_copy / LABEL_FILE_HARD).read_text().splitlines()
    row = json.loads(lines[0])
    row["trajectory_id"] += "\n"
    lines[0] = json.dumps(row)
    (tiny_copy / LABEL_FILE_HARD).write_text("\n".join(lines) + "\n")
    assert any("is not a UUID" in p.message for p in verify_release(tiny_copy))


@pytest.mark.parametrize("text", ["", "\n \n"])
def test_load_dataset_refuses_an_empty_label_file_as_verify_does(text: str, tiny_copy: Path, datasets_cache: Path, capsys):
    (tiny_copy / LABEL_FILE_EASY).write_text(text)
    message = f"{LABEL_FILE_EASY}: empty label file (no label line); expected one label object per line"
    with pytest.raises(ValueError) as refused:
        _load(tiny_copy, datasets_cache, config="AH")  # even a config of the other file: the release is broken
    assert str(refused.value) == message
    assert [p.message for p in verify_release(tiny_copy)] == [message]
    assert main(["info", str(tiny_copy)]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("length", "expected"), [
    # A 50 MB line is refused at the label line bound, unparsed and unechoed.
    (50 * 2**20, "AgentHorizon.jsonl:1: a line longer than 4096 characters; expected one label object"),
    # A long id within the bound is echoed cut, with its length, and escaped.
    (3000, f"trajectory_id '\\x1b[2J{'9' * 76}'… (3,000 characters) is not a UUID"),
])
@pytest.mark.slow
def test_a_huge_trajectory_id_is_refused_or_echoed_cut_with_its_length_and_escaped(tiny_copy: Path, length, expected):
    huge = "\x1b[2J" + "9" * (length - 4)  # starting with a screen clear
    lines = (tiny_copy / LABEL_FILE_HARD).read_text().splitlines()
    row = json.loads(lines[0])
    row["trajectory_id"] = huge
    lines[0] = json.dumps(row)
    (tiny_copy / LABEL_FILE_HARD).write_text("\n".join(lines) + "\n")
    for command in ("verify", "info"):
        done = subprocess.run([sys.executable, "-m", "agenthorizon", command, str(tiny_copy)], capture_output=True,
                              text=True, timeout=300)
        shown = done.stdout + done.stderr
        assert done.returncode == (1 if command == "verify" else 2), shown[:2000]
        assert len(shown) < 2000 and "\x1b" not in shown  # not 50 MB on the terminal, no raw escape
        assert expected in shown, shown


@pytest.mark.slow
def test_warnings_and_errors_of_the_cli_escape_control_characters_in_paths(tiny_copy: Path, tmp_path: Path):
    root = tiny_copy.rename(tmp_path / "release\x1b]0;owned\x07")  # a folder name is text from outside too
    _shots(root, _rows(root)[0])[1].write_bytes(b"not an image")  # export warns, naming the file
    done = subprocess.run([sys.executable, "-m", "agenthorizon", "export", str(root), str(tmp_path / "out"),
                           "--images", "full", "--configs", "AH"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "do not decode as images" in done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr and "release\\x1b]0;owned\\x07" in done.stderr
    done = subprocess.run([sys.executable, "-m", "agenthorizon", "verify", str(root / "missing")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2 and "\x1b" not in done.stderr and "release\\x1b]0;owned\\x07" in done.stderr


def test_run_judge_refuses_ids_that_are_not_uuids(tmp_path: Path):
    from agenthorizon.judging.judges import make_judge
    from agenthorizon.judging.runs.runner import run_judge

    rows = [{"trajectory_id": "../../escape", "instruction": "x", "steps": [], "markdown": ""}]
    with pytest.raises(ValueError, match=r"dataset item 0: trajectory_id '../../escape' is not a UUID"):
        run_judge(make_judge("constant"), rows, tmp_path / "run", progress=False)
    assert not (tmp_path / "escape.json").exists()


# --- the CLI -------------------------------------------------------------------------------


def test_info_into_a_closed_pipe_ends_quietly(tiny_root: Path):
    process = subprocess.Popen(
        [sys.executable, "-m", "agenthorizon", "info", str(tiny_root), "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader went away, as `| head -0` does
    _, err = process.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err
    assert process.returncode == 141


def test_plot_without_matplotlib_says_how_to_install_it_from_here(tmp_path: Path):
    from agenthorizon.util.extras import install_advice

    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from agenthorizon.cli import main\n"
        f"sys.exit(main(['plot', {str(tmp_path)!r}, '--data', {str(tmp_path)!r}, '--out', {str(tmp_path / 'f')!r}]))"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr
    assert install_advice("plot") in completed.stderr


def test_export_into_a_used_folder_needs_overwrite_which_removes_what_the_card_does_not_list(
    tiny_root: Path, tmp_path: Path, capsys
):
    out = tmp_path / "out"
    assert main(["export", str(tiny_root), str(out), "--configs", "AH", "AH-S", "--images", "none"]) == 0
    assert (out / "data" / "AH-S").is_dir()
    (out / ".git").mkdir()  # a Hub clone's metadata is not the export's
    capsys.readouterr()
    assert main(["export", str(tiny_root), str(out), "--configs", "AH", "--images", "none"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["export", str(tiny_root), str(out), "--configs", "AH", "--images", "none", "--overwrite"]) == 0
    assert not (out / "data" / "AH-S").exists()
    assert (out / ".git").is_dir()
    card = (out / "README.md").read_text()
    listed = sorted(p.relative_to(out).as_posix() for p in (out / "data").rglob("*.parquet"))
    assert listed and all(name in card for name in ("data/AH/",)) and not any("AH-S" in n for n in listed)


def test_a_repo_id_shaped_path_fails_fast_when_the_hub_is_unreachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """One connection attempt to the Hub, then the message that says the path is neither."""
    from huggingface_hub import constants

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def refuse() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(1)
            connection.close()  # the "Hub" hangs up: a network that does not work

    threading.Thread(target=refuse, daemon=True).start()
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
    monkeypatch.setattr(
        constants, "HUGGINGFACE_CO_URL_TEMPLATE", constants.ENDPOINT + "/{repo_id}/resolve/{revision}/{filename}"
    )
    monkeypatch.chdir(tmp_path)
    try:
        with pytest.raises(FileNotFoundError, match=r"data/release: no such local directory .* not a Hub dataset repo"):
            agenthorizon.resolve_release("data/release", "AH", cache_dir=tmp_path / "hub")
    finally:
        server.close()
    assert len(accepted) == 1


# --- files that are not regular files ---------------------------------------------------------
#
# Opening a FIFO for reading blocks until a writer comes: a release holding one (a tarball or a
# shared folder can) would hang every command forever. Each command that reads a release runs
# as a real process with the FIFO in place of one file; the subprocess timeout is only a guard
# against the hang itself, not a measure of speed.

_HANG_GUARD_S = 120
_LOAD = """
import sys, agenthorizon
dataset = agenthorizon.load_dataset(sys.argv[1], "all", split="test", cache_dir=sys.argv[2])
print(sum(image is not None for row in dataset for image in row["screenshots"]), "screenshots decoded")
"""


def _fifo_in_place_of(root: Path, kind: str) -> Path:
    """Replace the file ``kind`` names with a FIFO (``label-link``: a link to a FIFO in the release)."""
    row = _rows(root)[0]
    target = {
        "label": root / LABEL_FILE_EASY,
        "label-link": root / LABEL_FILE_HARD,
        "json": root / json_relpath(row["trajectory_id"]),
        "markdown": root / markdown_relpath(row["trajectory_id"]),
        "prompt": root / "sandbox" / "prompt.md",
        "agents": root / "sandbox" / "AGENTS.md",
        "screenshot": _shots(root, row)[0],
    }[kind]
    target.unlink()
    if kind == "label-link":
        os.mkfifo(root / "sandbox" / "labels.fifo")
        target.symlink_to(root / "sandbox" / "labels.fifo")
    else:
        os.mkfifo(target)
    return target


# Which commands read which file: (command, files it reads).
_READS = {
    "verify": {"label", "label-link", "json", "markdown", "prompt", "agents", "screenshot"},
    "info": {"label", "label-link", "json"},
    "judge": {"label", "label-link", "json", "markdown", "prompt", "agents", "screenshot"},
    "load_dataset": {"label", "label-link", "json", "markdown", "screenshot"},
    "score": {"label", "label-link"},
}


@pytest.fixture(scope="module")
def scored_run(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the whole tiny corpus, for `score` to read a damaged copy's labels against."""
    out = tmp_path_factory.mktemp("fifo-run") / "run"
    assert main(["judge", "--data", str(tiny_root), "--config", "all", "--judge", "constant", "--out", str(out),
                 "--no-progress", "--bootstrap", "0"]) == 0
    return out


@pytest.mark.slow  # every command, seven times: about 85 s of the suite
@pytest.mark.parametrize("kind", ["label", "label-link", "json", "markdown", "prompt", "agents", "screenshot"])
def test_a_fifo_in_the_release_ends_every_command_in_seconds_with_its_name(
    kind: str, tiny_copy: Path, tmp_path: Path, scored_run: Path
):
    fifo = _fifo_in_place_of(tiny_copy, kind)
    shown = f"{fifo}" if kind != "screenshot" else "screenshot"
    agenthorizon_cli = [sys.executable, "-m", "agenthorizon"]
    commands = {
        "verify": [*agenthorizon_cli, "verify", str(tiny_copy)],
        "info": [*agenthorizon_cli, "info", str(tiny_copy)],
        # --prompt release: the command judge reads prompt.md and AGENTS.md; it copies each screenshot.
        "judge": [*agenthorizon_cli, "judge", "--data", str(tiny_copy), "--config", "all", "--judge", "command:cat",
                  "--sandbox", "none", "--prompt", "release", "--out", str(tmp_path / "run"), "--no-progress",
                  "--bootstrap", "0"],
        "load_dataset": [sys.executable, "-c", _LOAD, str(tiny_copy), str(tmp_path / "cache")],
        "score": [*agenthorizon_cli, "score", str(scored_run), "--data", str(tiny_copy)],
    }
    for command, argv in commands.items():
        done = subprocess.run(argv, capture_output=True, text=True, timeout=_HANG_GUARD_S, cwd=tmp_path)
        output = done.stdout + done.stderr
        if kind not in _READS[command]:
            assert done.returncode == 0, output  # this command does not read that file
            continue
        assert done.returncode != 0, f"{command}: {output}"
        assert "FIFO (named pipe)" in output and shown in output, f"{command}: {output}"
        if kind == "label-link":
            assert "behind a link to" in output and "labels.fifo" in output, output
        if command == "load_dataset":  # the library raises: the error the user's script sees names the FIFO
            assert done.stderr.strip().splitlines()[-1].split(":")[0].endswith(("ValueError", "NotRegularFileError", "ScreenshotError"))
        else:  # the command line ends with one line, not a traceback
            assert "Traceback" not in output, f"{command}: {output}"


def test_sockets_and_devices_are_refused_like_fifos(tiny_copy: Path, monkeypatch: pytest.MonkeyPatch):
    import socket as sockets

    from agenthorizon.release.confine import NotRegularFileError, open_confined

    label = tiny_copy / LABEL_FILE_EASY
    label.unlink()
    server = sockets.socket(sockets.AF_UNIX)
    monkeypatch.chdir(tiny_copy)  # a socket's path is limited to about 100 bytes: bind it by its name
    server.bind(label.name)
    try:
        with pytest.raises(NotRegularFileError, match=rf"{label}: label file is a socket, not a regular file"):
            read_labels(tiny_copy)
    finally:
        server.close()
    label.unlink()
    label.symlink_to("/dev/zero")  # a device outside the release: refused before it is opened
    with pytest.raises(NotRegularFileError, match=r"is a character device \(behind a link to /dev/zero\)"):
        open_confined(tiny_copy, label, "label file")
    assert any("character device" in p.message for p in verify_release(tiny_copy))
