"""An agent gets only the variables its judge allows, and no secret-looking value of the harness's
environment reaches a written file (issue 30 section 4.2).

A hostile command agent, run by the real CLI under real bubblewrap, prints its whole environment and
the fake keys themselves (as an agent that found them another way would): once in its answer
(``raw_output``), once on stderr before failing (``error``). Neither the run folder nor the HTML report
``agenthorizon report`` builds from it may hold a key, and the allowed variables must reach the agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from test_agent_network import judge_two
from test_untrusted_agents import results

FAKE_KEYS = {
    "OPENAI_API_KEY": "sk-fake-openai-5d1f0c2e9a7b",
    "ANTHROPIC_API_KEY": "sk-ant-fake-3b8e1d7c4a90",
    "GEMINI_API_KEY": "AIzaFakeGemini-77c0d3e1",
    "HF_TOKEN": "hf_fakeTokenQ8w2e4r6t",
    "AWS_SECRET_ACCESS_KEY": "wJalrFakeSecret/K7MDENG+bPxRfiCY",
}

DUMP = r"""
import json, os, re, sys
tid = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", sys.stdin.read()).group(0)
dump = json.dumps({"environment": dict(os.environ), "keys I found": %r})
if tid == os.environ.get("AH_FAIL"):
    sys.stderr.write(dump + "\n")
    sys.exit(3)
print(dump)
print(json.dumps({"success": True, "reasoning": "dumped"}))
""" % (list(FAKE_KEYS.values()),)


def test_an_agent_gets_only_allowed_variables_and_no_key_reaches_a_written_file(bubblewrap, tiny_root, tmp_path):
    # OPENAI_API_KEY is named with --env (the agent gets it), the other keys are only in the harness's
    # environment; AH_VISIBLE is an ordinary variable the user names.
    ids, process, stdout, stderr = judge_two(tiny_root, tmp_path, DUMP, "--env", "OPENAI_API_KEY", "--env",
                                             "AH_VISIBLE", env={**FAKE_KEYS, "AH_VISIBLE": "visible-to-the-agent"})
    out = tmp_path / "run"
    assert process.returncode == 1 and "error 1" in stderr, stderr  # the failing item, as asked
    found = results(out)
    answered, failed = found[ids[0]], found[ids[1]]
    assert failed["parse_status"] == "error" and "exited with status 3" in failed["error"]
    raw = answered["raw_output"]
    seen = json.loads(raw.splitlines()[0])["environment"]
    # The allowed variables reached it: PATH, the one the user named, and the key named with --env ...
    assert seen["AH_VISIBLE"] == "visible-to-the-agent" and seen["PATH"] == os.environ["PATH"]
    assert seen["OPENAI_API_KEY"] == "[API key]"  # ... which it had, but no file holds
    # ... and nothing else of the harness's environment did.
    assert not {"ANTHROPIC_API_KEY", "GEMINI_API_KEY", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY"} & set(seen)
    assert "[API key]" in failed["error"]  # the end of its stderr: the keys it printed, scrubbed

    html = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "agenthorizon", "report", str(out), "--data", str(tiny_root),
                           "--out", str(html), "--bootstrap", "0", "--thumbnails", "0"], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **FAKE_KEYS})
    assert done.returncode == 0, done.stderr
    assert "[API key]" in html.read_text(encoding="utf-8")  # the agent's dump is in the report, scrubbed
    written = [path for path in out.rglob("*") if path.is_file()] + [html]
    for path in written:
        text = path.read_text(encoding="utf-8", errors="replace")
        leaked = [name for name, value in FAKE_KEYS.items() if value in text or value.replace("/", "\\/") in text]
        assert not leaked, f"{path.relative_to(tmp_path)} holds {leaked}"
    assert not any(value in stdout + stderr for value in FAKE_KEYS.values())
    record = json.loads((out / "run.json").read_text())["judge"]
    assert record["env"] == ["AH_FAIL", "AH_VISIBLE", "OPENAI_API_KEY"] and "PATH" in record["env_allowed"]


def test_a_secret_looking_variable_is_scrubbed_wherever_it_shows_up():
    from agenthorizon.judging.secrets import REDACTED, register_environment, scrub, scrub_data

    names = register_environment({"MY_SERVICE_TOKEN": "tok-0a9b8c7d6e", "PGPASSWORD": "pg-pass-1234",
                                  "HOME": "/home/someone-long", "SHORT_KEY": "abc"})
    assert names == ["MY_SERVICE_TOKEN", "PGPASSWORD"]
    text = "token tok-0a9b8c7d6e, url pg-pass-1234%0A... home /home/someone-long"
    assert scrub(text) == f"token {REDACTED}, url {REDACTED}%0A... home /home/someone-long"
    assert scrub_data({"error": ["'tok-0a9b8c7d6e'"]}) == {"error": [f"'{REDACTED}'"]}
