"""The Hub path against a real Hub-compatible server (olah on loopback, tests/hub_server.py).

The real ``huggingface_hub`` and ``datasets`` clients run in a subprocess with
``HF_ENDPOINT`` pointing at the server and a fresh ``HF_HOME``, exactly as a
user's shell would set them; what was fetched is read from the server's access
log and from the snapshot folder huggingface_hub wrote.
"""

from __future__ import annotations

import http.server
import json
import os
import posixpath
import shlex
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from agenthorizon.schema import (
    CONFIG_NAMES,
    DEFAULT_HUB_REPO,
    FRAMEWORK_FILES,
    IMAGES_DIR,
    JSONS_DIR,
    LABEL_FILES,
    MISTAKE_TYPES,
    PROMPT_FILE,
    json_relpath,
    markdown_relpath,
)

# Every test here runs against a real Hub server on loopback: seconds each.
pytestmark = pytest.mark.slow

REPO_ID = "ServiceNow/AgentHorizon"
EXPORT_REPO_ID = "agenthorizon-tests/AgentHorizon-parquet"
# Two pair groups in AH-D, so that AH-D is a proper subset of the tiny corpus.
DEV_GROUPS = 2


@dataclass(frozen=True)
class Release:
    repo_id: str
    corpus: Path  # the files committed, to compute expectations from
    commit: str


def _labels(corpus: Path) -> list[dict]:
    rows = []
    for name, difficulty in zip(LABEL_FILES, ("hard", "easy")):
        for line in (corpus / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append({**json.loads(line), "difficulty": difficulty})
    return rows


def _expected_files(corpus: Path, ids: list[str], *, images: bool) -> set[str]:
    """What loading the items ``ids`` needs, from the corpus files alone."""
    files = {PROMPT_FILE, *FRAMEWORK_FILES}
    for trajectory_id in ids:
        files |= {json_relpath(trajectory_id), markdown_relpath(trajectory_id)}
        if images:
            steps = json.loads((corpus / json_relpath(trajectory_id)).read_text())["steps"]
            files |= {posixpath.normpath(f"{JSONS_DIR}/{s['screenshot']}") for s in steps if s.get("screenshot")}
    return files


def _config_ids(corpus: Path, config: str) -> list[str]:
    from agenthorizon.release.splits import derive_dev_set

    rows = _labels(corpus)
    if config == "AH-D":
        dev = derive_dev_set(rows, DEV_GROUPS).trajectory_ids
        return [r["trajectory_id"] for r in rows if r["trajectory_id"] in dev]
    wanted = {"AH": {"hard"}, "AH-S": {"easy"}, "all": {"hard", "easy"}}[config]
    return [r["trajectory_id"] for r in rows if r["difficulty"] in wanted]


def _fetches(hub, since: int, repo_id: str = REPO_ID) -> list[tuple[str, str, str]]:
    """(method, revision, path) of each file request for ``repo_id`` since ``since``; any
    other request for the repo (an API listing) is kept with method and full path."""
    prefix = f"/datasets/{repo_id}/resolve/"
    found = []
    for request in hub.requests(since):
        if request.path.startswith(prefix):
            revision, _, path = request.path[len(prefix):].partition("/")
            found.append((request.method, revision, path))
        elif f"/{repo_id}/" in request.path or request.path.endswith(f"/{repo_id}"):
            found.append((request.method, "", request.path))
    return found


def _snapshot_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="session")
def release(hub, tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Release:
    """The tiny corpus as Hub repo ServiceNow/AgentHorizon: branch ``main``, also
    branch ``stable`` and tag ``v1`` at the same commit; with one screenshot that no
    json references (it must never be fetched)."""
    corpus = tmp_path_factory.mktemp("hub-release") / "release"
    shutil.copytree(tiny_root, corpus)
    row = next(r for r in _labels(corpus) if r["difficulty"] == "hard")
    folder = corpus / IMAGES_DIR / row["steps_id"]
    shutil.copyfile(sorted(folder.iterdir())[0], folder / "step_999.png")
    commit = hub.add_repo(REPO_ID, corpus)
    hub.git(REPO_ID, "branch", "stable")
    hub.git(REPO_ID, "tag", "v1")
    return Release(REPO_ID, corpus, commit)


@pytest.mark.parametrize("config", CONFIG_NAMES)
def test_every_config_fetches_exactly_the_files_it_needs(hub, release: Release, tmp_path: Path, config: str):
    since = hub.mark()
    out = hub.python(
        f"""
        import agenthorizon
        result = str(agenthorizon.resolve_release({REPO_ID!r}, {config!r}, dev_groups={DEV_GROUPS}))
        """,
        tmp_path / "hf",
    )
    root = Path(out["result"])
    assert root == tmp_path / "hf" / "hub" / "datasets--ServiceNow--AgentHorizon" / "snapshots" / release.commit
    expected = _expected_files(release.corpus, _config_ids(release.corpus, config), images=True)
    fetches = _fetches(hub, since)
    # huggingface_hub asks for each file's metadata (HEAD: commit, ETag) and downloads
    # each distinct blob once (GET): files with equal bytes share a blob.
    heads = [(revision, path) for method, revision, path in fetches if method == "HEAD"]
    gets = {(revision, path) for method, revision, path in fetches if method == "GET"}
    # The branch is resolved once, by the first label file; everything after is pinned to its commit.
    assert heads[0] == ("main", LABEL_FILES[0])
    assert {revision for revision, _ in heads[1:]} == {release.commit}
    paths = [path for _, path in heads]
    assert len(paths) == len(set(paths)), "a file was asked for twice"
    assert set(paths) == expected | set(LABEL_FILES)
    assert gets <= set(heads) | {("main", LABEL_FILES[0])}
    assert all(revision for _, revision, _ in fetches), "the repo was listed; it must be fetched file by file"
    assert _snapshot_files(root) == expected | set(LABEL_FILES)
    assert not any(path.endswith("step_999.png") for path in paths)  # referenced by no json
    if config != "all":
        others = {json_relpath(r["trajectory_id"]) for r in _labels(release.corpus)} - expected
        assert others and not others & set(paths)


@pytest.mark.parametrize("revision", ["stable", "v1", "commit"])
def test_a_branch_a_tag_or_a_commit_pins_the_snapshot(hub, release: Release, tmp_path: Path, revision: str):
    revision = release.commit if revision == "commit" else revision
    since = hub.mark()
    out = hub.python(
        f"""
        import agenthorizon
        ds = agenthorizon.load_dataset({REPO_ID!r}, "AH-S", split="test", images=None, revision={revision!r})
        result = {{"ids": list(ds["trajectory_id"]), "path": ds[0]["screenshots"][0]}}
        """,
        tmp_path / "hf",
    )
    assert out["result"]["ids"] == _config_ids(release.corpus, "AH-S")
    assert f"/snapshots/{release.commit}/" in out["result"]["path"]
    assert _fetches(hub, since)[0] == ("HEAD", revision, LABEL_FILES[0])


def test_a_hub_run_records_the_repo_and_the_commit_its_revision_named(hub, release: Release, tmp_path: Path):
    completed = hub.cli(
        ["judge", "--data", REPO_ID, "--revision", "v1", "--config", "AH", "--judge", "lexical",
         "--out", str(tmp_path / "run"), "--no-progress", "--bootstrap", "0"],
        tmp_path / "hf",
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    data = json.loads((tmp_path / "run" / "run.json").read_text())["data"]
    assert data["repo_id"] == REPO_ID and data["commit"] == release.commit
    assert Path(data["root"]).name == release.commit
    assert data["n_items"] == len(_config_ids(release.corpus, "AH"))


def test_run_judge_with_a_repo_id_records_its_snapshot_not_a_made_up_path(hub, release: Release, tmp_path: Path):
    out = hub.python(
        f"""
        import json, agenthorizon
        ds = agenthorizon.load_dataset({REPO_ID!r}, "AH", split="test", images=None)
        agenthorizon.run_judge("lexical", ds, {str(tmp_path / "run")!r}, data_root={REPO_ID!r}, progress=False)
        result = json.load(open({str(tmp_path / "run" / "run.json")!r}))["data"]
        """,
        tmp_path / "hf",
    )
    data = out["result"]
    assert data["repo_id"] == REPO_ID and data["commit"] == release.commit
    assert Path(data["root"]).is_dir() and Path(data["root"]).name == release.commit


def test_a_warm_cache_loads_offline_without_a_request(hub, release: Release, tmp_path: Path):
    load = f"""
        import agenthorizon
        ds = agenthorizon.load_dataset({REPO_ID!r}, "AH", split="test")
        shots = ds[0]["screenshots"]
        k = next(i for i, p in enumerate(shots.paths) if p is not None)
        result = {{"ids": list(ds["trajectory_id"]), "labels": list(ds["label"]), "size": list(shots[k].size)}}
        """
    online = hub.python(load, tmp_path / "hf")
    since = hub.mark()
    again = hub.python(load, tmp_path / "hf")
    # A warm snapshot costs the label files' requests only (the branch may have moved).
    assert {path for _, _, path in _fetches(hub, since)} <= set(LABEL_FILES)
    # A file lost from the snapshot (an interrupted download) is fetched again, alone.
    snapshot = tmp_path / "hf" / "hub" / "datasets--ServiceNow--AgentHorizon" / "snapshots" / release.commit
    lost = sorted((snapshot / IMAGES_DIR).rglob("*.png"))[0]
    lost.unlink()
    since = hub.mark()
    assert hub.python(load, tmp_path / "hf") == online
    assert {path for _, _, path in _fetches(hub, since)} - set(LABEL_FILES) == {lost.relative_to(snapshot).as_posix()}
    assert lost.is_file()
    since = hub.mark()
    offline = hub.python(load, tmp_path / "hf", offline=True)
    assert hub.requests(since) == []
    assert offline == again == online
    assert online["result"]["ids"] == _config_ids(release.corpus, "AH") and online["result"]["size"][0] > 0
    # A config whose files were never fetched cannot come from the offline cache, and says so.
    missing = hub.python(f"import agenthorizon\nagenthorizon.resolve_release({REPO_ID!r}, 'AH-S')",
                         tmp_path / "hf", offline=True)
    assert missing["error"] == "FileNotFoundError" and "trajectory json file(s) of config AH-S" in missing["message"]
    assert hub.requests(since) == []


def test_images_none_fetches_no_media(hub, release: Release, tmp_path: Path):
    since = hub.mark()
    out = hub.python(
        f"""
        import agenthorizon
        ds = agenthorizon.load_dataset({REPO_ID!r}, "AH", split="test", images=None)
        result = {{"ids": list(ds["trajectory_id"]), "paths": [p for p in ds[0]["screenshots"] if p]}}
        """,
        tmp_path / "hf",
    )
    paths = {path for method, _, path in _fetches(hub, since) if method == "HEAD"}
    ids = _config_ids(release.corpus, "AH")
    assert paths == _expected_files(release.corpus, ids, images=False) | set(LABEL_FILES)
    assert out["result"]["ids"] == ids
    # the rows still name their screenshots, where they would be in the snapshot
    assert out["result"]["paths"] and all(f"/snapshots/{release.commit}/{IMAGES_DIR}/" in p for p in out["result"]["paths"])


def test_export_from_the_hub_fetches_only_what_it_writes(hub, release: Release, tmp_path: Path):
    import datasets

    for config, images in (("AH", "none"), ("AH-S", "thumbnails")):
        since = hub.mark()
        out = tmp_path / f"out-{config}"
        completed = hub.cli(["export", REPO_ID, str(out), "--configs", config, "--images", images,
                             "--dev-groups", str(DEV_GROUPS)], tmp_path / "hf")
        assert completed.returncode == 0, completed.stderr[-3000:]
        paths = {path for method, _, path in _fetches(hub, since) if method == "HEAD"}
        ids = _config_ids(release.corpus, config)
        wanted = _expected_files(release.corpus, ids, images=images == "thumbnails") | set(LABEL_FILES)
        # Fetched before: the files of this HF_HOME's earlier export are not asked for again.
        assert paths <= wanted and paths >= {json_relpath(i) for i in ids}
        if images == "none":
            assert paths == wanted and not any(path.endswith(".png") for path in paths)
        exported = datasets.load_dataset(str(out), config, split="test")
        assert exported["trajectory_id"] == ids
        # The repo holds a sample corpus (its marker came along with the framework text): the
        # card says the export is synthetic and no upload to the benchmark's repo is proposed.
        assert "**Synthetic data.**" in (out / "README.md").read_text(encoding="utf-8")
        assert "hf upload" not in completed.stdout and "not for publishing" in completed.stdout.splitlines()[-1]


def test_the_printed_upload_command_runs_with_the_installed_hf_cli(tmp_path: Path):
    """The installed ``hf`` accepts the printed arguments and acts on a dataset repo.

    olah accepts no uploads, so a recorder on loopback answers the first call
    (create the repo if missing) with 403 and keeps its request: that the CLI
    got that far shows the flags parsed, and the body shows the repo type.
    """
    from agenthorizon.cli.export import upload_command

    seen: list[tuple[str, str, dict]] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's naming)
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)) or 0)
            seen.append(("POST", self.path, json.loads(body or b"{}")))
            self._refuse()

        def do_GET(self):  # noqa: N802
            seen.append(("GET", self.path, {}))
            self._refuse()

        def _refuse(self):
            payload = json.dumps({"error": "recorder: no uploads here"}).encode()
            self.send_response(403)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "README.md").write_text("---\n---\n")
        command = upload_command("someone/AgentHorizon", tmp_path / "out")
        hf = Path(sys.executable).with_name("hf")
        env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
        env.update(HF_ENDPOINT=f"http://127.0.0.1:{server.server_address[1]}", HF_TOKEN="hf_test_token",
                   HF_HOME=str(tmp_path / "hf"), HF_HUB_DISABLE_UPDATE_CHECK="1")
        completed = subprocess.run([str(hf), *command[1:]], capture_output=True, text=True, env=env, timeout=120)
        helped = subprocess.run([str(hf), "upload", "--help"], capture_output=True, text=True, env=env, timeout=120)
    finally:
        server.shutdown()
        server.server_close()
    assert helped.returncode == 0 and "--repo-type" in helped.stdout and "--create-pr" in helped.stdout
    assert completed.returncode not in (0, 2), completed.stderr  # 2: a usage error
    assert "No such option" not in completed.stderr and "403" in completed.stderr
    creates = [body for method, path, body in seen if method == "POST" and path == "/api/repos/create"]
    assert creates and creates[0]["type"] == "dataset" and creates[0]["name"] == "AgentHorizon"
    assert creates[0]["organization"] == "someone"


# --- the Parquet export on the Hub, read by plain `datasets` ---------------------------------------


@pytest.fixture(scope="session")
def export_repo(hub, tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The tiny corpus exported with every screenshot mode into one Hub repo: thumbnails
    on ``main`` (the default) and each other mode on a branch of its name."""
    from agenthorizon.data.export import export_release

    base = tmp_path_factory.mktemp("hub-export")
    export_release(tiny_root, base / "thumbnails", images="thumbnails", repo_id=EXPORT_REPO_ID)
    hub.add_repo(EXPORT_REPO_ID, base / "thumbnails")
    work = hub.repo_dir(EXPORT_REPO_ID)
    for images in ("none", "paths", "full"):
        hub.git(EXPORT_REPO_ID, "checkout", "--quiet", "-b", images, "main")
        hub.git(EXPORT_REPO_ID, "rm", "-r", "--quiet", "data", "README.md", "eval.yaml")
        export_release(tiny_root, work, images=images, repo_id=EXPORT_REPO_ID)
        hub.commit(EXPORT_REPO_ID, f"export with --images {images}")
    hub.git(EXPORT_REPO_ID, "checkout", "--quiet", "main")
    return EXPORT_REPO_ID


@pytest.mark.parametrize("images", ["none", "paths", "thumbnails", "full"])
def test_plain_datasets_reads_the_export_repo_as_the_builder_rows(
    hub, export_repo: str, tiny_root: Path, tmp_path: Path, images: str
):
    revision = "main" if images == "thumbnails" else images
    out = hub.python(
        f"""
        import datasets
        from pathlib import Path
        from export_rows import assert_same_rows_as_builder
        for config in {list(CONFIG_NAMES)!r}:
            plain = datasets.load_dataset({export_repo!r}, config, split="test", revision={revision!r})
            assert_same_rows_as_builder(Path({str(tiny_root)!r}), plain, config, {images!r})
        default = datasets.load_dataset({export_repo!r}, split="test", revision={revision!r})
        result = list(default["trajectory_id"])
        """,
        tmp_path / "hf",
    )
    assert "error" not in out, out
    assert out["result"] == _config_ids(tiny_root, "AH")  # AH is the card's default config


# --- a release that changes, and files missing on the Hub -------------------------------------------


def test_a_new_commit_is_picked_up_by_a_new_load_and_not_by_a_pinned_one(hub, tiny_root: Path, tmp_path: Path):
    repo_id = "agenthorizon-tests/AgentHorizon-moving"
    first = hub.add_repo(repo_id, tiny_root)
    load = """
        import agenthorizon
        ds = agenthorizon.load_dataset({repo!r}, "AH", split="test", images=None, revision={revision!r})
        result = dict(zip(ds["trajectory_id"], ds["mistake_type"]))
        """
    before = hub.python(load.format(repo=repo_id, revision=None), tmp_path / "hf")["result"]
    # Relabel one negative: a second commit on main.
    path = hub.repo_dir(repo_id) / LABEL_FILES[0]
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    changed = next(r for r in rows if r["label"] == "negative")
    changed["mistake_type"] = next(t for t in MISTAKE_TYPES if t != changed["mistake_type"])
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    second = hub.commit(repo_id, "relabel one negative")
    assert second != first

    after = hub.python(load.format(repo=repo_id, revision=None), tmp_path / "hf")["result"]
    pinned = hub.python(load.format(repo=repo_id, revision=first), tmp_path / "hf")["result"]
    assert after == {**before, changed["trajectory_id"]: changed["mistake_type"]}
    assert after != before and pinned == before
    snapshots = tmp_path / "hf" / "hub" / "datasets--agenthorizon-tests--AgentHorizon-moving" / "snapshots"
    assert {p.name for p in snapshots.iterdir()} == {first, second}


@pytest.fixture(scope="module")
def damaged(hub, tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A repo lacking one hard json, one easy markdown and one easy screenshot; branch
    ``no-simple`` lacks AgentHorizon-Simple.jsonl as well."""
    repo_id = "agenthorizon-tests/AgentHorizon-damaged"
    corpus = tmp_path_factory.mktemp("hub-damaged") / "release"
    shutil.copytree(tiny_root, corpus)
    rows = _labels(corpus)
    hard = next(r for r in rows if r["difficulty"] == "hard")
    easy = [r for r in rows if r["difficulty"] == "easy"]
    (corpus / json_relpath(hard["trajectory_id"])).unlink()
    (corpus / markdown_relpath(easy[0]["trajectory_id"])).unlink()
    steps = json.loads((corpus / json_relpath(easy[1]["trajectory_id"])).read_text())["steps"]
    k, reference = next((i, s["screenshot"]) for i, s in enumerate(steps) if s.get("screenshot"))
    (corpus / posixpath.normpath(f"{JSONS_DIR}/{reference}")).unlink()
    commit = hub.add_repo(repo_id, corpus)
    hub.git(repo_id, "checkout", "--quiet", "-b", "no-simple")
    hub.git(repo_id, "rm", "--quiet", LABEL_FILES[1])
    hub.commit(repo_id, "drop the simple labels")
    hub.git(repo_id, "checkout", "--quiet", "main")
    return {"repo_id": repo_id, "corpus": corpus, "hard": hard, "no_markdown": easy[0], "no_screenshot": easy[1],
            "step": k, "screenshot": posixpath.basename(reference), "commit": commit,
            "absent": [markdown_relpath(easy[0]["trajectory_id"]), posixpath.normpath(f"{JSONS_DIR}/{reference}")]}


def test_a_json_missing_on_the_hub_names_the_trajectory_and_its_label_row(hub, damaged: dict, tmp_path: Path):
    out = hub.python(
        f"import agenthorizon\nagenthorizon.resolve_release({damaged['repo_id']!r}, 'AH')", tmp_path / "hf"
    )
    hard = damaged["hard"]
    assert out["error"] == "FileNotFoundError"
    assert f"trajectory {hard['trajectory_id']}, label row {LABEL_FILES[0]}:" in out["message"]
    assert "not in the repo at that commit" in out["message"]


def test_a_missing_markdown_is_rendered_and_a_missing_screenshot_fails_when_indexed(
    hub, damaged: dict, tmp_path: Path
):
    """The one thing olah cannot show: the Hub's 404 carries ``X-Repo-Commit``, from which
    huggingface_hub records the absence in the cache (``.no_exist/<commit>/``); olah's 404
    does not, so the test writes those markers as the Hub would have made them, and checks
    with the real server that a second load then asks for nothing else than the labels."""
    code = f"""
        import agenthorizon
        ds = agenthorizon.load_dataset({damaged['repo_id']!r}, "AH-S", split="test")
        ids = list(ds["trajectory_id"])
        item = ds[ids.index({damaged['no_markdown']['trajectory_id']!r})]
        shots = ds[ids.index({damaged['no_screenshot']['trajectory_id']!r})]["screenshots"]
        try:
            shots[{damaged['step']}]
            indexed = "decoded"
        except FileNotFoundError as error:
            indexed = str(error)
        result = {{"markdown": item["markdown"], "indexed": indexed}}
        """
    out = hub.python(code, tmp_path / "hf")
    warnings = " | ".join(out["warnings"])
    assert "1 trajectory markdown file(s) of config AH-S" in warnings and "renders them from the json" in warnings
    assert "1 screenshot(s) referenced by config AH-S could not be fetched" in warnings
    trajectory = json.loads((damaged["corpus"] / json_relpath(damaged["no_markdown"]["trajectory_id"])).read_text())
    from agenthorizon import to_markdown

    assert out["result"]["markdown"] == to_markdown(trajectory)
    assert damaged["screenshot"] in out["result"]["indexed"]
    # The Hub answers a 404 with the X-Repo-Commit header, and huggingface_hub then records the
    # absence under .no_exist/<commit>/ in the cache; olah's 404 lacks that header, so the
    # markers the Hub would have left are written here. With them, loading again asks for the
    # label files only.
    storage = tmp_path / "hf" / "hub" / f"datasets--{damaged['repo_id'].replace('/', '--')}"
    for absent in damaged["absent"]:
        marker = storage / ".no_exist" / damaged["commit"] / absent
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    since = hub.mark()
    again = hub.python(code, tmp_path / "hf")
    assert {path for _, _, path in _fetches(hub, since, damaged["repo_id"])} <= set(LABEL_FILES)
    assert again["result"] == out["result"]


def test_a_repo_without_a_label_file_or_a_repo_that_does_not_exist(hub, damaged: dict, tmp_path: Path):
    out = hub.python(
        f"import agenthorizon\nagenthorizon.resolve_release({damaged['repo_id']!r}, 'AH', revision='no-simple')",
        tmp_path / "hf",
    )
    assert out["error"] == "FileNotFoundError"
    assert f"{damaged['repo_id']} at revision 'no-simple'" in out["message"]
    assert f"has no {LABEL_FILES[1]}; expected a release root" in out["message"]
    out = hub.python("import agenthorizon\nagenthorizon.resolve_release('agenthorizon-tests/nowhere', 'AH')",
                     tmp_path / "hf")
    assert out["error"] == "FileNotFoundError"
    assert out["message"].startswith("agenthorizon-tests/nowhere: no such local directory")
    assert "not a Hub dataset repo that could be fetched" in out["message"]


def test_every_command_that_takes_data_accepts_a_repo_id(hub, release: Release, tmp_path: Path):
    """score, leaderboard, info and report take the repo id judge and export take, through one resolver;
    scoring fetches the label files only, and the numbers are those of the same release on disk."""
    run = tmp_path / "run"
    judged = hub.cli(["judge", "--data", REPO_ID, "--config", "AH", "--judge", "lexical", "--out", str(run),
                      "--no-progress", "--bootstrap", "0"], tmp_path / "hf")
    assert judged.returncode == 0, judged.stderr[-3000:]

    since = hub.mark()
    scored = hub.cli(["score", str(run), "--data", REPO_ID, "--format", "json"], tmp_path / "hf")
    assert scored.returncode == 0, scored.stderr[-3000:]
    assert {path for _, _, path in _fetches(hub, since)} <= set(LABEL_FILES)
    local = hub.cli(["score", str(run), "--data", str(release.corpus), "--format", "json"], tmp_path / "hf")
    hub_score, local_score = json.loads(scored.stdout), json.loads(local.stdout)
    assert hub_score["manifest"] == local_score["manifest"] and hub_score["n"] == len(_config_ids(release.corpus, "AH"))
    assert hub_score["balanced_accuracy"] == local_score["balanced_accuracy"]

    board = hub.cli(["leaderboard", str(run), "--data", REPO_ID, "--format", "json"], tmp_path / "hf")
    assert board.returncode == 0, board.stderr[-3000:]
    assert json.loads(board.stdout)["judges"][0]["reports"]["AH"]["n"] == hub_score["n"]

    info = hub.cli(["info", REPO_ID, "--format", "json"], tmp_path / "hf")
    local_info = hub.cli(["info", str(release.corpus), "--format", "json"], tmp_path / "hf")
    assert info.returncode == 0, info.stderr[-3000:]
    assert json.loads(info.stdout)["configs"] == json.loads(local_info.stdout)["configs"]

    page = tmp_path / "report.html"
    reported = hub.cli(["report", str(run), "--data", REPO_ID, "--out", str(page), "--bootstrap", "0"], tmp_path / "hf")
    assert reported.returncode == 0, reported.stderr[-3000:]
    assert "data:image/jpeg;base64," in page.read_text(encoding="utf-8")  # its screenshots were fetched too


def test_partition_takes_a_hub_repo_id_as_data_and_writes_a_release_that_loads(hub, release: Release, tmp_path: Path):
    import agenthorizon
    from agenthorizon.judging.runs.runner import run_judge

    runs = []
    for config in ("AH", "AH-S"):
        dataset = agenthorizon.load_dataset(release.corpus, config, split="test", images=None)
        run_judge("lexical", dataset, tmp_path / config, config=config, data_root=release.corpus, progress=False)
        runs.append(str(tmp_path / config))
    out = tmp_path / "split"
    completed = hub.cli(["partition", *runs, "--data", REPO_ID, "--threshold", "0", "--out", str(out)], tmp_path / "hf")
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "1 judges pooled" in completed.stdout
    # The sandbox came from the snapshot's links into blobs/: the new release holds the files themselves.
    loaded = agenthorizon.load_dataset(out, "all", split="test", images="paths")
    assert sorted(loaded["trajectory_id"]) == sorted(row["trajectory_id"] for row in _labels(release.corpus))
    shown = next(path for row in loaded for path in row["screenshots"] if path)
    assert not Path(shown).is_symlink() and Path(shown).is_relative_to(out)
