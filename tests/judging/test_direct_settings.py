"""Each direct-judge setting is declared once; its flag, Inspect parameter and run.json key come from that declaration."""

from __future__ import annotations

import argparse
import inspect as pyinspect
import json

import pytest

from agenthorizon.cli import judge as judge_cli
from agenthorizon.judging.judges import make_judge
from agenthorizon.judging.judges.direct_settings import (
    DIRECT_SETTINGS,
    direct_knobs,
    group_options,
    option_names,
    settings_from_record,
)
from agenthorizon.judging.judges.knobs import CLI_MODEL, knobs, record_value
from agenthorizon.judging.judges.openai_compat import OpenAICompatibleJudge

# A value other than the default for every setting a flag sets, as typed on the command line.
FLAG_VALUES = {
    "--temperature": "0.5", "--max-tokens": "300", "--structured-output": None, "--extra-body": '{"seed": 3}',
    "--images": "mosaic", "--image-budget": "6", "--max-images": "12", "--jpeg-quality": "70",
    "--image-token-budget": "9000", "--budget-covers": "input", "--base-url": "http://127.0.0.1:9/v1",
    "--api-key-env": "AH_SETTINGS_KEY", "--price-in": "1.5", "--price-out": "6", "--layout": "paper",
    "--timestamps": None, "--system-prompt": "SYSTEM",
    "--retries": "1", "--timeout": "30", "--max-output-bytes": "4096", "--prompt": "TEMPLATE",
}
# Settings a run record leaves out on purpose: they change no answer.
NOT_RECORDED = {"backoff_base", "backoff_max", "cache_dir", "price_input_per_1m", "price_output_per_1m"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    judge_cli.add_arguments(parser)
    return parser


def _argv(tmp_path) -> list[str]:
    system = tmp_path / "system.txt"
    system.write_text("Be strict.", encoding="utf-8")
    template = tmp_path / "prompt.md"
    template.write_text("Judge {{TRAJECTORY_ID}}:\n{{MARKDOWN}}", encoding="utf-8")
    argv = ["--data", "d", "--judge", "openai:m", "--out", str(tmp_path / "run")]
    for flag, value in FLAG_VALUES.items():
        value = {"SYSTEM": str(system), "TEMPLATE": str(template)}.get(value, value)
        argv += [flag] if value is None else [flag, value]
    return argv


def test_every_setting_has_one_declaration_with_a_flag_a_record_key_or_a_reason():
    declared = direct_knobs()
    assert len({item.option for item in declared}) == len(declared)  # one name per setting
    flags = {item.flag for item in declared if item.flag is not None}
    assert flags == set(FLAG_VALUES)  # the table above covers every flag, and only those
    unrecorded = {item.option for item in declared if item.record is None}
    assert unrecorded == NOT_RECORDED
    # The model group's flags are made from the declarations: same help, choices and type as declared.
    actions = {action.option_strings[0]: action for action in _parser()._actions if action.option_strings}
    for item in declared:
        if item.flag is not None and item.cli == CLI_MODEL:
            action = actions[item.flag]
            assert (action.dest, action.help, action.choices) == (item.dest, item.help, item.choices)
            assert action.default is None  # unset on the command line: the judge's own default applies


def test_flag_value_to_settings_to_run_record_and_back(tmp_path):
    args = _parser().parse_args(_argv(tmp_path))
    options = {**judge_cli.judge_options(args), **judge_cli.enforced_options(args)}
    assert set(options) == option_names() - NOT_RECORDED - {"image_size", "image_strategy"} | {
        "price_input_per_1m", "price_output_per_1m"}
    judge = make_judge(args.judge, **options)
    record = json.loads(json.dumps(judge.spec()))  # as run.json holds it
    for item in direct_knobs():
        if item.record is None:
            continue
        stored = record_value(record, item)
        if item.option in options:  # the flag's value reached the record under the declared key
            assert stored is not item.default and stored != item.default, item.option
    # Settings read back from the record make the same judge: the same record, byte for byte.
    again = OpenAICompatibleJudge("m", **settings_from_record(record))
    assert json.dumps(again.spec(), sort_keys=True) == json.dumps(record, sort_keys=True)
    # And every value a flag gave comes back from the record as it was given.
    groups = settings_from_record(record)
    owner = {item.option: (name, item.field) for name, cls in DIRECT_SETTINGS.items() for item in knobs(cls)}
    for option, value in options.items():
        if option not in NOT_RECORDED:
            name, field = owner[option]
            assert getattr(groups[name], field) == value, option


def test_default_settings_round_trip_through_the_record():
    judge = OpenAICompatibleJudge("m")
    assert OpenAICompatibleJudge("m", **settings_from_record(judge.spec())).spec() == judge.spec()


def test_inspect_parameters_are_the_declared_ones_with_their_defaults():
    pytest.importorskip("inspect_ai")
    from agenthorizon.inspect_task.task import agenthorizon, inspect_parameters

    parameters = pyinspect.signature(agenthorizon).parameters
    for name, default in inspect_parameters().items():
        assert parameters[name].default == default, name


def test_message_builder_takes_the_declared_inspect_parameters_and_refuses_others():
    task = pytest.importorskip("agenthorizon.inspect_task.task", exc_type=ImportError)
    assert set(task.inspect_parameters()) == {item.dest for item in direct_knobs() if item.inspect}
    with pytest.raises(ValueError, match="unknown parameter.*no_such_knob.*jpeg_quality"):
        task.message_builder(no_such_knob=1)


def test_an_unknown_option_is_refused_naming_it():
    with pytest.raises(TypeError, match="unknown option.*tempreature"):
        group_options({"tempreature": 0.5})
    with pytest.raises(TypeError):
        OpenAICompatibleJudge("m", temperature=0.5)  # flat names go through from_options
