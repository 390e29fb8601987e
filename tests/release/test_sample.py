"""The sample corpus: determinism, the exact release layout, realistic content, preset shapes."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from agenthorizon.cli import main
from agenthorizon.release.labels import pair_groups, parse_label_file
from agenthorizon.release.render import to_markdown
from agenthorizon.release.sample import build_plan, generate
from agenthorizon.schema import (
    BAD_SIDE_EFFECT,
    CRITICAL_MISTAKE,
    FRAMEWORK_FILES,
    IMAGES_DIR,
    LABEL_FIELDS,
    LABEL_FILE_EASY,
    LABEL_FILE_HARD,
    LABEL_FILES,
    MISUNDERSTANDING,
    PROMPT_FILE,
    PROMPT_PLACEHOLDER,
    json_relpath,
    markdown_relpath,
    screenshot_ref,
)
from agenthorizon.release.splits import derive_dev_set


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _rows(root: Path) -> list[dict]:
    rows = []
    for name in LABEL_FILES:
        rows.extend(parse_label_file((root / name).read_text(encoding="utf-8"), name).rows)
    return rows


def _trajectory(root: Path, trajectory_id: str) -> dict:
    return json.loads((root / json_relpath(trajectory_id)).read_text(encoding="utf-8"))


SPEC_ACTION_TYPES = ("click", "type", "press", "hotkey", "scroll", "drag", "move", "key_down", "key_up", "wait")
"""The action types SPEC section 2 lists; the release also holds others, carried through as they are."""

SAMPLE_DOC = Path(__file__).resolve().parents[2] / "docs" / "sample.md"


def _doc_states(*figures: str) -> None:
    """docs/sample.md quotes each figure a test asserts (so the page cannot drift from the tests)."""
    page = SAMPLE_DOC.read_text(encoding="utf-8")
    missing = [figure for figure in figures if figure not in page]
    assert not missing, f"docs/sample.md no longer states {missing}"


def _release_files(root: Path) -> list[Path]:
    """The corpus's own files: the label files and everything under sandbox/, sorted.

    Other tests may leave their outputs next to a session corpus (e.g. an example
    script given the root as its output folder); those are not the corpus.
    """
    return sorted([root / name for name in LABEL_FILES] + [p for p in (root / "sandbox").rglob("*") if p.is_file()])


def _files_and_pngs(root: Path) -> tuple[int, int]:
    files = _release_files(root)
    return len(files), sum(path.suffix == ".png" for path in files)


def _typed_text(trajectory: dict) -> str:
    return "\n".join(
        step["action"]["parameters"].get("text", "") for step in trajectory["steps"] if step["action"]["type"] == "type"
    ).lower()


# --- determinism and layout -------------------------------------------------------------


def test_same_preset_and_seed_give_byte_identical_files(tiny_root: Path, tmp_path: Path):
    again = tmp_path / "again"
    generate(again, preset="tiny", seed=0)
    first, second = _tree_digest(tiny_root), _tree_digest(again)
    assert any(name.endswith(".png") for name in first)
    assert first == second


def _text_digest(root: Path) -> tuple[int, str]:
    """Files other than PNG, and one sha256 over their relative paths and bytes."""
    digest, count = hashlib.sha256(), 0
    for path in _release_files(root):
        if path.suffix != ".png":
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
            count += 1
    return count, digest.hexdigest()


def test_corpora_are_pinned_across_versions(tiny_root: Path, small_root: Path):
    # Labels, trajectory JSON, Markdown and sandbox texts of seed 0, pinned: a refactoring
    # of the generator (e.g. of build_plan's steps, which share one random stream) must
    # leave every byte in place. Screenshots are left out because their bytes also depend
    # on the installed Pillow and zlib; what they draw comes from the pinned JSON.
    # A deliberate change of the corpus updates these digests and says so in its commit.
    assert _text_digest(tiny_root) == (43, "1725624936865741295f91b49fd06fa469d581fb1775362dd6cb598b4eeb4c81")
    assert _text_digest(small_root) == (431, "5463a993ec93f1f782974402b975b3d211f0f494a0000a36a2a2d5ef93792929")


def test_another_seed_gives_another_corpus(tmp_path: Path, tiny_root: Path):
    other = tmp_path / "other"
    generate(other, preset="tiny", seed=1, images=False)
    assert (other / LABEL_FILE_HARD).read_bytes() != (tiny_root / LABEL_FILE_HARD).read_bytes()


def test_label_files_have_exactly_the_seven_fields_in_release_order(tiny_root: Path):
    for name in LABEL_FILES:
        lines = (tiny_root / name).read_text(encoding="utf-8").splitlines()
        assert lines
        for line in lines:
            assert list(json.loads(line)) == list(LABEL_FIELDS)
        parse_label_file((tiny_root / name).read_text(encoding="utf-8"), name)  # validates every row
    ids = [row["trajectory_id"] for row in _rows(tiny_root)]
    assert len(ids) == len(set(ids))  # the two files do not overlap


def test_every_referenced_file_exists_with_one_based_names(tiny_root: Path):
    for row in _rows(tiny_root):
        trajectory = _trajectory(tiny_root, row["trajectory_id"])
        assert trajectory["trajectory_id"] == row["trajectory_id"]
        assert (tiny_root / markdown_relpath(row["trajectory_id"])).is_file()
        for step in trajectory["steps"]:
            if "screenshot" in step:
                assert step["screenshot"] == screenshot_ref(row["steps_id"], step["step_id"])
                assert step["screenshot"].endswith(f"/step_{step['step_id'] + 1}.png")
                path = (tiny_root / json_relpath(row["trajectory_id"])).parent / step["screenshot"]
                with Image.open(path) as image:
                    assert image.format == "PNG" and image.size == (320, 200)


def test_image_folders_are_one_per_deliverable(tiny_root: Path):
    rows = _rows(tiny_root)
    folders = {path.name for path in (tiny_root / IMAGES_DIR).iterdir()}
    assert folders == {row["steps_id"] for row in rows}


def test_sandbox_texts(tiny_root: Path):
    agents, claude = (tiny_root / name for name in FRAMEWORK_FILES)
    assert agents.read_text(encoding="utf-8") == claude.read_text(encoding="utf-8")
    assert "success" in agents.read_text(encoding="utf-8")
    assert PROMPT_PLACEHOLDER in (tiny_root / PROMPT_FILE).read_text(encoding="utf-8")


def test_trajectory_json_is_the_blind_projection_of_its_item(tiny_root: Path):
    plan = build_plan("tiny", seed=0)
    for row in _rows(tiny_root):
        trajectory = _trajectory(tiny_root, row["trajectory_id"])
        assert set(trajectory) == {"trajectory_id", "task", "environment", "steps"}
        assert set(trajectory["task"]) <= {"instruction", "category", "subcategory", "task_type", "applications"}
        assert trajectory["task"]["instruction"] == plan.deliverables[row["instruction_id"]].instruction
        assert trajectory["steps"] == plan.deliverables[row["steps_id"]].trajectory.steps
        assert trajectory["environment"]["os"] in ("linux", "windows", "macos")
        text = json.dumps(trajectory)
        assert "null" not in text  # null-valued keys are dropped
        for hidden in ("label", "mistake_type", "instruction_id", "steps_id", "instruction_source", "steps_source"):
            assert f'"{hidden}"' not in text


def test_image_size_is_a_parameter(tmp_path: Path):
    summary = generate(tmp_path / "big", preset="tiny", image_size=(640, 400))
    some_png = next((tmp_path / "big" / IMAGES_DIR).rglob("*.png"))
    with Image.open(some_png) as image:
        assert image.size == (640, 400)
    assert summary.n_images > 0


def test_screenshot_shows_typed_text_in_the_window(tiny_root: Path):
    # A step after a "type" action differs from the one before it inside the
    # document area: the typed text is drawn there.
    checked = 0
    for row in _rows(tiny_root):
        steps = _trajectory(tiny_root, row["trajectory_id"])["steps"]
        for before, after in zip(steps, steps[1:]):
            if before["action"]["type"] == "type" and "screenshot" in before and "screenshot" in after:
                folder = tiny_root / IMAGES_DIR / row["steps_id"]
                a = np.asarray(Image.open(folder / Path(before["screenshot"]).name).convert("L"), dtype=int)
                b = np.asarray(Image.open(folder / Path(after["screenshot"]).name).convert("L"), dtype=int)
                assert (a[:100, 100:] != b[:100, 100:]).sum() > 50
                checked += 1
    assert checked >= 5


def test_existing_corpus_is_not_overwritten_silently(tiny_copy: Path):
    with pytest.raises(ValueError, match=r"not empty \(holds .*overwrite=True"):
        generate(tiny_copy, preset="tiny")
    generate(tiny_copy, preset="tiny", seed=3, overwrite=True, images=False)
    assert not (tiny_copy / IMAGES_DIR).exists()


def test_bad_arguments_are_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown preset 'huge'"):
        generate(tmp_path / "a", preset="huge")
    with pytest.raises(ValueError, match="image_size"):
        generate(tmp_path / "b", preset="tiny", image_size=(10, 10))


def test_cli_writes_the_corpus(tmp_path: Path, capsys):
    assert main(["sample", str(tmp_path / "cli"), "--preset", "tiny", "--image-size", "160x100"]) == 0
    assert "AgentHorizon.jsonl" in capsys.readouterr().out
    with Image.open(next((tmp_path / "cli" / IMAGES_DIR).rglob("*.png"))) as image:
        assert image.size == (160, 100)
    assert main(["sample", str(tmp_path / "cli"), "--preset", "tiny"]) == 2  # refuses to overwrite


# --- content ---------------------------------------------------------------------------


def test_groups_triangle_and_group_sizes(tiny_root: Path):
    rows = _rows(tiny_root)
    groups = pair_groups(rows)
    deliverables_per_group = Counter(len(group) for group in set(groups.values()))
    assert deliverables_per_group[3] == 1  # the triangle
    triangle = next(group for group in set(groups.values()) if len(group) == 3)
    assert sum(groups[r["trajectory_id"]] == triangle and r["label"] == "negative" for r in rows) == 4
    items_per_group = Counter(Counter(groups[r["trajectory_id"]] for r in rows if len(groups[r["trajectory_id"]]) == 2).values())
    assert {2, 3, 4} <= set(items_per_group)  # positives were removed from some groups


def test_negatives_are_typed_independently_and_some_are_untyped(tiny_root: Path):
    plan = build_plan("small", seed=0)
    negatives = [row for row in plan.rows() if row["label"] == "negative"]
    types = Counter(row["mistake_type"] for row in negatives)
    assert types[""] >= 1 and all(types[t] > 0 for t in (CRITICAL_MISTAKE, BAD_SIDE_EFFECT, MISUNDERSTANDING))
    by_pair: dict[frozenset, set] = {}
    for row in negatives:
        by_pair.setdefault(frozenset((row["instruction_id"], row["steps_id"])), set()).add(row["mistake_type"])
    assert any(len(kinds) == 2 for kinds in by_pair.values())  # the two negatives of a pair may differ
    assert "" in {row["mistake_type"] for row in _rows(tiny_root) if row["label"] == "negative"}


def test_every_action_type_and_the_edge_cases_appear(tiny_root: Path):
    steps = [step for row in _rows(tiny_root) for step in _trajectory(tiny_root, row["trajectory_id"])["steps"]]
    kinds = Counter(step["action"]["type"] for step in steps)
    assert set(SPEC_ACTION_TYPES) <= set(kinds)
    assert set(kinds) - set(SPEC_ACTION_TYPES), "expected at least one unknown action type"
    clicks = [step["action"]["parameters"] for step in steps if step["action"]["type"] == "click"]
    assert any(c["button"] == "right" for c in clicks)
    assert any(c.get("num_clicks") == 2 for c in clicks)
    texts = [step["action"]["parameters"]["text"] for step in steps if step["action"]["type"] == "type"]
    assert any(len(text) > 80 for text in texts)
    assert any("screenshot" not in step for step in steps)
    assert any("timestamp_us" not in step for step in steps)


def test_instructions_of_a_group_differ_in_one_detail():
    plan = build_plan("small", seed=0)
    for group in plan.groups:
        members = [plan.deliverables[d] for d in group]
        details = {m.detail for m in members}
        assert len(details) == len(members)
        templates = {m.template.instruction for m in members}
        assert len(templates) == 1  # same task, only the detail differs
        assert len({m.instruction for m in members}) == len(members)


def _modes(plan) -> Counter:
    return Counter(d.trajectory.evidence.mode for d in plan.deliverables.values())


@pytest.mark.parametrize("preset", ["tiny", "small"])
def test_every_evidence_mode_and_a_distractor_occur(preset: str):
    plan = build_plan(preset, seed=0)
    assert set(_modes(plan)) == {"typed", "selected", "reformatted", "corrected"}
    assert _modes(plan).most_common(1)[0][0] == "typed"  # most demonstrations type their detail
    assert any(d.trajectory.evidence.distractor for d in plan.deliverables.values())


@pytest.mark.parametrize("preset", ["tiny", "small"])
def test_negatives_show_the_siblings_detail_as_their_evidence_mode_says(preset: str):
    plan = build_plan(preset, seed=0)
    negatives = [row for row in plan.rows() if row["label"] == "negative"]
    assert negatives
    for row in negatives:
        document = plan.trajectory_json(row)
        typed = _typed_text(document)
        shown = plan.deliverables[row["instruction_id"]].detail
        recorded = plan.deliverables[row["steps_id"]]
        trajectory, evidence = recorded.trajectory, recorded.trajectory.evidence
        where = (row["trajectory_id"], evidence.mode)
        assert shown.lower() in document["task"]["instruction"].lower()
        # whatever the mode, the screen model ends with the trajectory's own value on screen
        on_screen = recorded.template.alternate(recorded.detail) if evidence.mode == "reformatted" else recorded.detail
        assert any(on_screen.lower() in line.lower() for line in trajectory.final_lines()), where
        if evidence.mode == "typed":
            assert recorded.detail.lower() in typed, where
            assert shown.lower() not in typed, where
        elif evidence.mode == "selected":
            # only clicks: the value is in the drawn picker list and field, never in the typed text
            assert recorded.detail.lower() not in typed and shown.lower() not in typed, where
            picked = [o.entries[o.highlight] for o in trajectory.overlays if o.highlight >= 0]
            assert recorded.detail in picked, where
        elif evidence.mode == "reformatted":
            assert recorded.template.alternate(recorded.detail).lower() in typed, where
            assert shown.lower() not in typed, where
        else:  # corrected: a sibling's value typed first, then overwritten by the right one
            first, last = typed.find(evidence.wrong.lower()), typed.rfind(recorded.detail.lower())
            assert 0 <= first < last, where
            assert evidence.wrong not in trajectory.final_lines()[0], where


def test_distractor_documents_are_drawn_but_never_typed():
    plan = build_plan("small", seed=0)
    distracted = [d for d in plan.deliverables.values() if d.trajectory.evidence.distractor]
    assert distracted
    for deliverable in distracted:
        value = deliverable.trajectory.evidence.distractor
        documents = [o for o in deliverable.trajectory.overlays if o.highlight < 0]
        assert any(value in line for o in documents for line in o.entries)
        if deliverable.trajectory.evidence.mode != "corrected":
            assert all(value not in text for _, text in deliverable.trajectory.typed)


def test_selected_value_is_drawn_in_the_screenshots(tiny_root: Path):
    # The picked value never reaches the typed text, so the screenshots must carry it:
    # the list is open on the step that clicks the entry, and the field shows it afterwards.
    plan = build_plan("tiny", seed=0)
    deliverable = next(d for d in plan.deliverables.values() if d.trajectory.evidence.mode == "selected")
    folder = tiny_root / IMAGES_DIR / deliverable.deliverable_id
    frames = deliverable.trajectory.frames
    at = next(i for i, frame in enumerate(frames) if frame.overlay >= 0)
    before, during = frames[at - 1], frames[at]
    assert deliverable.detail in deliverable.trajectory.overlays[during.overlay].entries

    def pixels(frame):
        return np.asarray(Image.open(folder / f"step_{frame.step_id + 1}.png").convert("L"), dtype=int)

    assert (pixels(before)[60:180, 80:] != pixels(during)[60:180, 80:]).sum() > 200  # the open list
    after = next(f for f in frames[at + 1:] if f.overlay < 0 and f.app == during.app)
    lines = deliverable.trajectory.states[after.state]
    assert any(deliverable.detail in text for _, text, _ in lines)
    assert (pixels(before)[30:80, 80:] != pixels(after)[30:80, 80:]).sum() > 50  # the field with the value


def test_hard_file_holds_the_items_whose_evidence_is_hard_to_read():
    plan = build_plan("small", seed=0)
    for label in ("positive", "negative"):
        share = {}
        for name in LABEL_FILES:
            rows = [row for row in plan.label_files[name] if row["label"] == label]
            share[name] = np.mean([plan.evidence(row["steps_id"]).mode != "typed" for row in rows])
        assert share[LABEL_FILE_HARD] > share[LABEL_FILE_EASY] + 0.2, (label, share)
        assert share[LABEL_FILE_EASY] < 1 and share[LABEL_FILE_HARD] < 1  # noisy, not separable by mode


def test_hard_file_is_harder_for_the_lexical_judge(small_root: Path):
    # The property the partition exists for: a judge that reads only the text does
    # well on AgentHorizon-Simple.jsonl and much worse on AgentHorizon.jsonl.
    import agenthorizon
    from agenthorizon.judging.inputs import build_judge_input
    from agenthorizon.judging.judges import make_judge
    from agenthorizon.scoring.verdicts import parse_verdict

    judge = make_judge("lexical")
    accuracy, scores = {}, {}
    for config in ("AH", "AH-S"):
        rows = agenthorizon.load_dataset(small_root, config, split="test", images=None)
        predictions = [parse_verdict(judge.judge(build_judge_input(row)).text).to_dict() for row in rows]
        scores[config] = agenthorizon.score(predictions, rows)
        accuracy[config] = scores[config].balanced_accuracy
    assert accuracy["AH-S"] >= 0.85, accuracy
    assert accuracy["AH"] <= 0.75, accuracy
    assert accuracy["AH-S"] - accuracy["AH"] >= 0.15, accuracy
    # the figures docs/sample.md quotes for `small`, seed 0
    shown = {
        config: tuple(f"{100 * getattr(scores[config], name):.1f}" for name in
                      ("balanced_accuracy", "positive_accuracy", "negative_accuracy"))
        for config in scores
    }
    assert shown == {"AH": ("69.4", "100.0", "38.8"), "AH-S": ("91.3", "94.6", "88.0")}
    _doc_states("| `small`, seed 0 | 69.4% (positives 100%, negatives 38.8%) | 91.3% (94.6%, 88.0%) |")


def test_domains_applications_and_os():
    plan = build_plan("small", seed=0)
    deliverables = list(plan.deliverables.values())
    assert {d.template.category for d in deliverables} == {
        "Data Science", "Creativity", "Education", "General", "Productivity", "Development"
    }
    assert {d.os for d in deliverables} == {"linux", "windows", "macos"}
    mean_apps = np.mean([len(d.trajectory.applications) for d in deliverables])
    assert 1.8 <= mean_apps <= 2.1  # the release: 1.98
    assert {len(d.trajectory.applications) for d in deliverables} == {1, 2, 3}
    from agenthorizon.release.sample.tasks import TEMPLATES

    assert len(TEMPLATES) == 25
    _doc_states("(25 templates", "(1–3 per task, about 2 on average")


# --- preset shapes ----------------------------------------------------------------------


def test_tiny_and_small_presets_have_the_documented_size(tiny_root: Path, small_root: Path):
    # docs/sample.md, "Presets": groups, items, screenshots and files (seed 0)
    assert _files_and_pngs(tiny_root) == (160, 117)
    assert _files_and_pngs(small_root) == (5311, 4880)
    for root, groups, items, (low, high) in ((tiny_root, 5, 19, (5, 15)), (small_root, 65, 213, (20, 60))):
        rows = _rows(root)
        assert len(rows) == items
        assert len(set(pair_groups(rows).values())) == groups
        lengths = {len(_trajectory(root, row["trajectory_id"])["steps"]) for row in rows}
        assert low <= min(lengths) and max(lengths) <= high
    _doc_states(
        "| `tiny` | 5 (one triangle) | 19 | 5–15 | 117 | 160 |",
        "| `small` | 65 (one triangle) | 213 | 20–60 | 4,880 | 5,311 |",
    )


def test_small_preset_has_sixty_groups_and_a_proper_dev_subset():
    plan = build_plan("small", seed=0)
    rows = plan.rows()
    assert len(plan.groups) >= 60
    dev = derive_dev_set(rows)
    assert len(dev.groups) == 50
    assert 0 < len(dev.trajectory_ids) < len(rows)
    lengths = [len(d.trajectory.steps) for d in plan.deliverables.values()]
    assert min(lengths) >= 20 and max(lengths) <= 60


@pytest.mark.slow  # the 1,373-item corpus
def test_full_preset_has_the_release_shape(tmp_path: Path):
    root = tmp_path / "full"
    summary = generate(root, preset="full", images=False)
    rows = []
    for name, expected in ((LABEL_FILE_HARD, (605, 287, 318)), (LABEL_FILE_EASY, (768, 236, 532))):
        file_rows = parse_label_file((root / name).read_text(encoding="utf-8"), name).rows
        labels = Counter(row["label"] for row in file_rows)
        assert (len(file_rows), labels["positive"], labels["negative"]) == expected
        rows.extend(file_rows)
    assert len(rows) == summary.n_items == 1373
    negatives = [row for row in rows if row["label"] == "negative"]
    assert Counter(row["mistake_type"] for row in negatives) == {
        CRITICAL_MISTAKE: 273, BAD_SIDE_EFFECT: 232, MISUNDERSTANDING: 339, "": 6
    }
    deliverables = {row["instruction_id"] for row in rows} | {row["steps_id"] for row in rows}
    assert len(deliverables) == 849 and len(negatives) == 850
    assert Counter(len(group) for group in set(pair_groups(rows).values())) == {2: 423, 3: 1}

    # step counts as the SPEC reports them, read from the written JSON
    steps = np.array([len(_trajectory(root, row["trajectory_id"])["steps"]) for row in rows])
    assert abs(np.median(steps) - 121) <= 3
    assert abs(np.percentile(steps, 90) - 186) <= 4
    assert steps.max() == 358
    assert (steps >= 200).sum() == 83
    _doc_states("median 121, maximum 358, and 83 items with at", "The 90th percentile is 187.8")

    # `agenthorizon info` on the corpus prints the table docs/sample.md quotes, line for line
    from agenthorizon.cli.info import format_table, release_info

    info = release_info(str(root))
    assert info["configs"]["all"]["steps"] == {"median": 121.0, "p90": pytest.approx(187.8), "max": 358}
    _doc_states(*format_table(info).splitlines()[:5])

    # the paper's 850 / 1,700 / 327 against the distinct counts built here (docs/sample.md)
    positives = [row for row in rows if row["label"] == "positive"]
    assert (len(deliverables), len(deliverables) + len(negatives), len(deliverables) - len(positives)) == (849, 1699, 326)
    assert summary.n_groups == 424 and len({row["steps_id"] for row in rows}) == 849
    _doc_states("849 + 850 = 1,699 distinct candidates", "849 − 523 = 326", "| `full` | 424 (one triangle) | 1,373 |")

    # screenshots the full corpus references (written with images=True), and the files without them
    one_item_per_trajectory = {row["steps_id"]: row for row in rows}.values()
    shots = sum(
        bool(step.get("screenshot"))
        for row in one_item_per_trajectory
        for step in _trajectory(root, row["trajectory_id"])["steps"]
    )
    assert shots == 106_174
    assert sum(path.is_file() for path in root.rglob("*")) == 2751
    _doc_states("| 106,174 | 2,751 + the screenshots |")

    # evidence modes and distractors over the 849 trajectories
    plan = build_plan("full", seed=0)
    assert _modes(plan) == {"typed": 577, "selected": 102, "reformatted": 85, "corrected": 85}
    assert sum(d.trajectory.evidence.distractor is not None for d in plan.deliverables.values()) == 183
    _doc_states("577 / 102 / 85 / 85 of its 849 trajectories", "(183 of 849 in `full`)")

    # AH-D by the authors' derivation: the paper's 162 = 62 + 100 and its type mix
    dev = derive_dev_set(rows)
    dev_rows = [row for row in rows if row["trajectory_id"] in dev.trajectory_ids]
    assert Counter(row["label"] for row in dev_rows) == {"positive": 62, "negative": 100}
    assert Counter(row["mistake_type"] for row in dev_rows if row["label"] == "negative") == {
        CRITICAL_MISTAKE: 32, BAD_SIDE_EFFECT: 26, MISUNDERSTANDING: 41, "": 1
    }
    assert not (root / IMAGES_DIR).exists()
    # every Markdown of the full corpus is the rendering of its JSON (spot check)
    for row in rows[::97]:
        markdown = (root / markdown_relpath(row["trajectory_id"])).read_text(encoding="utf-8")
        assert markdown == to_markdown(_trajectory(root, row["trajectory_id"]))
