"""Verdict parsing: where the verdict is found, strict typing, and never raising."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agenthorizon import schema
from agenthorizon.scoring.verdicts import Verdict, parse_verdict

# --- statuses ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,status",
    [
        (None, "missing"),
        ("", "missing"),
        ("  \n\t ", "missing"),
        ("The agent clearly finished the task.", "no_json"),
        ("Use the {placeholder} syntax.", "no_json"),
        ('{"success": true}', "ok"),
        ('{"success": "true"}', "non_boolean"),
        ('{"success": "false"}', "non_boolean"),
        ('{"success": 1}', "non_boolean"),
        ('{"success": 0}', "non_boolean"),
        ('{"success": null}', "non_boolean"),
        ('{"success": [true]}', "non_boolean"),
        ('{"verdict": "success", "reasoning": "ok"}', "missing_success"),
        ('{"Success": true}', "missing_success"),
        ('[{"success": true}]', "ok"),  # the object is top-level: no object encloses it
        ("42", "no_json"),  # as after any prose: a bare value holds no verdict object
        ("true", "no_json"),
        ('"{\\"success\\": true}"', "no_json"),
        ('{"verdict": {"success": false}}', "missing_success"),  # nested: not the verdict
        ('Result: {"verdict": {"success": false}}', "missing_success"),
        ('{"success": true, "reasoning": "the agent saved the fi', "malformed_json"),
        ("{success: true}", "malformed_json"),
        ("{'success': True}", "malformed_json"),
        ('```json\n{"success": true,}\n```', "malformed_json"),
        ("```json\n[1, 2]\n```", "no_json"),
    ],
)
def test_each_status(text: str | None, status: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.status == status, verdict.detail
    assert verdict.is_valid is (status == "ok")
    if status != "ok":
        assert verdict.success is None
        assert verdict.detail  # every invalid verdict says why


def test_booleans_are_kept_exactly() -> None:
    assert parse_verdict('{"success": true}').success is True
    assert parse_verdict('{"success": false}').success is False


def test_non_boolean_detail_names_the_value() -> None:
    verdict = parse_verdict('{"success": "true"}')
    assert "true" in verdict.detail and "string" in verdict.detail


def test_fields_are_typed_and_mistake_types_canonical() -> None:
    verdict = parse_verdict(
        '{"success": false, "mistake_type": "misunderstanding of the  instruction", '
        '"confidence": "HIGH", "reasoning": "Exported JPEG, not PNG."}'
    )
    assert verdict.to_dict() == {
        "success": False,
        "mistake_type": schema.MISUNDERSTANDING,
        "confidence": "high",
        "reasoning": "Exported JPEG, not PNG.",
    }
    odd = parse_verdict('{"success": false, "mistake_type": "Wrong file", "confidence": 0.8}')
    assert odd.mistake_type == "Wrong file"  # unknown types are kept verbatim
    assert odd.confidence == "0.8"
    assert parse_verdict('{"success": true, "mistake_type": ""}').mistake_type is None
    assert parse_verdict('{"success": true, "mistake_type": null}').mistake_type is None


def test_invalid_verdicts_keep_what_the_judge_said() -> None:
    verdict = parse_verdict('{"success": "yes", "reasoning": "looks fine"}')
    assert verdict.status == "non_boolean" and verdict.reasoning == "looks fine"


# --- where the verdict is taken from ------------------------------------------------


def test_fenced_block_with_surrounding_prose() -> None:
    text = (
        "I reviewed all 143 steps.\n\n```json\n"
        '{"success": false, "mistake_type": "Bad Side Effect", "reasoning": "Also emailed the list."}\n'
        "```\n\nLet me know if you need more."
    )
    verdict = parse_verdict(text)
    assert verdict.status == "ok" and verdict.success is False
    assert verdict.mistake_type == schema.BAD_SIDE_EFFECT


def test_the_last_top_level_object_with_success_wins_fenced_or_not() -> None:
    text = (
        '```json\n{"success": true}\n```\n'
        'Correction:\n```json\n{"success": false}\n```\n'
        '```json\n{"note": "no verdict here"}\n```\n'
    )
    assert parse_verdict(text).success is False
    # A fence gives no precedence (a stray fence before the answer could re-pair
    # every fence after it): the last object with success is the verdict.
    assert parse_verdict(text + 'Final: {"success": true}').success is True


def test_objects_nested_in_a_verdict_or_another_object_are_never_the_verdict() -> None:
    checks = '{"success": false, "checks": [{"step": 3, "success": true}]}'
    assert parse_verdict(checks).success is False
    assert parse_verdict("Verdict follows. " + checks).success is False
    assert parse_verdict('{"answer": {"success": true}} and more').status == "missing_success"
    # A key spelt with an escape is still the success key, alone or after prose.
    assert parse_verdict('{"\\u0073uccess": true}').success is True
    assert parse_verdict('So: {"\\u0073uccess": true}').success is True


def test_unlabelled_and_inline_fences() -> None:
    assert parse_verdict('```\n{"success": true}\n```').success is True
    assert parse_verdict('Answer: ```{"success": false}```').success is False
    # A fence in another language is not the verdict; the object inside still is
    # found by the brace scan as the last object with success.
    assert parse_verdict('```python\nx = {"success": True}\n```\n{"success": false}').success is False


def test_trailing_prose_after_the_object() -> None:
    text = '{"success": true, "reasoning": "done"}\n\nThat is my final answer.'
    assert parse_verdict(text).success is True


def test_braces_and_quotes_inside_strings() -> None:
    reasoning = 'The agent typed "{name}" then } and { and a backslash \\ and a quote " in the file.'
    text = "Thinking... {draft} \n" + json.dumps({"success": True, "reasoning": reasoning}) + " end"
    verdict = parse_verdict(text)
    assert verdict.status == "ok" and verdict.reasoning == reasoning


def test_nested_objects() -> None:
    text = 'Result: {"success": false, "evidence": {"step": 12, "detail": {"file": "a.png"}}} ok'
    assert parse_verdict(text).success is False
    # A verdict nested in a wrapper object is not the verdict (the one rule:
    # only top-level objects count, after prose as alone).
    assert parse_verdict('Here: {"result": {"success": true}} done').status == "missing_success"


def test_several_objects_last_with_success_wins() -> None:
    text = (
        'First guess {"success": true, "confidence": "low"}. Then I checked step 80: '
        '{"step": 80, "title": "Export"}. Final: {"success": false, "confidence": "high"} '
        'and some metadata {"tokens": 1234}.'
    )
    verdict = parse_verdict(text)
    assert verdict.success is False and verdict.confidence == "high"


def test_stray_quote_and_brace_in_prose_do_not_hide_the_verdict() -> None:
    text = 'The dialog said {"Save as... and then nothing. {"success": true, "reasoning": "saved"}'
    assert parse_verdict(text).success is True


def test_truncated_second_object_after_a_complete_one() -> None:
    # The judge was cut off while writing a revised verdict: the complete one stands.
    text = '{"success": true, "reasoning": "ok"}\nOn reflection: {"success": false, "reas'
    assert parse_verdict(text).success is True


def test_bytes_mappings_and_other_objects() -> None:
    assert parse_verdict(b'{"success": false}').success is False
    assert parse_verdict(b"\xff\xfe garbage").status == "no_json"
    assert parse_verdict({"success": True}).status == "ok"
    assert parse_verdict(12).status == "no_json"
    assert parse_verdict("\ufeff" + '{"success": true}').success is True


def test_long_reasoning_parses() -> None:
    prose = "The agent opened the spreadsheet and {checked} the totals. " * 20_000  # ~1.2 MB
    verdict = parse_verdict(prose + json.dumps({"success": False, "reasoning": prose[:5000]}))
    assert verdict.success is False and len(verdict.reasoning) == 5000


@pytest.mark.parametrize(
    "text",
    ["{" * 200_000, '{"a":' * 20_000 + '"success": tru' + "}" * 20_000, '{"success": tru} ' * 20_000, "[" * 200_000],
)
def test_pathological_inputs_do_not_raise(text: str) -> None:
    assert parse_verdict(text).status in schema.INVALID_STATUSES


def test_verdict_construction_is_checked() -> None:
    with pytest.raises(ValueError, match="status"):
        Verdict(status="fine")
    with pytest.raises(ValueError, match="Boolean"):
        Verdict(success=None, status="ok")
    assert Verdict.error("timeout after 60 s").status == "error"


# --- fuzzing -------------------------------------------------------------------------

_json_atoms = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
_json_values = st.recursive(
    _json_atoms,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
_json_text = _json_values.map(json.dumps)
_noise = st.text(alphabet=st.sampled_from(list('{}[]":,\\` \n\tsuccesfalrtun0123')), max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=400), _noise, _json_text, st.lists(st.one_of(_noise, _json_text)).map("".join)))
@pytest.mark.slow
def test_never_raises_and_status_is_known(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.status in schema.PARSE_STATUSES
    assert verdict.status != "error"  # "error" is reserved for judges that failed
    assert (verdict.status == "ok") == isinstance(verdict.success, bool)


_valid_verdicts = st.fixed_dictionaries(
    {
        "success": st.booleans(),
        "mistake_type": st.none() | st.sampled_from(schema.MISTAKE_TYPES),
        "confidence": st.none() | st.sampled_from(schema.CONFIDENCE_VALUES),
        "reasoning": st.none() | st.text(max_size=300),
    }
)
# Prose before the verdict is arbitrary (stray braces, quotes, even other
# verdicts); after it, no brace (which could open a later verdict, or close an
# enclosing object that would then be the last one), and no fence that could
# turn the verdict into part of a code block.
_prefix = st.text(max_size=300).filter(lambda s: "```" not in s)
_suffix = st.text(max_size=300).filter(lambda s: "{" not in s and "}" not in s and "```" not in s)


@settings(max_examples=300, deadline=None)
@given(_valid_verdicts, _prefix, _suffix, st.booleans(), st.booleans())
def test_valid_verdict_in_prose_round_trips(
    verdict: dict, prefix: str, suffix: str, fenced: bool, ascii_only: bool
) -> None:
    body = json.dumps(verdict, ensure_ascii=ascii_only)
    if fenced:
        body = f"\n```json\n{body}\n```\n"
    parsed = parse_verdict(prefix + body + suffix)
    assert parsed.status == "ok", parsed.detail
    assert parsed.to_dict() == verdict


# The one parse rule: prose without braces before an answer never changes it.
_brace_free_prose = st.text(max_size=200).filter(lambda s: "{" not in s and "}" not in s)
_answers = st.one_of(
    st.text(max_size=300), _noise, _json_text, st.lists(st.one_of(_noise, _json_text), max_size=6).map("".join),
    st.builds(lambda inner: json.dumps({"verdict": inner}), _valid_verdicts),
    _valid_verdicts.map(lambda v: f"```json\n{json.dumps(v)}\n```"),
)


@settings(max_examples=500, deadline=None)
@given(_answers, _brace_free_prose)
def test_prose_without_braces_before_an_answer_changes_neither_status_nor_verdict(answer: str, prose: str) -> None:
    assume(answer.strip().lstrip("\ufeff").strip())  # an answer: no answer at all is "missing", prose is not
    alone, prefixed = parse_verdict(answer), parse_verdict(prose + answer)
    assert (prefixed.status, prefixed.to_dict()) == (alone.status, alone.to_dict()), (alone.detail, prefixed.detail)
