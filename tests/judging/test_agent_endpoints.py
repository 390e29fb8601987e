"""A preset's endpoints and variables come from where its CLI reads them: its variables and the user's
config files, else the vendor's API; ``--agent-endpoint`` adds more. (The real CLIs reach the endpoint
so found in tests/judging/test_real_clis.py.)"""

from __future__ import annotations

import json

import pytest

from agenthorizon.judging.judges import make_judge


@pytest.fixture()
def user_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable in ("XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL",
                     "GOOGLE_GEMINI_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    return home


def endpoints(judge) -> list[tuple[str, str, str]]:
    return [(e["url"], e["from"], e["via"]) for e in judge.spec()["network"]["endpoints"]]


def test_codex_and_opencode_take_their_endpoint_and_key_variable_from_the_users_config(bubblewrap, user_home):
    (user_home / ".codex").mkdir()
    (user_home / ".codex" / "config.toml").write_text(
        '[model_providers.local]\nbase_url = "http://localhost:8000/v1"\nenv_key = "LOCAL_API_KEY"\n')
    (user_home / ".config" / "opencode").mkdir(parents=True)
    (user_home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(
        {"provider": {"vllm": {"options": {"baseURL": "http://127.0.0.1:9000/v1", "apiKey": "{env:VLLM_KEY}"}}}}))
    codex = make_judge("codex:m", sandbox="bwrap")
    assert endpoints(codex) == [("http://localhost:8000/v1", f"{user_home}/.codex/config.toml (base_url)",
                                 "forwarded")]
    assert "LOCAL_API_KEY" in codex.spec()["env_allowed"] and "OPENAI_*" in codex.spec()["env_allowed"]
    opencode = make_judge("opencode:vllm/m", sandbox="bwrap", agent_endpoints=["https://api.example.com"])
    assert endpoints(opencode) == [
        ("https://api.example.com", "--agent-endpoint", "CONNECT proxy"),
        ("http://127.0.0.1:9000/v1", f"{user_home}/.config/opencode/opencode.json (baseURL)", "forwarded")]
    assert "VLLM_KEY" in opencode.spec()["env_allowed"]
    assert opencode.agent_environment()["HTTPS_PROXY"] == "http://127.0.0.1:3128"


def test_claude_takes_its_variable_and_falls_back_to_the_vendors_api(bubblewrap, user_home, monkeypatch):
    assert endpoints(make_judge("claude:m", sandbox="bwrap")) == [
        ("https://api.anthropic.com", "Claude Code's default", "CONNECT proxy")]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")
    monkeypatch.setenv("HF_TOKEN", "hf_not_for_claude_123")
    judge = make_judge("claude:m", sandbox="bwrap")
    assert endpoints(judge) == [("http://127.0.0.1:4000", "ANTHROPIC_BASE_URL", "forwarded")]
    env = judge.agent_environment()
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:4000" and "HF_TOKEN" not in env
    assert "HTTPS_PROXY" not in env  # nothing remote: no proxy


def test_host_network_is_recorded_and_warned_about(bubblewrap, user_home):
    with pytest.warns(UserWarning, match="--agent-network host: agents share this machine's network"):
        judge = make_judge("gemini:m", sandbox="bwrap", agent_network="host")
    record = judge.spec()["network"]
    assert record["mode"] == "host" and record["namespace"] is False
    assert {e["via"] for e in record["endpoints"]} == {"host network"}
    assert judge.spec()["exposure"]["network_namespace"] is False
