"""The run folder's records: typed parts, the run's status, totals, validation and the migration of older versions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import agenthorizon
from agenthorizon.cli import main
from agenthorizon.judging.judges import BaseJudge, JudgeOutput
from agenthorizon.judging.runs.folder import read_results, read_run_record
from agenthorizon.judging.runs.records import (
    FORMAT_VERSION,
    Interruption,
    ResultRecord,
    RunCounts,
    RunRecord,
    Telemetry,
    judge_key,
)
from agenthorizon.judging.runs.runner import run_judge
from agenthorizon.release.splits import Selection
from agenthorizon.schema import CONFIG_AH

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
VERDICT = '{"success": true, "reasoning": "ok"}'


@pytest.fixture(scope="module")
def dataset(tiny_root):
    return agenthorizon.load_dataset(tiny_root, "all", split="test", images="paths")


# --- migration of older versions (one test per version) -------------------------------------


def test_a_run_folder_written_before_typed_records_still_reads():
    # tests/golden/run-v1: lexical on AH with --exclude-dev --limit 3, written by
    # agenthorizon before format_version 2 (run.json without selection or
    # judge_key, results without judge_key).
    from agenthorizon.judging.judges import make_judge

    folder = GOLDEN / "run-v1"
    record = read_run_record(folder)
    assert record.format_version == 1 and record.label == "lexical"
    assert record.selection == Selection(
        CONFIG_AH, exclude_dev=True, label_manifest_sha256=json.loads((folder / "run.json").read_text())["data"]["manifest_sha256"]
    )
    # The same judge today has the same key, so old and new runs share a leaderboard row.
    assert record.judge_key == judge_key(make_judge("lexical").spec())
    # Its end, told by finished_at and interrupted then, is a status now.
    assert record.status == "finished" and record.ended_at == "2026-11-30T14:53:40+00:00" and record.interruption is None
    assert record.counts == RunCounts(ok=3) and record.totals is None  # "invalid" was the unparseable count
    results = read_results([folder])
    assert len(results.records) == 3 and not results.unreadable and not results.untrusted
    assert record.to_dict()["format_version"] == FORMAT_VERSION == 4  # rewritten in the current format


def test_a_version_2_run_stopped_by_the_cost_cap_reads_as_stopped(tiny_root, capsys):
    # tests/golden/run-v2: written by agenthorizon at format_version 2 (commit af9c793): a
    # judge costing $0.02 an item, --max-cost 0.05, --limit 4: one ok, one prose answer, two never started.
    folder = GOLDEN / "run-v2"
    raw = json.loads((folder / "run.json").read_text())
    record = read_run_record(folder)
    assert record.format_version == 2
    assert record.status == "stopped" and record.interruption.cause == "max_cost"
    assert record.interruption.reason == raw["interrupted"]["reason"] and record.ended_at == raw["interrupted"]["at"]
    assert record.counts == RunCounts(ok=1, unparseable=1, missing=2)
    assert record.judge_key == raw["judge_key"]
    results = read_results([folder])
    assert {r.parse_status for r in results.records.values()} == {"ok", "no_json"}
    assert all(r.telemetry.cost_usd == 0.02 and r.telemetry.reasoning_tokens is None for r in results.records.values())
    written = record.to_dict()
    assert written["status"] == "stopped" and written["counts"]["unparseable"] == 1
    assert "interrupted" not in written and "finished_at" not in written
    assert RunRecord.from_dict(written, "again") == record.replace(format_version=FORMAT_VERSION)
    # and it scores: the two missing items count, incorrect
    assert main(["score", str(folder), "--data", str(tiny_root), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in data["invalid_by_reason"].items() if v} == {"missing": 6, "no_json": 1}  # 8 AH items, 1 ok


def test_a_version_3_run_folder_reads_and_resumes_under_the_same_judge_key(tiny_root, tmp_path):
    # tests/golden/run-v3: written by agenthorizon at format_version 3 (commit f18e738, lexical, --limit 3),
    # before re-asking, layouts and system prompts existed. Their defaults leave the judge key as it was,
    # so today's runner trusts the old results and judges only what is left.
    import shutil

    import agenthorizon
    from agenthorizon.judging.runs.runner import run_judge

    record = read_run_record(GOLDEN / "run-v3")
    assert record.format_version == 3 and record.reasking is None and record.counts == RunCounts(ok=3)
    results = read_results([GOLDEN / "run-v3"]).records
    assert len(results) == 3 and all(r.answers == () and r.telemetry.answers is None for r in results.values())
    folder = tmp_path / "run"
    shutil.copytree(GOLDEN / "run-v3", folder)
    dataset = agenthorizon.load_dataset(tiny_root, "AH", split="test", cache_dir=tmp_path / "cache")
    summary = run_judge("lexical", dataset, folder, progress=False, data_root=tiny_root)
    assert summary.record.judge_key == record.judge_key and summary.counts.skipped == 3
    assert summary.judged == len(dataset) - 3 and summary.record.format_version == FORMAT_VERSION
    assert summary.record.reasking.to_dict() == {"items": 0, "reasks": 0, "recovered": 0}


# --- what the runner writes ---------------------------------------------------------------------


class Priced(BaseJudge):
    """Answers every item; items named in ``priced`` report their tokens and cost, the others only tokens."""

    name = "priced"

    def __init__(self, priced: dict[str, tuple[int, int, float]]) -> None:
        self.priced = priced

    def judge(self, judge_input):
        tokens_in, tokens_out, cost = self.priced.get(judge_input.trajectory_id, (7, 1, None))
        return JudgeOutput(text=VERDICT, input_tokens=tokens_in, output_tokens=tokens_out, cost_usd=cost,
                           latency_s=0.01, extra={"turns": 2, "harness_note": "x"})


def test_run_totals_sum_what_is_known_and_say_how_much_is_not(dataset, tmp_path):
    ids = list(dataset["trajectory_id"])
    priced = {tid: (100 + i, 10 + i, 0.01 * (i + 1)) for i, tid in enumerate(ids[:5])}
    summary = run_judge(Priced(priced), dataset, tmp_path / "run", progress=False)
    totals = json.loads((tmp_path / "run" / "run.json").read_text())["totals"]
    # Expected, from what the judge reported (not from the files)
    known_cost = sum(cost for _, _, cost in priced.values())
    assert totals["items"] == len(ids)
    assert totals["input_tokens"] == {"total": sum(p[0] for p in priced.values()) + 7 * (len(ids) - 5),
                                      "known": sum(p[0] for p in priced.values()) + 7 * (len(ids) - 5), "unknown_items": 0}
    assert totals["cost_usd"]["total"] is None  # one unknown cost makes the total unknown, never 0
    assert totals["cost_usd"]["known"] == pytest.approx(known_cost) and totals["cost_usd"]["unknown_items"] == len(ids) - 5
    assert totals["turns"] == {"total": 2 * len(ids), "known": 2 * len(ids), "unknown_items": 0}  # an extra key of that name
    assert totals["tool_calls"] == {"total": None, "known": 0, "unknown_items": len(ids)}
    assert 0 < totals["wall_time_s"] <= summary.wall_time_s
    result = read_results([tmp_path / "run"]).records[ids[0]]
    assert result.telemetry == Telemetry(input_tokens=100, output_tokens=10, latency_s=0.01, cost_usd=0.01, attempts=1,
                                         answers=1, turns=2, extra={"harness_note": "x"})
    # A resume judges nothing new and adds its own time to the record's.
    again = run_judge(Priced(priced), dataset, tmp_path / "run", progress=False)
    assert again.record.totals.items == len(ids) and again.record.totals.cost_usd.known == pytest.approx(known_cost)
    assert again.record.totals.wall_time_s > totals["wall_time_s"]


def test_a_judge_reporting_telemetry_of_the_wrong_type_gets_an_error_result_naming_it(dataset, tmp_path):
    class Sloppy(BaseJudge):
        name = "sloppy"

        def judge(self, judge_input):
            return JudgeOutput(text=VERDICT, input_tokens="1200")  # a string, not a count

    summary = run_judge(Sloppy(), dataset.select(range(2)), tmp_path / "run", progress=False)
    assert summary.counts.error == 2
    message = next(iter(summary.errors.values()))
    assert "telemetry" in message and "input_tokens" in message and "expected a count" in message


def test_a_run_record_states_its_status_and_refuses_a_contradiction(tmp_path):
    record = RunRecord.build({"name": "lexical", "spec": "lexical"}, Selection(CONFIG_AH))
    assert record.status == "running" and record.ended_at is None
    stopped = record.ended("2026-12-01T00:00:00+00:00", RunCounts(ok=1, missing=2), *_parts(),
                           Interruption("breaker", "stopped after 5 consecutive items failed to reach the judge"))
    assert stopped.status == "stopped"
    assert RunRecord.from_dict(stopped.to_dict(), "run.json") == stopped
    assert record.ended("t", RunCounts(), *_parts()).status == "finished"
    assert record.ended("t", RunCounts(), *_parts(), Interruption("signal", "KeyboardInterrupt")).status == "interrupted"
    broken = {**stopped.to_dict(), "interruption": None}
    with pytest.raises(ValueError, match=r"run\.json: fields 'status'/'interruption'"):
        RunRecord.from_dict(broken, "run.json")
    with pytest.raises(ValueError, match=r"run\.json: field 'status': expected one of running, finished, stopped, interrupted"):
        RunRecord.from_dict({**stopped.to_dict(), "status": "done"}, "run.json")
    with pytest.raises(ValueError, match=r"run\.json: field 'counts': unknown count\(s\) invalid"):
        RunRecord.from_dict({**stopped.to_dict(), "counts": {"ok": 1, "invalid": 0}}, "run.json")
    with pytest.raises(ValueError, match=r"r\.json: telemetry: field 'cost_usd': expected a finite number >= 0"):
        ResultRecord.from_dict({"trajectory_id": "t", "parse_status": "ok", "telemetry": {"cost_usd": -1}}, "r.json")


def _parts():
    from agenthorizon.judging.runs.records import Merging, RunTotals

    return Merging(), RunTotals()


def test_shard_records_merge_into_one_run(tiny_root, dataset, tmp_path):
    out = tmp_path / "run"
    for index in (1, 2):
        run_judge(Priced({}), dataset, out, shard=f"{index}/2", progress=False)
    record = read_run_record(out)
    assert record.status == "finished" and record.counts.ok == len(dataset)
    assert record.totals.items == len(dataset) and record.totals.input_tokens.total == 7 * len(dataset)
    # A shard that has not ended (copied in as it was at its start) leaves the whole run running, its counts unknown.
    start = json.loads((out / "run-shard-2-of-2.json").read_text())
    start.update(status="running", ended_at=None, counts=None, merging=None, totals=None, interruption=None)
    (out / "run-shard-2-of-2.json").write_text(json.dumps(start))
    record = read_run_record(out)
    assert record.status == "running" and record.counts is None and record.totals is None


def test_the_report_names_a_run_that_did_not_finish(tiny_root, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(GOLDEN / "run-v2", folder)
    html = tmp_path / "report.html"
    assert main(["report", str(folder), "--data", str(tiny_root), "--out", str(html), "--bootstrap", "0",
                 "--thumbnails", "0"]) == 0
    assert "stopped (max_cost)" in html.read_text(encoding="utf-8")


# --- errors worded from the declarations (record_validation) ------------------------------------


@pytest.mark.parametrize(("change", "message"), [
    ({"trajectory_id": 7}, "r.json: field 'trajectory_id': expected a string, got int 7"),
    ({"parse_status": "maybe"}, "r.json: field 'parse_status': expected one of ok, "),
    ({"verdict": [True]}, "r.json: field 'verdict': expected an object or null, got list [True]"),
    ({"answers": [{"raw_output": "x", "parse_status": "no_json", "input_tokens": True}]},
     "r.json: field 'answers.0.input_tokens': expected a count (an integer >= 0) or null, got bool True"),
    ({"answers": [{"parse_status": "no_json"}]}, "r.json: field 'answers.0.raw_output': missing; expected a string"),
    ({"telemetry": {"latency_s": float("inf")}}, "r.json: telemetry: field 'latency_s': expected a finite number >= 0 or null, got float inf"),
    ({"telemetry": {"merged": "yes"}}, "r.json: telemetry: field 'merged': expected true or false or null, got str 'yes'"),
    ({"format_version": 5}, "r.json: field 'format_version': 5 is newer than this agenthorizon reads"),
])
def test_a_bad_result_field_is_named_with_what_its_declaration_expects(change, message):
    good = {"trajectory_id": "t", "parse_status": "ok", "telemetry": {"input_tokens": 3}}
    assert ResultRecord.from_dict(good, "r.json").telemetry.input_tokens == 3
    with pytest.raises(ValueError) as error:
        ResultRecord.from_dict({**good, **change}, "r.json")
    assert str(error.value).startswith(message)


def test_a_bad_run_record_part_is_named_by_its_path():
    stopped = RunRecord.build({"name": "lexical", "spec": "lexical"}, Selection(CONFIG_AH)).to_dict()
    with pytest.raises(ValueError, match=r"^run\.json: field 'shard': expected 1 <= index <= count, got 3 of 2$"):
        RunRecord.from_dict({**stopped, "shard": {"index": 3, "count": 2, "assignment": "hash"}}, "run.json")
    with pytest.raises(ValueError, match=r"^run\.json: field 'totals\.cost_usd\.known': expected a finite number >= 0, got int -1"):
        RunRecord.from_dict({**stopped, "totals": {"cost_usd": {"known": -1}}}, "run.json")
    with pytest.raises(ValueError, match=r"^run\.json: field 'counts': unknown count\(s\) invalid; expected ok, unparseable, error, missing, skipped$"):
        RunRecord.from_dict({**stopped, "counts": {"invalid": 1}}, "run.json")
    # a key this release does not know is kept and written back; one it derives is not kept twice
    record = RunRecord.from_dict({**stopped, "future_key": [1]}, "run.json")
    assert record.extra == {"future_key": [1]} and record.to_dict()["future_key"] == [1]


def test_run_totals_have_one_total_per_telemetry_field_marked_totalled():
    from agenthorizon.judging.runs.records import TOTALLED, RunTotals, Total

    # Written out from the Telemetry docstrings: the token counts, cost, latency, turns and tool calls are summed;
    # attempts, answers and truncated bytes are per-item facts, not run totals.
    assert set(TOTALLED) == {"input_tokens", "output_tokens", "reasoning_tokens", "cache_read_input_tokens",
                             "cache_write_input_tokens", "cost_usd", "latency_s", "turns", "tool_calls"}
    assert RunTotals.__struct_fields__ == ("items", "wall_time_s", *TOTALLED)
    items = [Telemetry(input_tokens=3, latency_s=0.5, turns=2), Telemetry(input_tokens=4, cost_usd=0.25), Telemetry()]
    totals = RunTotals.of(items, wall_time_s=None)
    for name in TOTALLED:
        values = [getattr(item, name) for item in items]
        assert getattr(totals, name) == Total(sum(v for v in values if v is not None), sum(v is None for v in values))
    twice = totals + RunTotals.of(items, wall_time_s=1.0)
    assert twice.items == 6 and twice.wall_time_s is None and twice.input_tokens == Total(14, 2)
    assert RunTotals.from_dict(json.loads(json.dumps(totals.to_dict())), "run.json") == totals
