"""Information ablations (paper Table 9): what a judge receives without the instruction, the
actions or the screenshots, seen where it is received.

Every judge kind gets its input from the one builder, ``build_judge_input(row, ablate=...)``;
these tests look at the far end: the request bodies an OpenAI-compatible server on loopback
receives, and the work folder a command agent finds under the real sandbox (bubblewrap),
dumped by the agent itself into its answer. Each ablation is checked against the complete
input of the same items (the control: every part is seen there, so the checks can fail).
The real agentic CLIs under an ablation are tested in tests/judging/test_real_clis.py.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.ablation import describe_ablation, parse_ablation
from agenthorizon.judging.inputs import build_judge_input
from agenthorizon.judging.judges import CommandJudge, OpenAICompatibleJudge, make_judge
from agenthorizon.judging.runs.folder import read_results, read_run_record
from agenthorizon.judging.runs.records import judge_key
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.release.render import action_string
from agenthorizon.schema import ABLATION_PARTS
from loopback import ModelServer

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
ANSWER = '{"success": true, "reasoning": "looks done", "confidence": "low"}'
# The complete input, each part alone, two together (the paper's "no instruction and actions"), all three.
ABLATIONS = [(), ("instruction",), ("actions",), ("screenshots",), ("instruction", "actions"), ABLATION_PARTS]


@pytest.fixture(scope="module")
def dataset(tiny_root, tmp_path_factory):
    return agenthorizon.load_dataset(tiny_root, "AH", split="test", images="paths",
                                     cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def rows(dataset):
    return {row["trajectory_id"]: row for row in (dict(dataset[i]) for i in range(len(dataset)))}


def parts_seen(text: str, row: dict, images: int = 0) -> set[str]:
    """Which parts of ``row`` show in ``text`` (plus ``images`` attached or copied screenshots).

    Written from the row itself, not from the builder: the instruction as the row holds it,
    each action as the release's Markdown writes it and every typed text, and any screenshot
    reference, image or PNG file.
    """
    seen = set()
    if row["instruction"].strip() in text:
        seen.add("instruction")
    full = build_judge_input(row)  # the complete input: its action lines and typed texts
    actions = [f"`{action_string(step['action'])}`" for step in full.steps]
    # (a typed text the instruction also holds would be seen whenever the instruction is)
    typed = [text for text in full.typed_text() if len(text) >= 4 and text not in row["instruction"]]
    # The interleaved layout's step lines: "Step k: <action>".
    lines = [f"Step {step['step_id']}: {action_string(step['action'])}" for step in full.steps]
    if "**Action:**" in text or '"action"' in text or any(a in text for a in actions + typed + lines):
        seen.add("actions")
    if images or "![Step" in text or ".png" in text:
        seen.add("screenshots")
    return seen


def expected(ablation: tuple[str, ...]) -> set[str]:
    return set(ABLATION_PARTS) - set(ablation)


# --- the builder ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ablation", ABLATIONS, ids=lambda a: "+".join(a) or "complete")
def test_every_form_of_the_input_lacks_exactly_the_withheld_parts(rows, ablation):
    for row in rows.values():
        judge_input = build_judge_input(row, ablate=",".join(ablation))
        document = json.dumps(judge_input.trajectory_json(), ensure_ascii=False)
        images = len(judge_input.screenshots.present)
        assert parts_seen(judge_input.markdown, row, images) == expected(ablation)
        assert parts_seen(document, row, images) == expected(ablation)
        assert judge_input.ablation == ablation
        if "instruction" in ablation:
            assert judge_input.instruction == "" and "instruction" not in judge_input.trajectory_json()["task"]
        if "actions" in ablation:
            assert judge_input.typed_text() == [] and all("action" not in step for step in judge_input.steps)
        # What stays whatever is withheld: every step, by id, in order, with its timestamp.
        steps = judge_input.trajectory_json()["steps"]
        assert [step["step_id"] for step in steps] == [step["step_id"] for step in row["steps"]]
        assert [step.get("timestamp_us") for step in steps] == [step["timestamp_us"] for step in row["steps"]]
        assert f"Total steps: **{len(row['steps'])}**" in judge_input.markdown
        assert all(f"### Step {step['step_id']}\n" in judge_input.markdown for step in row["steps"])
    if not ablation:  # no ablation is the release's own Markdown, untouched by the ablation path
        row = next(iter(rows.values()))
        assert build_judge_input(row, ablate=()) == build_judge_input(row)


def test_an_unknown_part_is_refused_naming_the_accepted_ones(rows):
    row = next(iter(rows.values()))
    with pytest.raises(ValueError, match="unknown part 'labels'; expected a comma-separated list of instruction, actions, screenshots"):
        build_judge_input(row, ablate="instruction,labels")
    assert parse_ablation(" screenshots ,instruction,instruction") == ("instruction", "screenshots")


# --- an OpenAI-compatible server on loopback -------------------------------------------------------


def request_parts(body: dict) -> tuple[str, int]:
    """The text of a chat request and the number of images it attaches."""
    texts, images = [], 0
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
            continue
        for part in content:
            if part["type"] == "text":
                texts.append(part["text"])
            else:
                images += 1
    return "\n".join(texts), images


LAYOUTS = ("markdown", "interleaved")
# Every ablation with every layout of the direct judge, and with 2x2 mosaics (the interleaved layout puts
# a mosaic after its last step's line): the judge kinds that take an ablation and a layout.
DIRECT = [(ablation, layout, images) for layout in LAYOUTS for ablation in ABLATIONS for images in ("auto", "mosaic")
          if images == "auto" or "screenshots" not in ablation]


def _model(ablation, layout, images):
    return "-".join(["m", layout, images, *ablation]) if ablation else f"m-{layout}-{images}-complete"


@pytest.fixture(scope="module")
def direct_runs(dataset, tiny_root, tmp_path_factory):
    """One run of the OpenAI-compatible judge per ablation, layout and image mode (and ``--images none``),
    each a model of its own."""
    base = tmp_path_factory.mktemp("direct")
    models = {case: _model(*case) for case in DIRECT}
    server = ModelServer({name: lambda body: ANSWER for name in [*models.values(), "m-images-none"]})
    try:
        for (ablation, layout, images), model in models.items():
            judge = OpenAICompatibleJudge.from_options(model, base_url=server.base_url, api_key_env="AH_ABLATION_NO_KEY",
                                          layout=layout, images=images)
            summary = run_judge(judge, dataset, base / model, ablate=list(ablation), data_root=tiny_root,
                                progress=False, concurrency=2)
            assert summary.counts.ok == len(dataset) and not summary.errors, (model, summary.errors)
        judge = OpenAICompatibleJudge.from_options("m-images-none", base_url=server.base_url, api_key_env="AH_ABLATION_NO_KEY",
                                      images="none")
        run_judge(judge, dataset, base / "m-images-none", data_root=tiny_root, progress=False, concurrency=2)
    finally:
        server.close()
    requests: dict[str, list[dict]] = {}
    for body in server.requests:
        if body["messages"][0]["content"] != "ping":  # the preflight's one-token request
            requests.setdefault(body["model"], []).append(body)
    return {"base": base, "models": models, "requests": requests}


@pytest.mark.parametrize("case", DIRECT, ids=lambda case: _model(*case)[2:])
@pytest.mark.slow
def test_a_loopback_server_receives_none_of_the_withheld_parts(direct_runs, rows, case):
    ablation, layout, _ = case
    model = direct_runs["models"][case]
    received = direct_runs["requests"][model]
    assert len(received) == len(rows)  # one request per item, no retry
    for body in received:
        text, images = request_parts(body)
        (trajectory_id,) = [tid for tid in rows if tid in text]
        assert parts_seen(text, rows[trajectory_id], images) == expected(ablation)
        if layout == "interleaved":  # every step keeps its line, in order, whatever is withheld
            lines = [re.fullmatch(r"Step (\d+)(: .+)?", line) for line in text.split("\n")]
            assert [int(m[1]) for m in lines if m] == [step["step_id"] for step in rows[trajectory_id]["steps"]]
            assert all(bool(m[2]) == ("actions" not in ablation) for m in lines if m)
    record = read_run_record(direct_runs["base"] / model)
    assert record.ablation == ablation
    assert json.loads((direct_runs["base"] / model / "run.json").read_text())["ablation"] == list(ablation)


def test_images_none_is_the_screenshots_ablation_one_experiment(direct_runs):
    """``--images none`` and ``--ablate screenshots``: the same requests, record and judge identity."""
    by_flag = direct_runs["requests"]["m-images-none"]
    by_ablation = direct_runs["requests"][direct_runs["models"][(("screenshots",), "markdown", "auto")]]

    def unnamed(bodies):
        return sorted(json.dumps({**body, "model": None}, sort_keys=True) for body in bodies)

    assert unnamed(by_flag) == unnamed(by_ablation)
    assert all(isinstance(body["messages"][0]["content"], str) for body in by_flag)  # text only, one form
    records = [read_run_record(direct_runs["base"] / name) for name in ("m-images-none", "m-markdown-auto-screenshots")]
    assert [r.ablation for r in records] == [("screenshots",)] * 2
    assert [r.images for r in records] == [{"mode": "none"}] * 2
    spec = {**records[1].judge_spec(), "spec": records[0].spec, "model": records[0].model}
    assert judge_key(spec) == records[0].judge_key  # only the model's name tells them apart


# --- a command agent under the real sandbox --------------------------------------------------------

# Lists its work folder and returns every file's text (PNGs by size) inside its answer.
DUMP = r"""
import json, os, sys
prompt = sys.stdin.read()
files = {}
for folder, dirs, names in os.walk("."):
    dirs.sort()
    for name in sorted(names):
        path = os.path.join(folder, name)[2:]
        if name.endswith(".png"):
            files[path] = "PNG %d bytes" % os.path.getsize(path)
        else:
            files[path] = open(path, encoding="utf-8", errors="replace").read()
folders = sorted(os.path.join(f, d)[2:] for f, ds, _ in os.walk(".") for d in ds)
print(json.dumps({"success": True, "reasoning": json.dumps({"prompt": prompt, "files": files, "folders": folders})}))
"""


@pytest.mark.parametrize("ablation", ABLATIONS, ids=lambda a: "+".join(a) or "complete")
def test_a_sandboxed_command_agent_finds_none_of_the_withheld_parts(bubblewrap, dataset, rows, tiny_root, tmp_path,
                                                                    ablation):
    script = tmp_path / "dump.py"
    script.write_text(DUMP)
    judge = CommandJudge([sys.executable, str(script)], sandbox="bwrap", timeout=120)
    summary = run_judge(judge, dataset, tmp_path / "run", ablate=ablation, data_root=tiny_root, progress=False,
                        concurrency=2)
    assert summary.counts.ok == len(rows) and not summary.errors
    assert summary.record.ablation == ablation
    for trajectory_id, result in read_results([tmp_path / "run"]).records.items():
        dump = json.loads(result.verdict["reasoning"])
        files, row = dump["files"], rows[trajectory_id]
        pngs = [path for path in files if path.endswith(".png")]
        # The framework files and the prompt are the same for every item (they name the
        # screenshot layout, step_N.png); the item's own files are what an ablation empties.
        item_files = "\n".join(text for path, text in files.items() if path.startswith("data/"))
        assert parts_seen(item_files, row, len(pngs)) == expected(ablation), sorted(files)
        assert parts_seen(dump["prompt"], row) <= {"screenshots"}
        # The layout stays the release sandbox's: the item's Markdown and JSON, the framework files,
        # and its (possibly empty) image folder, which --include-directories of Gemini CLI names.
        assert f"data/markdowns/{trajectory_id}.md" in files and f"data/jsons/{trajectory_id}.json" in files
        assert f"data/media/images/{trajectory_id}" in dump["folders"]
        assert {"AGENTS.md", "CLAUDE.md", "GEMINI.md"} <= set(files)
        document = json.loads(files[f"data/jsons/{trajectory_id}.json"])
        assert ("instruction" in document["task"]) == ("instruction" not in ablation)
        assert all(("action" in step) == ("actions" not in ablation) for step in document["steps"])
        shots = len(build_judge_input(row).screenshots.present)  # steps with a screenshot in the release
        assert shots and len(pngs) == (0 if "screenshots" in ablation else shots)
        assert sum("screenshot" in step for step in document["steps"]) == len(pngs)


# --- identity: records, resume, leaderboard, report, the command line -------------------------------


def test_ablated_and_complete_runs_are_different_experiments(dataset, tiny_root, tmp_path, capsys):
    complete, ablated = tmp_path / "complete", tmp_path / "ablated"
    run_judge("lexical", dataset, complete, data_root=tiny_root, progress=False)
    summary = run_judge("lexical", dataset, ablated, ablate="instruction,actions", data_root=tiny_root,
                        progress=False)
    assert "lexical (without instruction and actions) on AH" in str(summary)
    # Without the instruction the lexical judge has no detail to check: it accepts everything.
    assert summary.score.positive_accuracy == 1.0 and summary.score.negative_accuracy == 0.0
    keys = {read_run_record(folder).judge_key for folder in (complete, ablated)}
    assert len(keys) == 2
    assert read_run_record(complete).judge_key == judge_key(make_judge("lexical").spec())  # unchanged by ablations

    # Resuming a folder with another ablation is refused, naming it, both ways; the same one resumes.
    with pytest.raises(ValueError, match=r"ablation is \[\] in the folder's run and \['screenshots'\] in this command"):
        run_judge("lexical", dataset, complete, ablate="screenshots", data_root=tiny_root, progress=False)
    with pytest.raises(ValueError, match=r"ablation is \['instruction', 'actions'\] in the folder's run and \[\] in this command"):
        run_judge("lexical", dataset, ablated, data_root=tiny_root, progress=False)
    assert run_judge("lexical", dataset, ablated, ablate=["actions", "instruction"], data_root=tiny_root,
                     progress=False).counts.skipped == len(dataset)

    # The leaderboard keeps them apart, each labelled.
    assert main(["leaderboard", str(complete), str(ablated), "--data", str(tiny_root), "--format", "json"]) == 0
    judges = {row["judge"]: row["judge_key"] for row in json.loads(capsys.readouterr().out)["judges"]}
    assert set(judges) == {"lexical", "lexical (without instruction and actions)"} and set(judges.values()) == keys

    # The report says what the judge was not shown.
    html = tmp_path / "report.html"
    assert main(["report", str(complete), str(ablated), "--data", str(tiny_root), "--out", str(html),
                 "--bootstrap", "0"]) == 0
    page = html.read_text(encoding="utf-8")
    assert "ablation: without instruction and actions" in page and page.count("ablation: without") == 1


def test_a_version_3_run_reads_as_complete_and_cannot_be_resumed_ablated(dataset, tiny_root, tmp_path):
    # tests/golden/run-v3: lexical on AH, --limit 3, written by agenthorizon at format_version 3
    # (commit f18e738), before ablations existed.
    folder = tmp_path / "run"
    shutil.copytree(GOLDEN / "run-v3", folder)
    record = read_run_record(folder)
    assert record.format_version == 3 and record.ablation == () and record.label == "lexical"
    assert record.judge_key == json.loads((folder / "run.json").read_text())["judge_key"]
    with pytest.raises(ValueError, match=r"ablation is \[\] in the folder's run and \['actions'\] in this command"):
        run_judge("lexical", dataset, folder, ablate="actions", limit=3, data_root=tiny_root, progress=False)
    assert run_judge("lexical", dataset, folder, limit=3, data_root=tiny_root, progress=False).counts.skipped == 3
    assert read_run_record(folder).to_dict()["ablation"] == []


def test_the_command_line_records_the_ablation_and_refuses_an_unknown_part(tiny_root, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "constant:false", "--out", str(out),
                 "--ablate", "screenshots,actions", "--bootstrap", "0", "--no-progress"]) == 0
    assert "constant:false (without actions and screenshots) on AH" in capsys.readouterr().out
    record = json.loads((out / "run.json").read_text())
    assert record["ablation"] == ["actions", "screenshots"] and record["label"] == "constant:false (without actions and screenshots)"
    with pytest.raises(SystemExit) as exit_info:
        main(["judge", "--data", str(tiny_root), "--config", "AH", "--judge", "lexical", "--out", str(tmp_path / "x"),
              "--ablate", "instructions"])
    assert exit_info.value.code == 2
    assert "--ablate: unknown part 'instructions'" in capsys.readouterr().err
    assert describe_ablation(("screenshots",)) == "without screenshots"
