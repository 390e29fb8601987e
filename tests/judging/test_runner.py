"""The runner: crash and resume, retries of failed items, shards, run records, secrets."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.judging.judges import BaseJudge, JudgeOutput, make_judge
from agenthorizon.release.labels import manifest_sha256
from agenthorizon.judging.runs.folder import is_result_name, read_results
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.judging.runs.shards import shard_ids
from agenthorizon.schema import PARSE_STATUSES

VERDICT = '{"success": true, "reasoning": "ok"}'

SLOW_JUDGE = '''
import sys, time
import agenthorizon
from agenthorizon.judging.judges import BaseJudge, JudgeOutput
from agenthorizon.judging.runs.runner import run_judge

class SlowJudge(BaseJudge):
    name = "slow"
    def __init__(self, delay):
        self.delay = delay
    def judge(self, judge_input):
        time.sleep(self.delay)
        return JudgeOutput(text='{"success": false, "reasoning": "slow", "mistake_type": "Critical Mistake"}')
    def spec(self):
        return {"name": "slow", "spec": "slow"}

if __name__ == "__main__":
    dataset = agenthorizon.load_dataset(sys.argv[1], "all", split="test", images="paths")
    run_judge(SlowJudge(float(sys.argv[3])), dataset, sys.argv[2], concurrency=2, progress=False)
'''


@pytest.fixture(scope="module")
def dataset(tiny_root):
    return agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")


def result_files(out: Path) -> dict[str, dict]:
    found = {}
    for path in out.iterdir():
        if is_result_name(path):
            found[path.stem] = json.loads(path.read_text())  # raises if a file is corrupt
    return found


@pytest.mark.slow
def test_resume_after_a_crash_mid_run_loses_duplicates_and_corrupts_nothing(tiny_root, dataset, tmp_path):
    script = tmp_path / "slow_judge.py"
    script.write_text(SLOW_JUDGE)
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    process = subprocess.Popen([sys.executable, str(script), str(tiny_root), str(out), "0.3"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if out.is_dir() and len([p for p in out.iterdir() if is_result_name(p)]) >= 4:
            break
        if process.poll() is not None:
            pytest.fail(f"the run ended before it could be killed: {process.stderr.read().decode()[-2000:]}")
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)  # a crash: no cleanup, no final record
    process.wait()

    before = result_files(out)
    assert 4 <= len(before) < len(dataset), "the crash must come mid-run"
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "running" and record["ended_at"] is None  # the record written at the start survives the crash

    sys.path.insert(0, str(tmp_path))
    try:
        from slow_judge import SlowJudge
    finally:
        sys.path.remove(str(tmp_path))
    summary = run_judge(SlowJudge(0.0), dataset, out, progress=False)

    after = result_files(out)
    ids = list(dataset["trajectory_id"])
    assert sorted(after) == sorted(ids)  # nothing lost, nothing extra
    assert len(read_results([out]).records) == len(ids)  # no duplicates, all readable
    for trajectory_id, result in before.items():
        assert after[trajectory_id] == result  # finished items were not judged again
    assert summary.counts.skipped == len(before)
    assert summary.judged == len(ids) - len(before)
    assert summary.counts.ok == len(ids)
    assert all(r["parse_status"] in PARSE_STATUSES for r in after.values())
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "finished" and record["ended_at"] is not None and record["counts"]["ok"] == len(ids)
    assert record["totals"]["wall_time_s"] is None  # the killed invocation's time was never written


class FlakyJudge(BaseJudge):
    """Fails (or answers without JSON) for chosen ids; otherwise accepts."""

    name = "flaky"

    def __init__(self, fail=(), prose=(), hang=()):
        self.fail, self.prose, self.hang = set(fail), set(prose), set(hang)
        self.calls = []
        self.lock = threading.Lock()
        self.released = threading.Event()  # ends the hung calls (their threads outlive the run)

    def judge(self, judge_input):
        with self.lock:
            self.calls.append(judge_input.trajectory_id)
        if judge_input.trajectory_id in self.hang:
            self.released.wait(60)
        if judge_input.trajectory_id in self.fail:
            raise RuntimeError("server exploded")
        if judge_input.trajectory_id in self.prose:
            return JudgeOutput(text="I think it worked.")
        return JudgeOutput(text=VERDICT, input_tokens=10, output_tokens=2, cost_usd=0.001)

    def spec(self):
        return {"name": "flaky", "spec": "flaky"}


def test_rerun_retries_errors_and_corrupt_files_and_keeps_answered_items(dataset, tmp_path):
    ids = list(dataset["trajectory_id"])
    out = tmp_path / "run"
    first = FlakyJudge(fail=ids[:2], prose=ids[2:3])
    summary = run_judge(first, dataset, out, progress=False)
    assert summary.counts.to_dict() == {"ok": len(ids) - 3, "unparseable": 1, "error": 2, "missing": 0, "skipped": 0}
    failed = json.loads((out / f"{ids[0]}.json").read_text())
    assert failed["parse_status"] == "error" and "server exploded" in failed["error"]
    assert json.loads((out / f"{ids[2]}.json").read_text())["parse_status"] == "no_json"
    (out / f"{ids[3]}.json").write_text('{"trajectory_id": "trunc')  # a damaged file

    second = FlakyJudge()
    summary = run_judge(second, dataset, out, progress=False)
    assert sorted(second.calls) == sorted([ids[0], ids[1], ids[3]])  # errors and the corrupt file only
    assert summary.counts.ok == len(ids) - 1 and summary.counts.unparseable == 1
    assert summary.counts.skipped == len(ids) - 3


def test_per_item_timeout_records_an_error_and_the_run_goes_on(dataset, tmp_path):
    ids = list(dataset["trajectory_id"])
    judge = FlakyJudge(hang=ids[:1])
    started = time.monotonic()
    summary = run_judge(judge, dataset, tmp_path / "run", timeout=0.5, retries=1, backoff_base=0.01,
                        concurrency=4, progress=False)
    result = json.loads((tmp_path / "run" / f"{ids[0]}.json").read_text())
    assert result["parse_status"] == "error" and "timed out after 0.5 s" in result["error"]
    assert judge.calls.count(ids[0]) == 2  # one retry
    assert summary.counts.ok == len(ids) - 1
    # The hung calls did not hold up the run: had it waited for them, it would take 60 s or more.
    assert time.monotonic() - started < 30
    judge.released.set()


def test_concurrency_is_bounded_and_reached(dataset, tmp_path):
    class Counting(BaseJudge):
        name = "counting"
        active = peak = 0

        async def ajudge(self, judge_input):
            type(self).active += 1
            type(self).peak = max(type(self).peak, type(self).active)
            await asyncio.sleep(0.02)
            type(self).active -= 1
            return JudgeOutput(text=VERDICT)

    run_judge(Counting(), dataset, tmp_path / "run", concurrency=3, progress=False)
    assert Counting.peak == 3


def test_shards_partition_the_items_and_merge_for_scoring(tiny_root, dataset, tmp_path, capsys):
    ids = list(dataset["trajectory_id"])
    out = tmp_path / "sharded"
    seen = []
    for index in (1, 2, 3):
        summary = run_judge("lexical", dataset, out, shard=f"{index}/3", progress=False, config="all")
        assert (out / f"run-shard-{index}-of-3.json").is_file()
        seen.append(set(shard_ids(ids, f"{index}/3")))
        assert summary.n_selected == len(seen[-1])
    assert sorted(set().union(*seen)) == sorted(ids)
    assert sum(len(s) for s in seen) == len(ids)
    assert max(len(s) for s in seen) - min(len(s) for s in seen) <= 1
    # the assignment depends on the ids, not on the dataset's order
    assert [shard_ids(list(reversed(ids)), f"{i}/3") for i in (1, 2, 3)] == seen

    whole = run_judge("lexical", dataset, tmp_path / "whole", progress=False, config="all")
    from agenthorizon.cli import main

    assert main(["score", str(out), "--data", str(tiny_root), "--config", "all", "--format", "json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["n"] == len(ids) and merged["n_invalid"] == 0
    assert merged["balanced_accuracy"] == pytest.approx(whole.score.balanced_accuracy)


def test_run_record_has_the_provenance_and_no_secret(tiny_root, dataset, tmp_path, monkeypatch):
    secret = "sk-THIS-IS-A-FAKE-SECRET-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("AH_RUNNER_KEY", secret)
    from loopback import StubServer

    server = StubServer()
    try:
        judge = make_judge("openai:stub-model", base_url=server.base_url,
                           api_key_env="AH_RUNNER_KEY", images="none", temperature=0.1, max_tokens=99)
        summary = run_judge(judge, dataset, tmp_path / "run", config="all", data_root=tiny_root,
                            progress=False, limit=5)
        assert all(r["headers"]["Authorization"] == f"Bearer {secret}" for r in server.requests)
    finally:
        server.close()

    record = json.loads((tmp_path / "run" / "run.json").read_text())
    for key in ("judge", "model", "base_url", "prompt", "sampling", "images", "config", "data", "versions",
                "git_revision", "status", "started_at", "ended_at", "counts", "totals", "shard"):
        assert key in record, key
    assert record["judge"]["spec"] == "openai:stub-model" and record["model"] == "stub-model"
    assert record["base_url"] == server.base_url
    assert record["sampling"] == {"temperature": 0.1, "max_tokens": 99}
    assert record["images"]["mode"] == "none"
    from agenthorizon.judging.judges.prompts import DIRECT_PROMPT, prompt_sha256

    assert record["prompt"] == {"sha256": prompt_sha256(DIRECT_PROMPT), "text": DIRECT_PROMPT, "source": "project"}
    labels = dataset.select_columns(["trajectory_id", "label", "instruction_id", "instruction_source", "steps_id",
                                     "steps_source", "mistake_type"]).to_list()
    assert record["selection"]["label_manifest_sha256"] == manifest_sha256(labels)
    assert record["data"]["n_selected"] == 5 and record["counts"]["ok"] == 5
    assert record["versions"]["agenthorizon"] == agenthorizon.__version__
    result = json.loads(next(p for p in (tmp_path / "run").iterdir() if is_result_name(p)).read_text())
    assert result["telemetry"]["input_tokens"] == 1200 and result["telemetry"]["attempts"] == 1
    for path in (tmp_path / "run").iterdir():
        assert secret not in path.read_text(), f"{path.name} holds the API key"
    assert summary.score.n == 5


def test_a_different_judge_cannot_write_into_an_existing_run(dataset, tmp_path):
    run_judge("constant:true", dataset, tmp_path / "run", progress=False, limit=2)
    with pytest.raises(ValueError, match="already holds a run with other settings"):
        run_judge("constant:false", dataset, tmp_path / "run", progress=False, limit=2)


def test_random_judge_results_do_not_depend_on_concurrency(dataset, tmp_path):
    run_judge("random:5", dataset, tmp_path / "a", concurrency=1, progress=False)
    run_judge("random:5", dataset, tmp_path / "b", concurrency=8, progress=False)
    a, b = result_files(tmp_path / "a"), result_files(tmp_path / "b")
    assert {k: v["verdict"] for k, v in a.items()} == {k: v["verdict"] for k, v in b.items()}


def test_bad_arguments_are_clear_errors(dataset, tmp_path):
    with pytest.raises(ValueError, match="shards are numbered 1..N"):
        run_judge("lexical", dataset, tmp_path, shard="0/3")
    with pytest.raises(ValueError, match="concurrency"):
        run_judge("lexical", dataset, tmp_path, concurrency=0)
    with pytest.raises(ValueError, match="duplicate trajectory_id"):
        rows = list(dataset.select(range(2)))
        run_judge("lexical", rows + rows[:1], tmp_path / "dup")


def test_runner_and_sync_judging_work_inside_a_running_event_loop(dataset, tmp_path):
    # Jupyter runs an event loop in the kernel's thread; asyncio.run alone would refuse.
    from agenthorizon.judging.inputs import build_judge_input

    class AsyncOnly(BaseJudge):
        name = "async-only"

        async def ajudge(self, judge_input):
            await asyncio.sleep(0)
            return JudgeOutput(text=VERDICT)

    async def inside_a_loop():
        summary = run_judge("lexical", dataset, tmp_path / "run", progress=False, limit=3)
        output = AsyncOnly().judge(build_judge_input(dataset[0]))  # the derived sync call
        return summary, output

    summary, output = asyncio.run(inside_a_loop())
    assert summary.counts.ok == 3 and output.text == VERDICT


def test_ctrl_c_mid_run_keeps_the_results_and_the_record_says_the_run_did_not_finish(dataset, tmp_path):
    ids = list(dataset["trajectory_id"])
    out = tmp_path / "run"

    class Interrupted(BaseJudge):
        name = "interrupted"
        calls = 0

        async def ajudge(self, judge_input):
            type(self).calls += 1
            if type(self).calls == 4:
                raise KeyboardInterrupt  # what Ctrl-C raises in the running loop
            return JudgeOutput(text=VERDICT)

    with pytest.raises(KeyboardInterrupt):
        run_judge(Interrupted(), dataset, out, concurrency=1, progress=False)
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "interrupted" and record["ended_at"]
    assert record["interruption"] == {"cause": "signal", "reason": "KeyboardInterrupt"}
    assert record["counts"] == {"ok": 3, "unparseable": 0, "error": 0, "missing": len(ids) - 3, "skipped": 0}
    assert len(result_files(out)) == 3  # every file written so far parses

    summary = run_judge(Interrupted(), dataset, out, concurrency=1, progress=False)
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "finished" and record["interruption"] is None and record["ended_at"]
    assert summary.counts.skipped == 3 and summary.counts.ok == len(ids)


def test_final_counts_merging_and_score_come_from_what_the_run_knows(dataset, tmp_path, monkeypatch):
    # Result files are read once, at the start (to resume); counts, merging and
    # the score at the end are derived from those and the payloads just written.
    import agenthorizon.judging.runs.folder

    ids = list(dataset["trajectory_id"])

    class Mosaics(BaseJudge):
        name = "mosaics"

        async def ajudge(self, judge_input):
            merged = judge_input.trajectory_id in ids[:3]
            return JudgeOutput(text=VERDICT, extra={"merged": merged, "merge_reason": "count" if merged else None})

    out = tmp_path / "run"
    run_judge(Mosaics(), dataset, out, progress=False, limit=2)  # ids[0], ids[1]: merged, then resumed

    reads = []
    original = agenthorizon.judging.runs.folder.read_result
    monkeypatch.setattr(
        agenthorizon.judging.runs.folder,
        "read_result",
        lambda run_dir, tid: reads.append(f"{tid}.json") or original(run_dir, tid),
    )
    monkeypatch.setattr(agenthorizon.judging.runs.folder, "read_results", lambda *a, **k: pytest.fail("result files re-read"))
    summary = run_judge(Mosaics(), dataset, out, progress=False)
    assert sorted(reads) == sorted(f"{tid}.json" for tid in ids[:2])  # each file there once, no others tried
    assert summary.record.merging.to_dict() == {"merged_items": 3, "by_reason": {"count": 3}}
    assert summary.counts.skipped == 2 and summary.score.n == len(ids)
    # ... and the score is the one the files on disk give
    from agenthorizon.scoring.metrics import score

    rows = dataset.select_columns(["trajectory_id", "label", "mistake_type", "pair_group_id"]).to_list()
    from_files = score(read_results([out]).predictions(ids), rows)
    assert summary.score.balanced_accuracy == from_files.balanced_accuracy == 0.5


def test_half_labelled_rows_get_a_clear_error(tmp_path):
    rows = [{"trajectory_id": "00000000-0000-4000-8000-000000000001", "instruction": "x", "label": "positive",
             "steps": [], "markdown": ""}]
    with pytest.raises(ValueError, match="label fields .*instruction_id.*expected full rows"):
        run_judge("constant:true", rows, tmp_path / "run", progress=False)


def test_a_judge_not_deriving_from_basejudge_gets_every_hook_called_through_one_adapter(tiny_root, dataset, tmp_path):
    from agenthorizon.judging.retry import RetryPolicy

    calls = []

    class Duck:  # the Judge protocol's members, written by hand
        retry = RetryPolicy(retries=0)

        def bind_release(self, root):
            calls.append(("bind_release", Path(root) == tiny_root))

        def preflight(self):
            calls.append(("preflight",))

        async def apreflight(self):
            calls.append(("apreflight",))

        async def ajudge(self, judge_input):
            calls.append(("ajudge",))
            raise agenthorizon.judging.judges.TransientJudgeError("busy")

        async def aclose(self):
            calls.append(("aclose",))

        def spec(self):
            return {"name": "duck", "spec": "duck"}

    summary = run_judge(Duck(), dataset, tmp_path / "run", data_root=tiny_root, progress=False, limit=2, retries=3,
                        concurrency=1)
    # Its own retry policy: one attempt per item from the runner, not four.
    assert calls == [("bind_release", True), ("preflight",), ("apreflight",), ("ajudge",), ("ajudge",), ("aclose",)]
    assert summary.counts.error == 2
    failed = next(iter(summary.errors))
    assert json.loads((tmp_path / "run" / f"{failed}.json").read_text())["judge"] == "Duck"
    with pytest.raises(ValueError, match="is not a judge: expected an object with judge/ajudge/spec"):
        run_judge(object(), dataset, tmp_path / "other", progress=False)


def test_a_judge_that_needs_the_release_refuses_to_start_without_data_root(dataset, tmp_path):
    class ReleasePrompt(BaseJudge):
        name = "release-prompt"
        needs_release = True

        def judge(self, judge_input):
            return JudgeOutput(text=VERDICT)

    with pytest.raises(ValueError, match=r"pass data_root="):
        run_judge(ReleasePrompt(), dataset, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()  # refused before anything was written
