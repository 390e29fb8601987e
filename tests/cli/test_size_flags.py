"""Every size flag reads one rule: ``MB`` = 10^6, ``MiB`` = ``M`` = 2^20 (``agenthorizon.util.sizes``)."""

from __future__ import annotations

import pytest

from agenthorizon.cli import build_parser, main


_REQUIRED = ("--judge", "random", "--data", "root", "--out", "out")


def _parsed(command: str, *argv: str):
    return build_parser(command).parse_args([command, *argv])


@pytest.mark.parametrize(
    ("text", "expected"),
    [("500MB", 500 * 10**6), ("500MiB", 500 * 2**20), ("500M", 500 * 2**20), ("1G", 2**30), ("1GB", 10**9), ("4096", 4096)],
)
def test_judge_and_export_size_flags_agree_on_every_unit(text: str, expected: int) -> None:
    # Before one parser, --agent-max-memory took 500MB as 500 MiB while --max-shard-size took it as 500 * 10^6.
    judge = _parsed("judge", *_REQUIRED, "--agent-max-memory", text, "--max-output-bytes", text)
    export = _parsed("export", "root", "out", "--max-shard-size", text)
    assert judge.agent_max_memory == judge.max_output_bytes == export.max_shard_size == expected


@pytest.mark.parametrize("flag", ["--agent-max-memory", "--max-output-bytes"])
def test_a_bad_judge_size_is_a_usage_error_naming_the_flag(flag: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        _parsed("judge", *_REQUIRED, flag, "lots")
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert f"argument {flag}:" in error and "'lots'" in error and "500MB" in error


def test_a_bad_shard_size_is_refused_before_any_work_naming_the_flag(tmp_path, capsys) -> None:
    # The release root does not exist: a size error that came after the release was read would name the root.
    with pytest.raises(SystemExit) as stop:
        main(["export", str(tmp_path / "nowhere"), str(tmp_path / "out"), "--max-shard-size", "12 parsecs"])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert "argument --max-shard-size:" in error and "'12 parsecs'" in error and "nowhere" not in error
    assert not (tmp_path / "out").exists()


def test_the_library_names_the_option_it_was_given() -> None:
    from agenthorizon.data.export import export_release
    from agenthorizon.judging.judges.agent_limits import AgentLimits

    with pytest.raises(ValueError, match=r"agent_max_memory: expected a positive number of bytes, got '0MB'"):
        AgentLimits(memory="0MB")
    with pytest.raises(ValueError, match=r"max_shard_size: expected a number of bytes .* got '1 furlong'"):
        export_release("/nonexistent-root", "/nonexistent-out", max_shard_size="1 furlong")
