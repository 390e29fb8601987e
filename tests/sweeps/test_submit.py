"""``sweep submit``: the sbatch scripts (dry run), a missing sbatch, and the Kubernetes Indexed Job manifest."""

from __future__ import annotations

import json
import re

from agenthorizon.cli import main
from sweep_files import command_judge_table, write_sweep

JUDGES = ('[[judge]]\nspec = "lexical"\n'
          '[[judge]]\nspec = "openai:m"\nname = "gpu-judge"\nserver = "vllm serve m --port {port}"\n'
          'options = { base-url = "http://127.0.0.1:{port}/v1" }\n'
          'resources = { cpus = 8, mem = "64G", time = "04:00:00", partition = "gpu", gpus = 1 }\n')
RESOURCES = '[resources]\ncpus = 2\nmem = "4G"\n'


def _scripts(text: str) -> dict[str, str]:
    parts = re.split(r"^# --- judge \d+ \(([^)]+)\): \d+ cells\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_dry_run_prints_one_array_script_per_judge_with_its_resources(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=JUDGES, extra="throttle = 3\n" + RESOURCES)
    assert main(["sweep", "submit", str(path), "--dry-run"]) == 0
    scripts = _scripts(capsys.readouterr().out)
    assert list(scripts) == ["lexical", "gpu-judge"]
    lexical, gpu = scripts["lexical"], scripts["gpu-judge"]
    assert "#SBATCH --array=0-3%3" in lexical and "#SBATCH --array=0-3%3" in gpu
    assert "#SBATCH --cpus-per-task=2" in lexical and "#SBATCH --mem=4G" in lexical and "--gres" not in lexical
    for line in ("--cpus-per-task=8", "--mem=64G", "--time=04:00:00", "--partition=gpu", "--gres=gpu:1"):
        assert f"#SBATCH {line}" in gpu
    assert re.search(r"^exec .* -m agenthorizon sweep run \S+sweep\.toml --judge 1$", gpu, re.M)
    assert f"#SBATCH --output={tmp_path / 'runs' / 'gpu-judge' / 'slurm'}/%A_%a.out" in gpu
    assert not (tmp_path / "runs").exists()  # a dry run writes nothing


def test_only_unfinished_dry_run_lists_exactly_the_cells_not_done(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n' + command_judge_table())
    for cell in (0, 1, 3, 4, 7):
        assert main(["sweep", "run", str(path), "--cell", str(cell)]) == 0
    capsys.readouterr()
    assert main(["sweep", "submit", str(path), "--dry-run", "--only-unfinished"]) == 0
    scripts = _scripts(capsys.readouterr().out)
    assert "#SBATCH --array=2\n" in scripts["lexical"] and "#SBATCH --array=1-2\n" in scripts["cmd"]


def test_submit_without_sbatch_says_how_to_get_it(tiny_root, tmp_path, capsys, monkeypatch):
    path = write_sweep(tmp_path, tiny_root, judges='[[judge]]\nspec = "lexical"\n')
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert main(["sweep", "submit", str(path)]) == 2
    err = capsys.readouterr().err
    assert "sbatch not found on PATH" in err and "apt-get install slurm-client" in err and "--cell K" in err
    assert not (tmp_path / "runs" / "sweep-state.json").exists()


# --- the Kubernetes Job schema --------------------------------------------------------------
# From the Kubernetes API reference, batch/v1 Job: the fields a manifest may have (a strict
# decoder refuses others), their types, and which are required. Only the parts the sweep writes
# are spelled out; a field outside them fails the check.

def _string_map(value):
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


_INT, _STR = ("int", int), ("str", str)
_RESOURCES = {"limits": ("map", _string_map), "requests": ("map", _string_map), "claims": ("list", list)}
_CONTAINER = {"name": _STR, "image": _STR, "command": ("list", list), "args": ("list", list), "env": ("list", list),
              "workingDir": _STR, "resources": ("obj", _RESOURCES), "volumeMounts": ("list", list),
              "imagePullPolicy": _STR}
_POD_SPEC = {"containers": ("objs", _CONTAINER), "restartPolicy": _STR, "volumes": ("list", list),
             "nodeSelector": ("map", _string_map), "serviceAccountName": _STR, "tolerations": ("list", list)}
_JOB_SPEC = {"template": ("obj", {"metadata": ("obj", None), "spec": ("obj", _POD_SPEC)}), "completions": _INT,
             "parallelism": _INT, "completionMode": _STR, "backoffLimit": _INT, "backoffLimitPerIndex": _INT,
             "activeDeadlineSeconds": _INT, "ttlSecondsAfterFinished": _INT, "suspend": ("bool", bool)}
_META = {"name": _STR, "namespace": _STR, "labels": ("map", _string_map), "annotations": ("map", _string_map),
         "generateName": _STR}
_JOB = {"apiVersion": _STR, "kind": _STR, "metadata": ("obj", _META), "spec": ("obj", _JOB_SPEC)}
_REQUIRED = {"": ("apiVersion", "kind", "metadata", "spec"), "spec": ("template",), "spec.template": ("spec",),
             "spec.template.spec": ("containers",), "spec.template.spec.containers[]": ("name",)}
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def _check(value, schema, where: str, problems: list[str]) -> None:
    for name in _REQUIRED.get(where, ()):
        if name not in value:
            problems.append(f"{where or 'Job'}: required field {name!r} missing")
    for name, field in value.items():
        path = f"{where}.{name}".lstrip(".")
        if schema is None:
            continue
        if name not in schema:
            problems.append(f"{path}: not a field of the Job API")
            continue
        kind, rule = schema[name]
        if kind == "obj":
            if not isinstance(field, dict):
                problems.append(f"{path}: expected an object")
            else:
                _check(field, rule, path, problems)
        elif kind == "objs":
            if not isinstance(field, list) or not field:
                problems.append(f"{path}: expected a non-empty list")
            else:
                for item in field:
                    _check(item, rule, path + "[]", problems)
        elif kind == "map":
            if not rule(field):
                problems.append(f"{path}: expected a map of strings")
        elif not isinstance(field, rule) or (rule is int and isinstance(field, bool)):
            problems.append(f"{path}: expected {kind}, got {field!r}")


def job_problems(job: dict) -> list[str]:
    """What a batch/v1 Indexed Job manifest breaks of the API's rules (empty: valid)."""
    problems: list[str] = []
    _check(job, _JOB, "", problems)
    if problems:
        return problems
    spec = job["spec"]
    if (job["apiVersion"], job["kind"]) != ("batch/v1", "Job"):
        problems.append("apiVersion/kind: expected batch/v1 Job")
    if not _DNS_LABEL.match(job["metadata"].get("name", "")) or len(job["metadata"]["name"]) > 63:
        problems.append("metadata.name: an Indexed Job's name must be a DNS label of at most 63 characters")
    if spec.get("completionMode") not in ("NonIndexed", "Indexed"):
        problems.append("spec.completionMode: expected NonIndexed or Indexed")
    if spec.get("completionMode") == "Indexed" and not isinstance(spec.get("completions"), int):
        problems.append("spec.completions: required for an Indexed Job")
    for name in ("completions", "parallelism"):
        if spec.get(name, 0) < 0:
            problems.append(f"spec.{name}: must be >= 0")
    if spec["template"]["spec"].get("restartPolicy") not in ("Never", "OnFailure"):
        problems.append("spec.template.spec.restartPolicy: a Job's must be Never or OnFailure")
    for container in spec["template"]["spec"]["containers"]:
        if not _DNS_LABEL.match(container["name"]):
            problems.append(f"container name {container['name']!r}: expected a DNS label")
        if not all(isinstance(word, str) for word in container.get("command", [])):
            problems.append("container command: expected strings")
    return problems


def test_the_job_check_refuses_what_the_api_refuses():
    valid = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"},
             "spec": {"completionMode": "Indexed", "completions": 2,
                      "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}
    assert job_problems(valid) == []
    broken = json.loads(json.dumps(valid))
    del broken["spec"]["completions"]
    broken["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    broken["spec"]["completion_mode"] = "Indexed"
    assert len(job_problems(broken)) == 1  # the unknown field is reported first
    del broken["spec"]["completion_mode"]
    assert {p.split(":")[0] for p in job_problems(broken)} == {"spec.completions", "spec.template.spec.restartPolicy"}


def test_kubernetes_dry_run_is_a_valid_indexed_job_with_one_completion_per_cell(tiny_root, tmp_path, capsys):
    path = write_sweep(tmp_path, tiny_root, judges=JUDGES, extra="throttle = 3\n" + RESOURCES +
                       '[kubernetes]\nimage = "registry.example/agenthorizon:1"\nnamespace = "eval"\n')
    assert main(["sweep", "submit", str(path), "--scheduler", "kubernetes", "--dry-run"]) == 0
    job = json.loads(capsys.readouterr().out)
    assert job_problems(job) == []
    spec = job["spec"]
    assert (spec["completionMode"], spec["completions"], spec["parallelism"]) == ("Indexed", 8, 3)
    container = spec["template"]["spec"]["containers"][0]
    assert container["image"] == "registry.example/agenthorizon:1" and job["metadata"]["namespace"] == "eval"
    assert container["command"][-3:] == ["sweep", "run", str(path)]  # JOB_COMPLETION_INDEX picks the cell
    assert container["resources"] == {"requests": {"cpu": "8", "memory": "65536Mi"}, "limits": {"nvidia.com/gpu": "1"}}
    assert main(["sweep", "submit", str(path), "--scheduler", "kubernetes"]) == 2
    assert "kubectl apply" in capsys.readouterr().err
