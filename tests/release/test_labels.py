"""Label files and config membership: bad input is refused with the file and
line named, pair groups are connected components, and AH-D is exactly the
authors' algorithm (checked against an independent implementation here)."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import pytest

from agenthorizon.release.labels import (
    check_disjoint,
    check_label_file,
    label_file_problems,
    pair_groups,
    parse_label_file,
)
from agenthorizon.schema import LABEL_FILE_EASY, LABEL_FILE_HARD, MISUNDERSTANDING
from agenthorizon.release.files import read_labels
from agenthorizon.release.splits import derive_dev_set, dev_set_from_manifest, select_config

T1 = "11111111-1111-4111-8111-111111111111"
T2 = "22222222-2222-4222-8222-222222222222"
T3 = "33333333-3333-4333-8333-333333333333"
A = "000000001-000001-0000-000000000001"
B = "000000002-000002-0000-000000000002"


def _positive(tid: str, deliverable: str = A) -> dict:
    return {
        "trajectory_id": tid,
        "label": "positive",
        "instruction_id": deliverable,
        "instruction_source": "",
        "steps_id": deliverable,
        "steps_source": "",
        "mistake_type": "",
    }


def _negative(tid: str, mistake_type: str = "Critical Mistake", instruction: str = A, steps: str = B) -> dict:
    return {
        "trajectory_id": tid,
        "label": "negative",
        "instruction_id": instruction,
        "instruction_source": "parent",
        "steps_id": steps,
        "steps_source": "child",
        "mistake_type": mistake_type,
    }


def _text(*rows: dict | str) -> str:
    return "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows)


# --- bad input --------------------------------------------------------------------------


def test_malformed_line_names_file_and_line():
    text = _text(_positive(T1), '{"trajectory_id": "broken"')
    with pytest.raises(ValueError, match=r"AgentHorizon\.jsonl:2: not valid JSON"):
        parse_label_file(text, LABEL_FILE_HARD)


def test_unknown_label_value_is_refused():
    row = _positive(T1) | {"label": "success"}
    with pytest.raises(ValueError, match=r"AgentHorizon\.jsonl:1: unknown label 'success'; expected 'positive' or 'negative'"):
        parse_label_file(_text(row), LABEL_FILE_HARD)


def test_missing_field_is_named():
    row = _negative(T1)
    del row["mistake_type"]
    with pytest.raises(ValueError, match=r":1: missing mistake_type; expected exactly the fields"):
        parse_label_file(_text(row), LABEL_FILE_HARD)


def test_duplicate_id_within_a_file_names_both_lines():
    with pytest.raises(ValueError, match=rf"AgentHorizon\.jsonl:3: duplicate trajectory_id {T1} \(first at line 1\)"):
        parse_label_file(_text(_positive(T1), _negative(T2), _positive(T1)), LABEL_FILE_HARD)


def test_duplicate_id_across_files_names_both_places():
    hard = parse_label_file(_text(_positive(T1), _negative(T2)), LABEL_FILE_HARD)
    easy = parse_label_file(_text(_negative(T3), _negative(T2, "Bad Side Effect")), LABEL_FILE_EASY)
    with pytest.raises(ValueError, match=rf"AgentHorizon-Simple\.jsonl:2: trajectory_id {T2} also appears at AgentHorizon\.jsonl:2"):
        check_disjoint([hard, easy])


def test_duplicate_across_files_is_caught_when_reading_a_release(tiny_copy: Path):
    first_hard_line = (tiny_copy / LABEL_FILE_HARD).read_text(encoding="utf-8").splitlines()[0]
    with open(tiny_copy / LABEL_FILE_EASY, "a", encoding="utf-8") as handle:
        handle.write(first_hard_line + "\n")
    with pytest.raises(ValueError, match=r"AgentHorizon-Simple\.jsonl:\d+: trajectory_id .* also appears at AgentHorizon\.jsonl:1"):
        read_labels(tiny_copy)


def test_unknown_mistake_type_is_refused():
    with pytest.raises(ValueError, match=r":1: unknown mistake_type 'Typo'"):
        parse_label_file(_text(_negative(T1, "Typo")), LABEL_FILE_HARD)


@pytest.mark.parametrize(
    "spelling",
    ["Misunderstanding of the Instructions", "Misunderstanding of the Instruction", " misunderstanding  of the instruction "],
)
def test_singular_and_plural_spellings_are_one_type(spelling: str):
    parsed = parse_label_file(_text(_negative(T1, spelling)), LABEL_FILE_HARD)
    assert parsed.rows[0]["mistake_type"] == MISUNDERSTANDING


def test_every_bad_line_is_reported_at_once():
    text = _text("not json", _positive(T1) | {"label": "maybe"}, _positive(T2), _positive(T2))
    problems = label_file_problems(text, LABEL_FILE_HARD)
    assert [problem.split(":")[1] for problem in problems] == ["1", "2", "4"]
    assert "duplicate trajectory_id" in problems[2]
    # the raising parser and the reporting check read the lines the same way
    with pytest.raises(ValueError) as raised:
        parse_label_file(text, LABEL_FILE_HARD)
    assert str(raised.value) == problems[0]
    parsed, reported = check_label_file(text, LABEL_FILE_HARD)
    assert parsed is None and reported == problems
    good = _text(_positive(T1), _negative(T2))
    assert check_label_file(good, LABEL_FILE_HARD) == (parse_label_file(good, LABEL_FILE_HARD), [])


def test_verify_reads_each_label_line_once(tiny_root: Path, monkeypatch):
    from agenthorizon.release import labels
    from agenthorizon.release.verify import verify_release
    from agenthorizon.schema import LABEL_FILES

    calls = []
    validate = labels._validate_row
    monkeypatch.setattr(labels, "_validate_row", lambda line, where: calls.append(where) or validate(line, where))
    assert verify_release(tiny_root) == []
    lines = sum(len((tiny_root / name).read_text(encoding="utf-8").splitlines()) for name in LABEL_FILES)
    assert len(calls) == len(set(calls)) == lines


def test_each_label_text_is_validated_once_and_changes_are_seen(monkeypatch):
    from agenthorizon.release import labels

    calls = []
    validate = labels._validate_row
    monkeypatch.setattr(labels, "_validate_row", lambda line, where: calls.append(where) or validate(line, where))
    text = _text(_positive(T1), _negative(T2)) + "\n"  # a text no other test parses
    first = parse_label_file(text, LABEL_FILE_HARD)
    first.rows[0]["label"] = "tampered"  # each call gets its own rows
    again = parse_label_file("".join([text]), LABEL_FILE_HARD)  # equal text, another string
    assert len(calls) == 2 and again.rows[0]["label"] == "positive" and again.location(1) == f"{LABEL_FILE_HARD}:2"
    changed = parse_label_file(text + _text(_positive(T3)), LABEL_FILE_HARD)  # the file changed: parsed anew
    assert len(changed.rows) == 3 and len(calls) == 5
    for _ in range(2):  # a bad file is never kept: every read names its line again
        with pytest.raises(ValueError, match=r"AgentHorizon\.jsonl:4: not valid JSON"):
            parse_label_file(text + "{\n", LABEL_FILE_HARD)
    assert len(calls) == 5 + 2 * 3
    parse_label_file(text, LABEL_FILE_HARD)  # the last parse kept is the changed file's: parsed anew
    assert len(calls) == 5 + 2 * 3 + 2


def test_dev_manifest_with_unknown_id_is_refused():
    rows = [_positive(T1), _negative(T2)]
    with pytest.raises(ValueError, match=r"dev\.txt: 1 trajectory id\(s\) are in no label file: " + T3):
        dev_set_from_manifest(rows, [T1, T3], "dev.txt")


def test_exclude_dev_cannot_apply_to_ah_d():
    rows = [_positive(T1) | {"difficulty": "hard"}]
    with pytest.raises(ValueError, match="cannot be combined with config 'AH-D'"):
        select_config(rows, "AH-D", derive_dev_set(rows), exclude_dev=True)


# --- pair groups -------------------------------------------------------------------------


def test_pair_groups_are_connected_components_including_a_triangle():
    # a-b-c joined by negatives (a triangle: three deliverables), d-e a plain pair,
    # f a lone positive whose sibling's items were all removed.
    rows = [
        {"trajectory_id": "n_ab", "instruction_id": "a", "steps_id": "b"},
        {"trajectory_id": "n_bc", "instruction_id": "b", "steps_id": "c"},
        {"trajectory_id": "n_ca", "instruction_id": "c", "steps_id": "a"},
        {"trajectory_id": "p_c", "instruction_id": "c", "steps_id": "c"},
        {"trajectory_id": "n_de", "instruction_id": "d", "steps_id": "e"},
        {"trajectory_id": "p_e", "instruction_id": "e", "steps_id": "e"},
        {"trajectory_id": "p_f", "instruction_id": "f", "steps_id": "f"},
    ]
    groups = pair_groups(rows)
    assert {groups[t] for t in ("n_ab", "n_bc", "n_ca", "p_c")} == {("a", "b", "c")}
    assert groups["n_de"] == groups["p_e"] == ("d", "e")
    assert groups["p_f"] == ("f",)


def test_a_triangle_is_never_a_dev_group():
    rows = [
        {"trajectory_id": "n_ab", "instruction_id": "a", "steps_id": "b"},
        {"trajectory_id": "n_bc", "instruction_id": "b", "steps_id": "c"},
        {"trajectory_id": "n_de", "instruction_id": "d", "steps_id": "e"},
    ]
    assert derive_dev_set(rows).trajectory_ids == {"n_de"}


# --- AH-D against an independent implementation of the authors' algorithm -------------------


def _authors_dev_set(rows: list[dict], n_groups: int = 50) -> set[str]:
    """The authors' derivation, written from SPEC section 2 without the library:
    connected components by breadth-first search, keep size 2, sort by the
    joined key, shuffle with Random(42), take the first n groups."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        neighbours[row["instruction_id"]].add(row["steps_id"])
        neighbours[row["steps_id"]].add(row["instruction_id"])
    component_of: dict[str, frozenset[str]] = {}
    for start in neighbours:
        if start in component_of:
            continue
        seen, frontier = {start}, [start]
        while frontier:
            node = frontier.pop()
            for other in neighbours[node] - seen:
                seen.add(other)
                frontier.append(other)
        for node in seen:
            component_of[node] = frozenset(seen)
    keys = sorted({"::".join(sorted(c)) for c in component_of.values() if len(c) == 2})
    random.Random(42).shuffle(keys)
    chosen = set(keys[:n_groups])
    return {
        row["trajectory_id"]
        for row in rows
        if "::".join(sorted(component_of[row["instruction_id"]])) in chosen
    }


@pytest.mark.parametrize("corpus", ["tiny_root", "small_root"])
def test_ah_d_equals_the_authors_algorithm(corpus: str, request: pytest.FixtureRequest):
    rows = read_labels(request.getfixturevalue(corpus))
    for n_groups in (50, 3):
        expected = _authors_dev_set(rows, n_groups)
        assert derive_dev_set(rows, n_groups).trajectory_ids == expected
    if corpus == "small_root":
        # small has more than 50 two-deliverable groups: AH-D is a proper subset of the release
        assert 0 < len(_authors_dev_set(rows)) < len(rows)


def test_ah_d_draws_from_both_label_files(small_root: Path):
    rows = read_labels(small_root)
    dev = derive_dev_set(rows)
    difficulties = {row["difficulty"] for row in rows if row["trajectory_id"] in dev.trajectory_ids}
    assert difficulties == {"hard", "easy"}


def test_dev_groups_zero_gives_an_empty_dev_set_and_negative_is_refused(tiny_root: Path):
    rows = read_labels(tiny_root)
    assert derive_dev_set(rows, 0).trajectory_ids == frozenset()
    with pytest.raises(ValueError, match="non-negative"):
        derive_dev_set(rows, -1)

