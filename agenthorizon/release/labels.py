"""Label rows: parsing, validation, pair groups and the manifest hash.

Pure logic over the lines (or text) of a label file. Lines are validated as
they come, so a streaming reader stops at the first bad line.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

from agenthorizon.schema import (
    GROUP_KEY_SEPARATOR,
    LABEL_FIELDS,
    MISTAKE_TYPES,
    NEGATIVE,
    PAIR_GROUP_ID_LENGTH,
    POSITIVE,
    SOURCE_VALUES,
    DELIVERABLE_ID_PATTERN,
    UNTYPED,
    UUID_PATTERN,
    canonical_mistake_type,
)
from agenthorizon.util.terminal_text import ECHO_LIMIT, printable

LabelRow = dict  # exactly the seven fields of schema.LABEL_FIELDS, all strings

LINE_LIMIT = 4096
"""The longest label line read, in characters: a real one is about 300."""


@dataclass(frozen=True)
class LabelFile:
    """The validated rows of one label file and where each came from."""

    name: str
    rows: list[LabelRow]
    line_numbers: list[int] = field(repr=False)

    def location(self, index: int) -> str:
        """``file:line`` of row ``index``, for error messages."""
        return f"{self.name}:{self.line_numbers[index]}"


def _label_lines(lines: Iterable[str], name: str) -> Iterator[tuple[int, LabelRow | None, str | None]]:
    """Each non-blank line of a label file, lazily: ``(line number, row, problem)``.

    Either ``row`` is the validated row, or it is ``None`` and ``problem`` the
    message (naming ``name:line``) for a line that is not a valid row, is
    longer than :data:`LINE_LIMIT` or repeats an earlier ``trajectory_id``.
    """
    seen: dict[str, int] = {}
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{line_number}"
        if len(line.rstrip("\r\n")) > LINE_LIMIT:
            yield line_number, None, (
                f"{where}: a line longer than {LINE_LIMIT} characters; expected one label object of seven short "
                "fields per line"
            )
            continue
        try:
            row = _validate_row(line, where)
        except ValueError as error:
            yield line_number, None, str(error)
            continue
        first = seen.setdefault(row["trajectory_id"], line_number)
        if first != line_number:
            yield line_number, None, (
                f"{where}: duplicate trajectory_id {row['trajectory_id']} (first at line {first}); expected each item once"
            )
            continue
        yield line_number, row, None


# The last parse of each label file, by name, with the sha256 of its text: a
# load reads both files several times. Only the very same text reuses a parse;
# a bad text is never kept, so every read of it names its line again.
_LAST_PARSE: dict[str, tuple[str, LabelFile]] = {}


def text_digest(chunks: Iterable[str]) -> str:
    """The sha256 of a label file's text given in pieces: what :func:`parse_label_lines` caches a parse by.

    >>> text_digest(["ab", "c"]) == text_digest(["abc"])
    True
    """
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def cached_parse(name: str, digest: str) -> LabelFile | None:
    """The last parse of ``name`` when its text had sha256 ``digest`` (copies of its rows), else ``None``."""
    last = _LAST_PARSE.get(name)
    if last is None or last[0] != digest:
        return None
    known = last[1]
    return LabelFile(name=known.name, rows=[dict(row) for row in known.rows], line_numbers=list(known.line_numbers))


def parse_label_lines(lines: Iterable[str], name: str, *, digest: str | None = None) -> LabelFile:
    """Parse and validate a label file's lines as they come, stopping at the first bad one.

    The rules are :func:`parse_label_file`'s. With ``digest`` (the sha256 of
    the text, :func:`text_digest`) the parse is kept for :func:`cached_parse`.
    """
    rows: list[LabelRow] = []
    line_numbers: list[int] = []
    for line_number, row, problem in _label_lines(lines, name):
        if problem is not None:
            raise ValueError(problem)
        rows.append(row)
        line_numbers.append(line_number)
    if not rows:  # a truncated download or an emptied file: never a release of zero items
        raise ValueError(empty_label_file_message(name))
    parsed = LabelFile(name=name, rows=rows, line_numbers=line_numbers)
    if digest is not None:
        _LAST_PARSE[name] = (digest, parsed)
        return cached_parse(name, digest)  # the caller's own copies
    return parsed


def parse_label_file(text: str, name: str) -> LabelFile:
    """Parse and validate the text of a label file (JSON Lines).

    Each non-blank line is a JSON object with exactly the seven label fields, all
    strings: a positive shows its own trajectory (``instruction_id == steps_id``,
    empty sources and type), a negative a sibling's (different ids, opposite
    ``parent``/``child`` sources, a known mistake type or ``""``, stored in its
    canonical spelling). ``trajectory_id`` is a UUID, the other ids match
    :data:`~agenthorizon.schema.DELIVERABLE_ID_PATTERN`, a line is at most
    :data:`LINE_LIMIT` characters. ValueError names ``name``, the line and what
    was expected at the first bad line (:func:`check_label_file` reports all), or
    ``name`` for a file without label lines. Each call gets its own rows.
    """
    digest = text_digest([text])
    return cached_parse(name, digest) or parse_label_lines(text.splitlines(), name, digest=digest)


def empty_label_file_message(name: str) -> str:
    """The one message for a label file without a single label line (``verify`` and every loader say it).

    >>> empty_label_file_message("AgentHorizon-Simple.jsonl")
    'AgentHorizon-Simple.jsonl: empty label file (no label line); expected one label object per line'
    """
    return f"{name}: empty label file (no label line); expected one label object per line"


def check_label_file(text: str | Iterable[str], name: str) -> tuple[LabelFile | None, list[str]]:
    """Every problem of a label file's text (or its lines, as they come), and the parsed file when there is none.

    One pass, for ``agenthorizon verify``: the messages :func:`parse_label_file`
    raises, one per bad line; the :class:`LabelFile` is ``None`` when there is a problem.

    >>> row = ('{"trajectory_id": "6f1c3a52-7a4e-4e47-9a3b-2f4c9c1e8d10", "label": "positive", '
    ...        '"instruction_id": "1-1-0-1", "instruction_source": "", "steps_id": "1-1-0-1", "steps_source": "", '
    ...        '"mistake_type": ""}')
    >>> parsed, problems = check_label_file(row + "\\n" + row + "\\n{", "AgentHorizon.jsonl")
    >>> parsed is None, [problem.split(": ")[1] for problem in problems]
    (True, ['duplicate trajectory_id 6f1c3a52-7a4e-4e47-9a3b-2f4c9c1e8d10 (first at line 1); expected each item once', 'not valid JSON (Expecting property name enclosed in double quotes); expected one label object per line'])
    """
    rows: list[LabelRow] = []
    line_numbers: list[int] = []
    problems: list[str] = []
    lines = text.splitlines() if isinstance(text, str) else text
    for line_number, row, problem in _label_lines(lines, name):
        if problem is not None:
            problems.append(problem)
        else:
            rows.append(row)
            line_numbers.append(line_number)
    if not rows and not problems:
        problems.append(empty_label_file_message(name))
    if problems:
        return None, problems
    return LabelFile(name=name, rows=rows, line_numbers=line_numbers), problems


def label_file_problems(text: str, name: str) -> list[str]:
    """Every problem of a label file's text, one message per bad line (as :func:`parse_label_file` words them); empty when it parses."""
    return check_label_file(text, name)[1]

def _validate_row(line: str, where: str) -> LabelRow:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: not valid JSON ({error.msg}); expected one label object per line") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read; expected one flat label object per line") from None
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a JSON object with the fields {', '.join(LABEL_FIELDS)}")
    missing = [name for name in LABEL_FIELDS if name not in value]
    extra = sorted(set(value) - set(LABEL_FIELDS))
    if missing or extra:
        problems = []
        if missing:
            problems.append(f"missing {', '.join(missing)}")
        if extra:
            problems.append(f"unexpected {printable(', '.join(extra), limit=ECHO_LIMIT)}")
        raise ValueError(f"{where}: {'; '.join(problems)}; expected exactly the fields {', '.join(LABEL_FIELDS)}")
    for name in LABEL_FIELDS:
        if not isinstance(value[name], str):
            raise ValueError(f"{where}: field {name} is {printable(value[name], limit=ECHO_LIMIT, quote=True)}; expected a string")
    row = {name: value[name] for name in LABEL_FIELDS}
    trajectory_id = row["trajectory_id"]
    if not UUID_PATTERN.fullmatch(trajectory_id):
        raise ValueError(f"{where}: trajectory_id {printable(trajectory_id, limit=ECHO_LIMIT, quote=True)} is not a UUID")
    for name in ("instruction_id", "steps_id"):
        if not DELIVERABLE_ID_PATTERN.fullmatch(row[name]):
            raise ValueError(
                f"{where}: {name} {printable(row[name], limit=ECHO_LIMIT, quote=True)} is not a deliverable id; "
                "expected four dash-separated groups of digits such as 000234004-234004-0000-000000234004"
            )
    label = row["label"]
    if label == POSITIVE:
        if row["instruction_id"] != row["steps_id"]:
            raise ValueError(f"{where}: a positive must show its own trajectory; expected instruction_id == steps_id")
        if row["instruction_source"] or row["steps_source"] or row["mistake_type"]:
            raise ValueError(
                f"{where}: a positive must have empty instruction_source, steps_source and mistake_type"
            )
    elif label == NEGATIVE:
        if row["instruction_id"] == row["steps_id"]:
            raise ValueError(f"{where}: a negative shows a sibling's trajectory; expected instruction_id != steps_id")
        sources = (row["instruction_source"], row["steps_source"])
        if sorted(sources) != sorted(SOURCE_VALUES):
            raise ValueError(
                f"{where}: instruction_source/steps_source are ({printable(sources[0], limit=ECHO_LIMIT, quote=True)}, {printable(sources[1], limit=ECHO_LIMIT, quote=True)}); "
                "expected one 'parent' and one 'child'"
            )
        if row["mistake_type"]:
            canonical = canonical_mistake_type(row["mistake_type"])
            if canonical is None:
                raise ValueError(
                    f"{where}: unknown mistake_type {printable(row['mistake_type'], limit=ECHO_LIMIT, quote=True)}; expected one of "
                    f"{', '.join(map(repr, MISTAKE_TYPES))} or {UNTYPED!r}"
                )
            row["mistake_type"] = canonical
    else:
        raise ValueError(f"{where}: unknown label {printable(label, limit=ECHO_LIMIT, quote=True)}; expected 'positive' or 'negative'")
    return row


def check_disjoint(files: Sequence[LabelFile]) -> None:
    """Raise when a trajectory id appears in more than one label file."""
    first_seen: dict[str, str] = {}
    for label_file in files:
        for index, row in enumerate(label_file.rows):
            where = label_file.location(index)
            other = first_seen.get(row["trajectory_id"])
            if other is not None:
                raise ValueError(
                    f"{where}: trajectory_id {row['trajectory_id']} also appears at {other}; "
                    "expected the label files not to overlap"
                )
            first_seen[row["trajectory_id"]] = where


@dataclass(frozen=True)
class LabelCounts:
    """How many items, positives and negatives some label rows hold, and negatives per mistake type.

    ``mistake_types`` maps each canonical name of ``schema.MISTAKE_TYPES`` (in
    order) and then ``schema.UNTYPED`` (``""``) to its count; the values add up to
    ``negatives``.
    """

    positives: int
    negatives: int
    mistake_types: dict[str, int]

    @property
    def items(self) -> int:
        """Number of rows counted: ``positives + negatives``."""
        return self.positives + self.negatives


def count_labels(rows: Iterable[Mapping[str, str]]) -> LabelCounts:
    """Count positives, negatives and negatives per mistake type (types of negatives only).

    Every count is between 0 and the number of rows. A row whose label is neither
    positive nor negative, or a negative with a non-canonical type, raises
    ValueError naming the row, so the counts always add up to the rows.

    >>> counts = count_labels([
    ...     {"label": "positive", "mistake_type": ""},
    ...     {"label": "negative", "mistake_type": "Bad Side Effect"},
    ...     {"label": "negative", "mistake_type": ""},
    ... ])
    >>> counts.items, counts.positives, counts.negatives
    (3, 1, 2)
    >>> counts.mistake_types["Bad Side Effect"], counts.mistake_types[""]
    (1, 1)
    >>> count_labels([{"trajectory_id": "t9", "label": "maybe", "mistake_type": ""}])
    Traceback (most recent call last):
    ...
    ValueError: item t9: unknown label 'maybe'; expected 'positive' or 'negative'
    """
    positives = negatives = 0
    types = dict.fromkeys((*MISTAKE_TYPES, UNTYPED), 0)
    for index, row in enumerate(rows):
        label = row["label"]
        if label == POSITIVE:
            positives += 1
        elif label == NEGATIVE:
            negatives += 1
            mistake_type = row["mistake_type"] or UNTYPED
            if mistake_type not in types:
                raise ValueError(
                    f"{_row_name(row, index)}: mistake_type {printable(mistake_type, limit=ECHO_LIMIT, quote=True)} is not canonical; expected one of "
                    f"{', '.join(repr(name) for name in MISTAKE_TYPES)} or ''"
                )
            types[mistake_type] += 1
        else:
            raise ValueError(f"{_row_name(row, index)}: unknown label {printable(label, limit=ECHO_LIMIT, quote=True)}; expected 'positive' or 'negative'")
    return LabelCounts(positives=positives, negatives=negatives, mistake_types=types)


def _row_name(row: Mapping[str, str], index: int) -> str:
    trajectory_id = row.get("trajectory_id")
    return f"item {printable(trajectory_id, limit=ECHO_LIMIT)}" if trajectory_id else f"row {index}"


def pair_groups(rows: Iterable[Mapping[str, str]]) -> dict[str, tuple[str, ...]]:
    """Connected pair group of every item, as its sorted deliverable ids.

    A negative links the deliverable whose instruction it shows with the one
    whose trajectory it shows; positives add only their own. Connected
    components, not fixed pairs: one group of the release joins three.

    >>> rows = [
    ...     {"trajectory_id": "t1", "instruction_id": "a", "steps_id": "a"},
    ...     {"trajectory_id": "t2", "instruction_id": "a", "steps_id": "b"},
    ...     {"trajectory_id": "t3", "instruction_id": "c", "steps_id": "c"},
    ... ]
    >>> pair_groups(rows)["t1"], pair_groups(rows)["t3"]
    (('a', 'b'), ('c',))
    """
    rows = list(rows)
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        root = node
        while parent[root] != root:
            root = parent[root]
        while parent[node] != root:  # path compression keeps later finds flat
            parent[node], node = root, parent[node]
        return root

    for row in rows:
        for node in (row["instruction_id"], row["steps_id"]):
            parent.setdefault(node, node)
        a, b = find(row["instruction_id"]), find(row["steps_id"])
        if a != b:
            parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = {}
    for node in parent:
        members.setdefault(find(node), []).append(node)
    groups = {root: tuple(sorted(nodes)) for root, nodes in members.items()}
    return {row["trajectory_id"]: groups[find(row["instruction_id"])] for row in rows}


def group_key(deliverable_ids: Iterable[str]) -> str:
    """The group's sort key in the authors' harness: ``"::".join(sorted(ids))``."""
    return GROUP_KEY_SEPARATOR.join(sorted(deliverable_ids))


def pair_group_id(deliverable_ids: Iterable[str]) -> str:
    """Short stable id of a pair group: the first 12 hex digits of sha1 of its key.

    >>> pair_group_id(["b", "a"]) == pair_group_id(["a", "b"])
    True
    >>> len(pair_group_id(["a", "b"]))
    12
    """
    return hashlib.sha1(group_key(deliverable_ids).encode("utf-8")).hexdigest()[:PAIR_GROUP_ID_LENGTH]


def manifest_lines(rows: Iterable[Mapping[str, str]]) -> list[str]:
    """Canonical JSON line of each row (seven fields in order), sorted by trajectory id."""
    lines = [
        json.dumps({name: row[name] for name in LABEL_FIELDS}, ensure_ascii=False, separators=(",", ":"))
        for row in sorted(rows, key=lambda row: row["trajectory_id"])
    ]
    return lines


def manifest_sha256(rows: Iterable[Mapping[str, str]]) -> str:
    """sha256 of the label manifest (the canonical lines, each ending in a newline); independent of row order and extra fields."""
    digest = hashlib.sha256()
    for line in manifest_lines(rows):
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()
