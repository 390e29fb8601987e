"""The Inspect front end against the real Inspect and a model server on loopback (issue 23).

``inspect eval agenthorizon/agenthorizon`` runs as a user types it (the
``inspect`` command, the task found through the package's entry point,
``--model openai/judge-model`` with ``OPENAI_BASE_URL`` on 127.0.0.1 and the
log in a temporary folder); ``agenthorizon judge --judge openai:judge-model``
runs against the same deterministic server. The server answers from the text
of the request alone, so both routes get the same answer per item whenever
they send the same text, and the answers cover valid verdicts of each kind
and invalid ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval  # the test extra installs inspect-ai: no skip when it is missing
from inspect_ai.log import read_eval_log

from agenthorizon.cli import main
# In process the task is passed as an object: `python -m pytest` puts the checkout first on sys.path, where
# setuptools' agenthorizon.egg-info hides the editable install's metadata from Inspect, which then registers
# the task without its package name. The `inspect eval agenthorizon/agenthorizon` command runs in `routes`.
from agenthorizon.inspect_task.task import agenthorizon as agenthorizon_task
from agenthorizon.judging.runs.folder import read_results, read_run_record
from agenthorizon.judging.runs.inspect_log import IMAGE_KEYS
from agenthorizon.release.files import load_references
from agenthorizon.schema import HIDDEN_FIELDS, LABEL_VALUES
from loopback import ModelServer

MODEL = "judge-model"
CONFIG = "all"
MAX_IMAGES = 12  # the tiny corpus's items have 9-16 screenshots: some go per step, some as mosaics
ANSWERS = (
    '{"success": true, "confidence": "high", "reasoning": "all done"}',
    '{"success": false, "mistake_type": "Critical Mistake", "reasoning": "wrong entity"}',
    'The export is extra.\n```json\n{"success": false, "mistake_type": "Bad Side Effect", "reasoning": "x"}\n```',
    '{"success": false, "mistake_type": "Misunderstanding of the Instruction", "reasoning": "png"}',
    "I cannot tell from these screenshots.",  # no verdict: invalid, wrong, kept in its denominator
    '{"success": "true", "reasoning": "a string is not a Boolean"}',  # invalid too
)

# Every test here runs a real `inspect eval` against a loopback model server: seconds each.
pytestmark = pytest.mark.slow

ID_FIELDS = ("instruction_id", "steps_id", "pair_group_id")
METRICS = ("balanced_accuracy", "positive_accuracy", "negative_accuracy", "invalid_rate")


def request_text(body):
    """The text parts of a chat request: what decides the answer (images and request options do not)."""
    parts = []
    for message in body["messages"]:
        content = message["content"]
        parts += [content] if isinstance(content, str) else [p["text"] for p in content if p["type"] == "text"]
    return "\n".join(parts)


SALT = "0"  # picks, on the tiny corpus, every answer at least once and both right and wrong ones for positives


def answer(body):
    digest = hashlib.sha256((SALT + request_text(body)).encode()).digest()
    return ANSWERS[digest[0] % len(ANSWERS)]


def images_of(body):
    return [p["image_url"]["url"] for m in body["messages"] if not isinstance(m["content"], str)
            for p in m["content"] if p["type"] == "image_url"]


def score_json(paths, root, out):
    code = main(["score", *map(str, paths), "--data", str(root), "--format", "json", "--out", str(out)])
    return code, json.loads(Path(out).read_text())


def run_both_routes(root, base, options=(), model=f"openai/{MODEL}"):
    """``inspect eval`` of the task and ``agenthorizon judge`` with the same judge ``options`` against one server.

    ``options`` are ``(name, value)`` pairs of judge options, passed as
    ``-T name=value`` to Inspect and as ``--name value`` to the runner;
    ``model`` is Inspect's ``--model`` (``openai/...`` or ``openai-api/loopback/...``).
    """
    server = ModelServer({MODEL: answer})
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-loopback-test",
        "LOOPBACK_BASE_URL": server.base_url,
        "LOOPBACK_API_KEY": "sk-loopback-test",
        "INSPECT_LOG_DIR": str(base / "logs"),
        "INSPECT_DISPLAY": "none",
        # Anything Inspect would fetch from the internet goes to a closed port and fails the eval.
        "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost",
    }
    options = (("max_images", MAX_IMAGES), *options)
    try:
        command = [
            str(Path(sys.executable).parent / "inspect"), "eval", "agenthorizon/agenthorizon",
            "-T", f"data={root}", "-T", f"config={CONFIG}",
            *(arg for name, value in options for arg in ("-T", f"{name}={value}")),
            "--model", model, *(["-M", "responses_api=false"] if model.startswith("openai/") else []),  # see docs/inspect.md
        ]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        inspect_requests = list(server.requests)
        server.requests.clear()
        logs = sorted((base / "logs").glob("*.eval"))
        assert len(logs) == 1, logs
        run = base / "runner"
        code = main([
            "judge", "--data", str(root), "--config", CONFIG, "--judge", f"openai:{MODEL}",
            "--base-url", server.base_url, "--out", str(run), "--bootstrap", "0", "--no-progress",
            *(arg for name, value in options
              for arg in ((f"--{name.replace('_', '-')}",) if value is True else (f"--{name.replace('_', '-')}", str(value)))),
        ])
        assert code == 0
        # The runner's preflight (judges/server_check.py) asks the model one short question first.
        runner_requests = [body for body in server.requests if request_text(body) != "ping"]
    finally:
        server.close()
    return {"log": logs[0], "run": run, "root": root, "base": base, "references": load_references(root, CONFIG),
            "inspect_requests": inspect_requests, "runner_requests": runner_requests}


@pytest.fixture(scope="module")
def routes(tiny_root, tmp_path_factory):
    """One Inspect log and one runner run of the same judge settings against the same server."""
    return run_both_routes(tiny_root, tmp_path_factory.mktemp("inspect"))


SYSTEM_PROMPT = "You judge whether a computer-use agent did what it was asked.\n"
IMAGE_TOKEN_BUDGET = 6000  # below 12 full-size screenshots: items get smaller ones, the longer the smaller


@pytest.fixture(scope="module")
def interleaved(tiny_root, tmp_path_factory):
    """Both routes with the interleaved layout, a system prompt and an image token budget."""
    base = tmp_path_factory.mktemp("inspect-interleaved")
    system = base / "system.txt"
    system.write_text(SYSTEM_PROMPT, encoding="utf-8")
    options = (("layout", "interleaved"), ("system_prompt", system), ("image_token_budget", IMAGE_TOKEN_BUDGET))
    # openai-api/ (docs/inspect.md's advice for vLLM): Inspect's openai/ provider would take the model name
    # for one of OpenAI's reasoning models and send the system prompt with the role "developer".
    return {**run_both_routes(tiny_root, base, options, f"openai-api/loopback/{MODEL}"), "system": system}


@pytest.fixture(scope="module")
def paper(tiny_root, tmp_path_factory):
    """Both routes with the paper layout, step times and a budget over the whole input."""
    base = tmp_path_factory.mktemp("inspect-paper")
    system = base / "system.txt"
    system.write_text(SYSTEM_PROMPT, encoding="utf-8")
    template = base / "steps.txt"
    template.write_text("{{MARKDOWN}}", encoding="utf-8")
    options = (("layout", "paper"), ("timestamps", True), ("budget_covers", "input"), ("prompt", template),
               ("system_prompt", system), ("image_token_budget", IMAGE_TOKEN_BUDGET), ("images", "per-step"))
    return run_both_routes(tiny_root, base, options, f"openai-api/loopback/{MODEL}")


def parts_of(body):
    """Each message of a request as its role and its parts in order: ("text", text) or ("image", data URL)."""
    out = []
    for message in body["messages"]:
        content = message["content"]
        parts = [("text", content)] if isinstance(content, str) else [
            ("text", p["text"]) if p["type"] == "text" else ("image", p["image_url"]["url"]) for p in content]
        out.append((message["role"], parts))
    return out


def test_the_answers_cover_every_verdict_kind_and_invalid_ones(routes):
    # Otherwise the comparison below could not tell a lenient scorer from a strict one.
    results = read_results([routes["log"]]).records
    assert len(results) == len(routes["references"]) == len(routes["inspect_requests"])
    statuses = {result.parse_status for result in results.values()}
    assert {"ok", "no_json", "non_boolean"} <= statuses, statuses
    assert {result.verdict["success"] for result in results.values() if result.verdict} == {True, False}


def test_requests_from_inspect_hold_no_hidden_field(routes):
    hidden_ids = {row[name] for row in routes["references"] for name in ID_FIELDS if row[name]}
    assert hidden_ids
    for body in routes["inspect_requests"]:
        text = json.dumps(body)
        for value in hidden_ids:
            assert value not in text, f"hidden id {value} reached the model"
        prompt = request_text(body).lower()
        for word in LABEL_VALUES:  # "positive" / "negative": not in the prompt or any recording of the corpus
            assert word not in prompt
        assert set(body) <= {"model", "messages", "max_completion_tokens"}, set(body)
        for message in body["messages"]:
            assert set(message) <= {"role", "content"} and message["role"] == "user"


def test_samples_are_the_runners_blind_inputs_with_the_same_preprocessing(routes):
    """Same text and byte-identical images (512x332 per step, 2x2 mosaics past the limit) per item on both routes."""
    def by_text(requests):
        return {request_text(body): images_of(body) for body in requests}

    from_inspect, from_runner = by_text(routes["inspect_requests"]), by_text(routes["runner_requests"])
    assert from_inspect == from_runner
    log = read_eval_log(str(routes["log"]))
    merged = [sample.metadata["merged"] for sample in log.samples]
    assert True in merged and False in merged  # both kinds of item were compared
    for sample in log.samples:
        assert set(sample.metadata) == set(IMAGE_KEYS)  # nothing else, no hidden field
        assert not set(HIDDEN_FIELDS) & set(sample.metadata)
        assert list(sample.target) == [
            next(row["label"] for row in routes["references"] if row["trajectory_id"] == sample.id),
            next(row["mistake_type"] for row in routes["references"] if row["trajectory_id"] == sample.id),
        ]
    runner = {r.trajectory_id: r for r in read_results([routes["run"]]).records.values()}
    for sample in log.samples:
        telemetry = runner[sample.id].telemetry
        assert sample.metadata["merged"] == telemetry.merged
        assert sample.metadata["n_images"] == telemetry.extra["n_images"]


def test_inspect_metrics_agree_with_agenthorizon_score_of_the_log_and_of_the_runner_run(routes):
    log = read_eval_log(str(routes["log"]), header_only=True)
    assert log.status == "success"
    (scores,) = log.results.scores
    inspect_metrics = {name: metric.value for name, metric in scores.metrics.items()}
    code_log, of_log = score_json([routes["log"]], routes["root"], routes["base"] / "log.json")
    code_run, of_run = score_json([routes["run"]], routes["root"], routes["base"] / "run.json")
    assert code_log == code_run == 0
    for name in METRICS:
        assert inspect_metrics[name] == of_log[name] == of_run[name], name
    assert of_log["n_invalid"] == of_run["n_invalid"] > 0
    for mistake_type, recall in of_run["mistake_type_recall"].items():
        assert of_log["mistake_type_recall"][mistake_type] == recall
        if recall["recall"] is not None:
            assert inspect_metrics[f"{mistake_type} recall"] == recall["recall"]
    from agenthorizon.scoring.metric_list import METRICS as DECLARED

    for spec in DECLARED:  # the declared rates reach Inspect by name, equal to the score JSON's
        if spec.inspect and of_run[spec.name] is not None:
            assert inspect_metrics[spec.name] == of_log[spec.name] == of_run[spec.name], spec.name
    assert of_log["manifest"] == of_run["manifest"]
    # Item by item, not only in total.
    from_log = read_results([routes["log"]]).predictions()
    from_run = read_results([routes["run"]]).predictions()
    assert from_log == from_run


def test_the_log_reads_as_a_run_record_with_inspects_judge_identity(routes):
    record, runner_record = read_run_record(routes["log"]), read_run_record(routes["run"])
    assert record.spec == f"inspect:openai/{MODEL}" and record.model == f"openai/{MODEL}"
    assert record.status == "finished"
    assert record.selection == runner_record.selection
    # What was sent: Inspect's openai/ provider takes an unknown model name for one of OpenAI's
    # reasoning models, sends no temperature and names the token limit its own way.
    assert record.sampling == {"max_completion_tokens": 2048}
    assert runner_record.sampling == {"max_tokens": 2048, "temperature": 0.0}
    assert record.images == runner_record.images and record.prompt == runner_record.prompt
    assert record.counts == runner_record.counts
    assert record.judge_key != runner_record.judge_key  # another client sent the messages
    assert record.totals.input_tokens.total == runner_record.totals.input_tokens.total
    assert record.versions["inspect_ai"]


def test_leaderboard_report_and_plot_take_the_log_beside_a_run(routes, capsys):
    assert main(["leaderboard", str(routes["log"]), str(routes["run"]), "--data", str(routes["root"]),
                 "--format", "json"]) == 0
    judges = json.loads(capsys.readouterr().out)["judges"]
    assert sorted(row["judge"] for row in judges) == [MODEL, f"openai/{MODEL}"]  # the runner's, then Inspect's model name
    for config in ("AH", "AH-S"):
        (value,) = {row["reports"][config]["balanced_accuracy"] for row in judges}  # equal for both
    assert judges[0]["mistake_type_recall"] == judges[1]["mistake_type_recall"]
    html = routes["base"] / "report.html"
    assert main(["report", str(routes["log"]), str(routes["run"]), "--data", str(routes["root"]),
                 "--out", str(html)]) == 0
    assert f"openai/{MODEL}" in html.read_text()
    plots = routes["base"] / "plots"
    assert main(["plot", str(routes["log"]), str(routes["run"]), "--data", str(routes["root"]), "--out", str(plots),
                 "--format", "svg"]) == 0
    assert f"openai/{MODEL}" in (plots / "judge_comparison.svg").read_text()


def test_a_log_of_another_task_is_refused_naming_the_file(tmp_path, tiny_root, monkeypatch):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample

    server = ModelServer({MODEL: lambda body: "hello"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    try:
        (log,) = inspect_eval(
            Task(dataset=[Sample(input="hi", target="x")]), model=f"openai/{MODEL}",
            model_base_url=server.base_url, model_args={"responses_api": False},
            log_dir=str(tmp_path), display="none",
        )
    finally:
        server.close()
    with pytest.raises(ValueError, match=r"\.eval: an Inspect log of task .* without the task metadata"):
        read_run_record(log.location)
    assert main(["score", log.location, "--data", str(tiny_root)]) == 2


def test_the_openai_api_provider_sends_the_runners_sampling(tiny_root, tmp_path, monkeypatch, capsys):
    """``openai-api/<service>/<model>`` (docs/inspect.md's advice for vLLM) sends temperature 0 and 2048 tokens, as the runner."""
    server = ModelServer({MODEL: answer})
    monkeypatch.setenv("LOOPBACK_BASE_URL", server.base_url)
    monkeypatch.setenv("LOOPBACK_API_KEY", "sk-loopback-test")
    try:
        (log,) = inspect_eval(
            agenthorizon_task(data=str(tiny_root), config="AH", limit=2, prompt="release"),
            model=f"openai-api/loopback/{MODEL}", log_dir=str(tmp_path), display="none",
        )
    finally:
        server.close()
    assert log.status == "success" and len(server.requests) == 2
    for body in server.requests:
        assert {key: value for key, value in body.items() if key not in ("model", "messages")} == {
            "max_tokens": 2048, "temperature": 0.0}
    record = read_run_record(log.location)
    assert record.sampling == {"max_tokens": 2048, "temperature": 0.0}
    assert record.prompt["source"] == "release"  # the release's own texts, read from the release judged
    assert record.data["n_selected"] == 2 and record.counts.ok + record.counts.unparseable == 2
    # The limit's items are the Inspect metrics' items; `score` scores the whole config, the rest missing.
    _, of_log = score_json([log.location], tiny_root, tmp_path / "score.json")
    assert of_log["n"] == 8 and of_log["invalid_by_reason"]["missing"] == 6
    # The advice names the command that made the log, not an `agenthorizon judge` that never ran.
    assert main(["score", log.location, "--data", str(tiny_root)]) == 1  # partial: EXIT_INCOMPLETE
    printed = capsys.readouterr()
    advice = next(line for line in printed.out.splitlines() if line.startswith("To complete it"))
    assert "inspect eval agenthorizon/agenthorizon" in advice and "without -T limit" in advice
    assert "--limit" not in advice.replace("-T limit", "")
    assert "inspect eval agenthorizon/agenthorizon" in printed.err  # the exit-1 line names it too
    assert "agenthorizon judge" not in printed.out + printed.err
    # The leaderboard marks it partial and leaves it out of the ranks.
    assert main(["leaderboard", log.location, "--data", str(tiny_root), "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["judges"]
    assert row["partial"] == "PARTIAL: 2 of 8 items judged" and row["rank"] is None


def test_an_item_inspect_gave_up_on_is_wrong_in_the_inspect_metrics_and_in_score(tiny_root, tmp_path, monkeypatch):
    """With Inspect's error tolerance an errored sample gets no score; the metrics still count it, as ``score`` does."""
    from loopback import StubServer

    refused = (400, {}, StubServer.vllm_error("The model `x` cannot read this request."), 0)
    server = StubServer(script=[refused])  # the first request fails for good, every other one is answered
    monkeypatch.setenv("LOOPBACK_BASE_URL", server.base_url)
    monkeypatch.setenv("LOOPBACK_API_KEY", "sk-loopback-test")
    try:
        (log,) = inspect_eval(
            agenthorizon_task(data=str(tiny_root), config="AH"),
            model=f"openai-api/loopback/{MODEL}", log_dir=str(tmp_path), display="none", fail_on_error=0.5,
            max_connections=1,
        )
    finally:
        server.close()
    assert log.status == "success"
    errored = [sample.id for sample in log.samples if sample.error is not None]
    assert len(errored) == 1
    inspect_metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    code, of_log = score_json([log.location], tiny_root, tmp_path / "score.json")
    assert code == 1  # an item failed: `score` says so
    assert of_log["invalid_by_reason"]["error"] == 1 and of_log["n"] == 8
    for name in METRICS:
        assert inspect_metrics[name] == of_log[name], name
    assert inspect_metrics["invalid_rate"] == 1 / 8  # the errored item is in the denominator


def test_layout_is_the_judges_and_an_unknown_one_is_refused():
    from agenthorizon.inspect_task.task import message_builder

    assert message_builder(layout="markdown").spec()["images"]["mode"] == "auto"
    with pytest.raises(ValueError, match="no-such-layout"):
        message_builder(layout="no-such-layout")
    with pytest.raises(ValueError, match="no-such-system.txt'.*no such file"):
        message_builder(system_prompt="no-such-system.txt")


def test_images_none_withholds_the_screenshots_from_the_sample_as_a_run_does(tiny_root, tmp_path):
    # images=none is the screenshots ablation: the sample's text has no image line, as the runner's input has none.
    from agenthorizon.data.load import load_dataset
    from agenthorizon.inspect_task.samples import item_sample
    from agenthorizon.inspect_task.task import message_builder
    from agenthorizon.judging.inputs import build_judge_input

    dataset = load_dataset(tiny_root, "AH", split="test", cache_dir=tmp_path / "cache")
    row, reference = dataset[0], load_references(tiny_root, "AH")[0]
    builder = message_builder(images="none")
    text = json.dumps([message.model_dump() for message in item_sample(row, reference, builder).input])
    assert "screenshot](" not in text
    assert "screenshot](" in build_judge_input(row).markdown  # the control: the release Markdown has them


def test_a_log_of_several_epochs_is_refused(tiny_root, tmp_path):
    from inspect_ai.model import ModelOutput, ModelUsage

    def accept(*_):
        output = ModelOutput.from_content(model="mockllm/model", content='{"success": true}')
        output.usage = ModelUsage()  # unset, the mock model would estimate tokens with a downloaded encoding
        return output

    (log,) = inspect_eval(agenthorizon_task(data=str(tiny_root), config="AH", limit=1, images="none"),
                          model="mockllm/model", model_args={"custom_outputs": accept}, epochs=2,
                          log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    with pytest.raises(ValueError, match=r"\.eval: an Inspect log of 2 epochs; expected one answer per item"):
        read_run_record(log.location)


def test_samples_inspect_leaves_out_count_as_missing_in_its_metrics(tiny_root, tmp_path):
    """Inspect's own --limit runs 3 of the task's 8 items: the other 5 stay in every denominator, wrong."""
    from inspect_ai.model import ModelOutput, ModelUsage

    def accept(*_):
        output = ModelOutput.from_content(model="mockllm/model", content='{"success": true}')
        output.usage = ModelUsage()
        return output

    (log,) = inspect_eval(agenthorizon_task(data=str(tiny_root), config="AH", images="none"), limit=3,
                          model="mockllm/model", model_args={"custom_outputs": accept},
                          log_dir=str(tmp_path), display="none")
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    assert len(log.samples) == 3 and metrics["invalid_rate"] == 5 / 8
    _, of_log = score_json([log.location], tiny_root, tmp_path / "score.json")
    assert of_log["invalid_by_reason"]["missing"] == 5
    for name in METRICS:
        assert metrics[name] == of_log[name], name


def test_interleaved_requests_from_inspect_are_the_runners_part_by_part(interleaved):
    """-T layout=interleaved goes through the judge's own builder: the same messages, parts and order as --layout."""
    from_inspect = sorted(parts_of(body) for body in interleaved["inspect_requests"])
    from_runner = sorted(parts_of(body) for body in interleaved["runner_requests"])
    assert len(from_inspect) == len(interleaved["references"])
    assert from_inspect == from_runner
    # Beyond the parts, the whole requests, the same sampling included; Inspect only names OpenAI's
    # default image detail ("auto"), which the runner leaves implicit.
    def whole(requests):
        text = (json.dumps(body, sort_keys=True) for body in requests)
        return sorted(body.replace(', "detail": "auto"}', "}").replace('{"detail": "auto", ', "{") for body in text)

    assert whole(interleaved["inspect_requests"]) == whole(interleaved["runner_requests"])
    for messages in from_inspect:
        assert [role for role, _ in messages] == ["system", "user"]
        assert messages[0][1] == [("text", SYSTEM_PROMPT)]
        kinds = [kind for kind, _ in messages[1][1]]
        # Interleaved: an action line after the first screenshot, not every image after all of the text.
        assert "image" in kinds and "text" in kinds[kinds.index("image"):], kinds
    sizes = {tuple(r.telemetry.extra["image_size"]) for r in read_results([interleaved["log"]]).records.values()}
    assert len(sizes) > 1  # the token budget chose different sizes for items of different lengths


def test_interleaved_log_scores_as_the_runner_run_and_the_inspect_metrics(interleaved):
    log = read_eval_log(str(interleaved["log"]), header_only=True)
    inspect_metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    code_log, of_log = score_json([interleaved["log"]], interleaved["root"], interleaved["base"] / "log.json")
    code_run, of_run = score_json([interleaved["run"]], interleaved["root"], interleaved["base"] / "run.json")
    assert code_log == code_run == 0
    for name in METRICS:
        assert inspect_metrics[name] == of_log[name] == of_run[name], name
    assert of_log["mistake_type_recall"] == of_run["mistake_type_recall"]
    assert read_results([interleaved["log"]]).predictions() == read_results([interleaved["run"]]).predictions()
    log_results = read_results([interleaved["log"]]).records
    for tid, result in read_results([interleaved["run"]]).records.items():
        assert log_results[tid].telemetry.extra["image_size"] == result.telemetry.extra["image_size"], tid


def test_the_layout_and_system_prompt_are_in_the_log_judge_key_as_in_the_runners(interleaved, routes):
    record, runner_record = read_run_record(interleaved["log"]), read_run_record(interleaved["run"])
    sha = hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest()
    assert record.judge["layout"] == runner_record.judge["layout"] == "interleaved"
    assert record.judge["system_prompt"]["sha256"] == runner_record.judge["system_prompt"]["sha256"] == sha
    # The same fields, counted the same way: under "protocol", not folded into the image settings.
    assert record.settings()["protocol"] == runner_record.settings()["protocol"] == {
        "layout": "interleaved", "system_prompt_sha256": sha}
    assert record.images == runner_record.images and record.images["token_budget"] == IMAGE_TOKEN_BUDGET
    markdown = read_run_record(routes["log"])
    assert "protocol" not in markdown.settings() and "layout" not in markdown.images
    assert record.judge_key != markdown.judge_key


def test_paper_layout_requests_from_inspect_are_the_runners_part_by_part(paper):
    """-T layout=paper -T timestamps=true -T budget_covers=input: the runner's requests, whole."""
    def whole(requests):
        text = (json.dumps(body, sort_keys=True) for body in requests)
        return sorted(body.replace(', "detail": "auto"}', "}").replace('{"detail": "auto", ', "{") for body in text)

    assert len(paper["inspect_requests"]) == len(paper["references"])
    assert whole(paper["inspect_requests"]) == whole(paper["runner_requests"])
    for body in paper["inspect_requests"]:
        user = body["messages"][1]["content"]
        assert user[0]["text"].startswith("## Goal\n\n") and user[1]["text"].startswith("### Step 0\n\n")
    record, runner_record = read_run_record(paper["log"]), read_run_record(paper["run"])
    assert record.images == runner_record.images and record.images["budget_covers"] == "input"
    assert record.settings()["protocol"] == runner_record.settings()["protocol"]
    assert record.settings()["protocol"]["timestamps"] is True

def _inflated_copy(log: Path, out: Path, mib: int) -> str:
    """``log`` with its first sample padded (a JSON field of ``mib`` MiB) so that it inflates past the bound."""
    import zipfile

    with zipfile.ZipFile(log) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as copy:
        sample = next(info.filename for info in source.infolist() if info.filename.startswith("samples/"))
        for info in source.infolist():
            if info.filename != sample:
                copy.writestr(info, source.read(info))
        text = source.read(sample)
        with copy.open(sample, "w", force_zip64=True) as member:
            member.write(b'{"zz_padding": "')
            piece = b"a" * 2**20
            for _ in range(mib):
                member.write(piece)
            member.write(b'", ' + text[1:])
    return sample


def test_a_log_whose_sample_inflates_past_the_bound_is_refused_naming_the_log_and_the_sample(routes, tmp_path):
    """Before the bound, such a log kept ``score`` busy for minutes with nothing printed (600 MB: past 10 minutes)."""
    from peak_memory import baseline_peak, run_measured

    bomb = tmp_path / "bomb.eval"
    sample = _inflated_copy(routes["log"], bomb, 300)
    assert bomb.stat().st_size < 2 * 2**20  # a small file on disk
    program = """
import contextlib, io, sys
from agenthorizon.cli import main
error = io.StringIO()
with contextlib.redirect_stderr(error):
    code = main(["score", sys.argv[1], "--data", sys.argv[2]])
_report([code, error.getvalue()])
"""
    (code, error), peak = run_measured(program, str(bomb), str(routes["root"]), timeout=180)
    grown = peak - baseline_peak("from agenthorizon.cli import main")
    assert code == 2, error
    assert f"{bomb}: member {sample!r} inflates to 300." in error  # 300 MiB and the sample's own bytes
    assert "MiB; expected at most 256 MiB per member of an Inspect log" in error
    assert grown < 128 * 2**20, f"score grew by {grown // 2**20} MiB before refusing the log"
