"""Results on the Hub: eval.yaml from export, .eval_results entries, the judgments dataset, the bundle and its check.

The runs are made by the real runner with a stub judge whose answers the test
chooses; every number is checked against scikit-learn's balanced accuracy on
the same labels and verdicts. The upload goes to a minimal loopback upload
server written for the tests (tests/hub_upload.py: no real server that
accepts uploads exists here) which commits into the real olah mirror, and the
dataset is then read back through olah by plain ``datasets.load_dataset``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from agenthorizon.cli import main
from agenthorizon.data.hub_results import EVAL_TASKS, EvalResultsError, check_eval_results, check_eval_yaml
from agenthorizon.data.load import load_dataset
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.release.files import load_references
from agenthorizon.schema import CONFIG_AH, CONFIG_AH_S, POSITIVE
from stub_judges import Answers


def _answers(rows, wrong_every: int) -> dict[str, bool]:
    return {row["trajectory_id"]: (row["label"] != POSITIVE) if i % wrong_every == 0 else (row["label"] == POSITIVE)
            for i, row in enumerate(rows)}


def _expected(rows, answers) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return balanced_accuracy_score([row["label"] == POSITIVE for row in rows], [answers[row["trajectory_id"]] for row in rows])


@pytest.fixture(scope="module")
def runs(tiny_root: Path, tmp_path_factory):
    """Run folders of the stub judge on AH and AH-S, and the answers and label rows of each."""
    base = tmp_path_factory.mktemp("runs")
    made = {}
    for config, wrong_every in ((CONFIG_AH, 3), (CONFIG_AH_S, 4)):
        rows = load_references(tiny_root, config)
        answers = _answers(rows, wrong_every)
        dataset = load_dataset(tiny_root, config, split="test", images="paths", cache_dir=base / "cache")
        run_dir = base / f"run-{config}"
        summary = run_judge(Answers(answers, confidence=0.8), dataset, run_dir, config=config, data_root=tiny_root,
                             progress=False)
        assert summary.record.status == "finished"
        made[config] = (run_dir, answers, rows)
    return made


@pytest.fixture(scope="module")
def published(runs, tiny_root: Path, tmp_path_factory):
    out = tmp_path_factory.mktemp("published") / "out"
    code = main(["results", str(runs[CONFIG_AH][0]), str(runs[CONFIG_AH_S][0]), "--data", str(tiny_root),
                 "--out", str(out), "--bootstrap", "200", "--bundle-url", "https://example.invalid/bundle"])
    assert code == 0
    return out


def test_export_writes_an_eval_yaml_whose_tasks_plain_datasets_loads(tiny_root: Path, tmp_path: Path):
    import datasets

    from agenthorizon.data.export import export_release

    summary = export_release(tiny_root, tmp_path / "export", configs=["AH", "AH-S", "AH-D", "all"], images="none")
    document = yaml.safe_load(summary.eval_yaml.read_text(encoding="utf-8"))
    check_eval_yaml(document)
    assert [task["id"] for task in document["tasks"]] == list(EVAL_TASKS)  # `all` is no leaderboard task
    assert "balanced accuracy" in document["description"]
    for task in document["tasks"]:  # each task names a config and split that really load
        loaded = datasets.load_dataset(str(tmp_path / "export"), task["config"], split=task["split"])
        assert len(loaded) == len(load_references(tiny_root, task["config"]))


def test_eval_results_entries_hold_sklearn_balanced_accuracy_and_pass_the_hub_format(published: Path, runs):
    files = sorted((published / ".eval_results").glob("*.yaml"))
    assert [path.name for path in files] == ["agenthorizon_AH-S.yaml", "agenthorizon_AH.yaml"]
    for path in files:
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
        check_eval_results(entries, task_ids=EVAL_TASKS)
        (entry,) = entries
        _, answers, rows = runs[entry["dataset"]["task_id"]]
        assert entry["dataset"]["id"] == "ServiceNow/AgentHorizon"
        assert entry["value"] == pytest.approx(_expected(rows, answers), abs=1e-12)
        assert entry["source"]["url"] == "https://example.invalid/bundle"
        low, high = (float(x) for x in entry["notes"].split("95% CI [")[1].split("]")[0].split(", "))
        assert low <= entry["value"] <= high
        assert f"on {len(rows)} items" in entry["notes"]


@pytest.mark.parametrize("entry, message", [
    ({"dataset": {"id": "ServiceNow/AgentHorizon"}, "value": 0.5}, "missing required key(s) ['task_id']"),
    ({"dataset": {"id": "AgentHorizon", "task_id": "AH"}, "value": 0.5}, "expected a Hub dataset id"),
    ({"dataset": {"id": "a/b", "task_id": "AH"}, "value": 0.5, "score": 1}, "unknown key(s) ['score']"),
    ({"dataset": {"id": "a/b", "task_id": "XX"}, "value": 0.5}, "no task of the benchmark"),
    ({"dataset": {"id": "a/b", "task_id": "AH"}, "value": 0.5, "date": "yesterday"}, "ISO-8601"),
    ({"dataset": {"id": "a/b", "task_id": "AH"}, "value": 0.5, "source": {"name": "x"}}, "['url']"),
])
def test_entries_outside_the_documented_format_are_refused_with_the_place(entry, message):
    with pytest.raises(EvalResultsError, match="x.yaml: \\[0\\]") as caught:
        check_eval_results([entry], where="x.yaml", task_ids=EVAL_TASKS)
    assert message in str(caught.value)


def test_the_judgments_dataset_loads_with_plain_datasets(published: Path, runs):
    import datasets

    verdicts = datasets.load_dataset(str(published / "judgments"), "verdicts", split="test")
    expected = {(config, tid): success for config, (_, answers, _) in runs.items() for tid, success in answers.items()}
    assert len(verdicts) == len(expected)
    assert {(row["config"], row["trajectory_id"]): row["success"] for row in verdicts} == expected
    assert set(verdicts["parse_status"]) == {"ok"} and set(verdicts["input_tokens"]) == {10}
    assert "label" not in verdicts.column_names  # the labels stay in the release
    run_rows = datasets.load_dataset(str(published / "judgments"), "runs", split="test")
    assert sorted(run_rows["config"]) == sorted(runs)
    for row in run_rows:
        _, answers, rows = runs[row["config"]]
        assert row["balanced_accuracy"] == pytest.approx(_expected(rows, answers), abs=1e-12)
        assert json.loads(row["run_record"])["selection"]["config"] == row["config"]


def test_a_second_publication_loads_its_own_verdicts_not_the_first_ones_cached(runs, tiny_root: Path, tmp_path: Path):
    # Every `results --out DIR` writes DIR/judgments, and datasets (5.2) keys its cache of a local
    # folder on the folder's name and the card's configs, not on the files: with fixed file names
    # the second publication loaded the first one's verdicts. Real datasets, one shared cache.
    import datasets

    cache = tmp_path / "hf-cache"
    for config in (CONFIG_AH, CONFIG_AH_S):
        run_dir, answers, _ = runs[config]
        out = tmp_path / config / "out"
        assert main(["results", str(run_dir), "--data", str(tiny_root), "--out", str(out), "--bootstrap", "20"]) == 0
        verdicts = datasets.load_dataset(str(out / "judgments"), "verdicts", split="test", cache_dir=str(cache))
        assert dict(zip(verdicts["trajectory_id"], verdicts["success"])) == answers, config


def test_writing_judgments_again_replaces_the_data_files_and_what_datasets_loads(runs, tiny_root: Path, tmp_path: Path):
    import datasets

    from agenthorizon.report.bundle import score_run
    from agenthorizon.report.judgments import write_judgments

    folder, cache = tmp_path / "judgments", tmp_path / "hf-cache"
    for config in (CONFIG_AH, CONFIG_AH_S):
        run_dir, answers, _ = runs[config]
        write_judgments([score_run(run_dir, tiny_root, bootstrap=0, seed=0)], folder)
        assert len(list((folder / "data").glob("verdicts*.parquet"))) == 1  # the earlier write's file is gone
        verdicts = datasets.load_dataset(str(folder), "verdicts", split="test", cache_dir=str(cache))
        assert dict(zip(verdicts["trajectory_id"], verdicts["success"])) == answers, config


def _bundle_copy(published: Path, tmp_path: Path) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(published / "judgments" / "bundle", target)
    return target


def test_verify_results_reproduces_every_number(published: Path, tiny_root: Path, capsys):
    assert main(["verify-results", str(published / "judgments" / "bundle"), "--data", str(tiny_root)]) == 0
    assert "every number reproduced bit for bit" in capsys.readouterr().out


def test_a_changed_result_file_is_refused(published: Path, tiny_root: Path, tmp_path: Path, capsys):
    bundle = _bundle_copy(published, tmp_path)
    result = next(path for path in sorted((bundle / "runs").glob("*/*.json")) if path.name != "run.json")
    data = json.loads(result.read_text(encoding="utf-8"))
    data["verdict"]["success"] = not data["verdict"]["success"]
    result.write_text(json.dumps(data), encoding="utf-8")
    assert main(["verify-results", str(bundle), "--data", str(tiny_root)]) == 1
    error = capsys.readouterr().err
    assert "altered after it was made" in error and result.name in error


def test_changed_scores_are_refused(published: Path, tiny_root: Path, tmp_path: Path, capsys):
    bundle = _bundle_copy(published, tmp_path)
    document = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
    document["runs"][0]["scores"]["balanced_accuracy"] += 1e-15  # one bit is enough
    (bundle / "bundle.json").write_text(json.dumps(document), encoding="utf-8")
    assert main(["verify-results", str(bundle), "--data", str(tiny_root)]) == 1
    assert "rescoring gives other numbers for balanced_accuracy" in capsys.readouterr().err


def test_a_bundle_made_before_a_declared_metric_existed_still_verifies(published: Path, tiny_root: Path, tmp_path: Path,
                                                                       capsys):
    from agenthorizon.scoring.metric_list import METRICS

    bundle = _bundle_copy(published, tmp_path)
    document = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
    newest = METRICS[-1].name
    for run in document["runs"]:
        del run["scores"][newest]
        (run["scores"].get("intervals") or {}).pop(newest, None)
    (bundle / "bundle.json").write_text(json.dumps(document), encoding="utf-8")
    assert main(["verify-results", str(bundle), "--data", str(tiny_root)]) == 0
    document["runs"][0]["scores"]["balanced_accuracy"] += 1e-15  # its own numbers are still all compared
    (bundle / "bundle.json").write_text(json.dumps(document), encoding="utf-8")
    assert main(["verify-results", str(bundle), "--data", str(tiny_root)]) == 1
    assert "rescoring gives other numbers for balanced_accuracy" in capsys.readouterr().err


def test_a_bundle_of_another_release_is_refused(published: Path, tiny_copy: Path, capsys):
    # Same items, one negative's mistake type changed: another label manifest, so another release.
    labels = tiny_copy / "AgentHorizon.jsonl"
    lines = labels.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        row = json.loads(line)
        if row["label"] == "negative" and row["mistake_type"] != "Bad Side Effect":
            row["mistake_type"] = "Bad Side Effect"
            lines[index] = json.dumps(row)
            break
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["verify-results", str(published / "judgments" / "bundle"), "--data", str(tiny_copy)]) == 1
    assert "made on another release" in capsys.readouterr().err


def test_a_bundle_scored_on_an_unrelated_release_is_refused(published: Path, tmp_path: Path, capsys):
    from agenthorizon.release.sample import generate

    other = tmp_path / "other"
    generate(other, preset="tiny", seed=1)
    assert main(["verify-results", str(published / "judgments" / "bundle"), "--data", str(other)]) == 1
    assert "the bundle was made on the release whose" in capsys.readouterr().err


def test_push_uploads_a_dataset_plain_datasets_loads_from_the_hub(hub, runs, tiny_root: Path, tmp_path: Path):
    from hub_upload import UploadServer

    uploads = UploadServer(hub)
    try:
        completed = _cli(hub, uploads, runs, tiny_root, tmp_path)
    finally:
        uploads.stop()
    assert completed.returncode == 0, completed.stderr
    assert uploads.commits and uploads.commits[-1][0] == "me/judgments", uploads.unknown
    loaded = hub.python(
        """
        import datasets
        rows = datasets.load_dataset("me/judgments", "verdicts", split="test")
        result = {"n": len(rows), "ids": sorted(rows["trajectory_id"])}
        """,
        tmp_path / "hf-read",
    )
    assert loaded.get("error") is None, loaded
    _, answers, _ = runs[CONFIG_AH]
    assert loaded["result"] == {"n": len(answers), "ids": sorted(answers)}


def test_a_second_push_replaces_the_data_and_the_bundle_and_the_hub_copy_verifies(hub, runs, tiny_root: Path,
                                                                                     tmp_path: Path):
    # Another set of runs pushed to the same repo: the first push's verdicts and bundle files must
    # go, or the repo holds two verdict files and a bundle with a file it does not list.
    from hub_upload import UploadServer

    uploads = UploadServer(hub)
    try:
        for config in (CONFIG_AH, CONFIG_AH_S):
            completed = _cli(hub, uploads, runs, tiny_root, tmp_path / config, config=config, repo="me/twice")
            assert completed.returncode == 0, completed.stderr
    finally:
        uploads.stop()
    assert uploads.unknown == []
    tracked = hub.git("me/twice", "ls-files").splitlines()
    assert len([name for name in tracked if name.startswith("data/verdicts")]) == 1
    pushed = tmp_path / CONFIG_AH_S / "out" / "judgments" / "bundle"
    assert {name for name in tracked if name.startswith("bundle/")} == {
        f"bundle/{path.relative_to(pushed).as_posix()}" for path in pushed.rglob("*") if path.is_file()}
    fetched = hub.python(
        """
        import datasets, huggingface_hub
        rows = datasets.load_dataset("me/twice", "verdicts", split="test")
        folder = huggingface_hub.snapshot_download("me/twice", repo_type="dataset")
        result = {"ids": sorted(rows["trajectory_id"]), "folder": folder}
        """,
        tmp_path / "hf-read",
    )
    assert fetched.get("error") is None, fetched
    _, answers, _ = runs[CONFIG_AH_S]
    assert fetched["result"]["ids"] == sorted(answers)
    bundle = Path(fetched["result"]["folder"]) / "bundle"
    assert main(["verify-results", str(bundle), "--data", str(tiny_root)]) == 0
    assert any("/tree/" in path for path in uploads.proxied)  # the repo was listed to find what to delete


def test_an_upload_the_server_answers_with_garbage_fails_naming_the_repo(hub, runs, tiny_root: Path, tmp_path: Path):
    from hub_upload import UploadServer

    uploads = UploadServer(hub)
    uploads.garbled_reads = True
    try:
        completed = _cli(hub, uploads, runs, tiny_root, tmp_path, repo="me/garbled")
    finally:
        uploads.stop()
    from agenthorizon.cli._common import EXIT_INCOMPLETE

    assert completed.returncode == EXIT_INCOMPLETE, completed.stderr  # the input was fine; the upload was not
    message = completed.stderr.strip()
    assert "Traceback" not in message
    assert f"to the Hub dataset repo me/garbled at {uploads.endpoint} failed" in message
    assert "push again" in message and not uploads.commits


def _cli(hub, uploads, runs, tiny_root: Path, tmp_path: Path, *, config: str = CONFIG_AH, repo: str = "me/judgments"):
    import subprocess
    import sys

    tmp_path.mkdir(parents=True, exist_ok=True)
    env = hub.env(tmp_path / "hf-up", HF_ENDPOINT=uploads.endpoint, HF_TOKEN="hf_loopback_test_token")
    return subprocess.run(
        [sys.executable, "-m", "agenthorizon", "results", str(runs[config][0]), "--data", str(tiny_root),
         "--push", repo, "--bootstrap", "50", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )


def test_a_damaged_bundle_record_is_refused_not_a_traceback(published: Path, tiny_root: Path, tmp_path: Path, capsys):
    bundle = _bundle_copy(published, tmp_path)
    document = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
    del document["runs"][0]["scores"]
    (bundle / "bundle.json").write_text(json.dumps(document), encoding="utf-8")
    assert main(["verify-results", str(bundle), "--data", str(tiny_root)]) == 1
    assert "runs[0] lacks" in capsys.readouterr().err
