"""What a judge must not see, removed from the data it does see: hidden keys (:func:`strip_hidden`) and pairing ids (:func:`scrub_ids`).

Both serve :func:`agenthorizon.judging.inputs.build_judge_input`, the one
builder of blind judge inputs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

from agenthorizon.schema import HIDDEN_FIELDS

__all__ = ["HIDDEN_IN_JSON", "may_hold_hidden", "scrub_ids", "strip_hidden"]

_HIDDEN = frozenset(HIDDEN_FIELDS)
HIDDEN_IN_JSON = (*(f'"{name}"' for name in HIDDEN_FIELDS), "\\u")
"""How a hidden key looks inside JSON text; ``"\\u"`` because an escape can spell one."""

_SCALARS = frozenset({str, int, float, bool, type(None)})
_ID_FIELDS = ("steps_id", "instruction_id", "pair_group_id")


def strip_hidden(value: Any) -> Any:
    """Return a copy of ``value`` with every hidden key removed at any depth.

    Mappings lose the keys named in ``schema.HIDDEN_FIELDS``; lists and tuples
    are copied item by item (tuples stay tuples); other values are returned
    unchanged.

    >>> strip_hidden({"a": 1, "label": "positive", "b": [{"mistake_type": "x", "c": 2}]})
    {'a': 1, 'b': [{'c': 2}]}
    """
    kind = type(value)
    if kind in _SCALARS:  # the common case first: this runs for every step of every item
        return value
    if kind is dict or isinstance(value, Mapping):
        return {k: strip_hidden(v) for k, v in value.items() if k not in _HIDDEN}
    if isinstance(value, list):
        return [strip_hidden(v) for v in value]
    if isinstance(value, tuple):
        return tuple(strip_hidden(v) for v in value)
    return value


def may_hold_hidden(objects: Sequence[dict[str, Any]], text: str) -> bool:
    r"""False only when no mapping in ``objects``, at any depth, has a key of ``schema.HIDDEN_FIELDS``.

    ``objects`` were decoded from the JSON ``text`` (an array of them). With
    exactly one ``{`` per object no object nests another (a brace inside a
    string only adds one), so only their own keys are tested. Otherwise the
    text is searched for each hidden key in quotes and for ``\u`` (an escape
    can spell a key); a hit only means "strip to be sure".

    >>> may_hold_hidden([{"x": 1}, {"label": "a"}], '[{"x": 1}, {"label": "a"}]')
    True
    >>> may_hold_hidden([{"x": 1}, {"keys": ["a"]}], '[{"x": 1}, {"keys": ["a"]}]')
    False
    >>> may_hold_hidden([{"x": {"label": 1}}], '[{"x": {"label": 1}}]')
    True
    """
    if text.count("{") == len(objects):
        return not _HIDDEN.isdisjoint(chain.from_iterable(objects))
    return any(marker in text for marker in HIDDEN_IN_JSON)


def _replace_in_strings(value: Any, olds: Sequence[str], new: str) -> Any:
    """``value`` with every occurrence of each of ``olds`` in its strings (keys too) replaced by ``new``.

    >>> _replace_in_strings({"text": "see d-0001", "keys": ["d-0001"]}, ["d-0001"], "T")
    {'text': 'see T', 'keys': ['T']}
    """
    if isinstance(value, str):
        for old in olds:
            value = value.replace(old, new)
        return value
    if isinstance(value, Mapping):
        return {_replace_in_strings(k, olds, new): _replace_in_strings(v, olds, new) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_replace_in_strings(v, olds, new) for v in value)
    return value


def _may_mention(parameters: list[dict[str, Any]], text: str | None, values: Sequence[str]) -> bool:
    r"""False only when no string or key of ``parameters`` contains any of ``values``.

    Searches the JSON text the parameters were decoded from when it has no
    backslash (then every decoded string is spelt verbatim in it; keys removed
    as hidden can only give a harmless True), else one ``json.dumps`` of all
    parameters.

    >>> _may_mention([{"text": "see d-0001"}], '[{"text": "see d-0001"}]', ["d-0001"])
    True
    >>> _may_mention([{"text": "see d-0001"}], '[{"text": "see d-\\u0030001"}]', ["d-0001"])
    True
    >>> _may_mention([{"x": 1}], '[{"x": 1}]', ["d-0001"])
    False
    """
    if text is None or "\\" in text:
        text = json.dumps(parameters, ensure_ascii=False)
    return any(value in text for value in values)


def scrub_ids(
    row: Mapping[str, Any],
    trajectory_id: str,
    markdown: str,
    parameters: list[dict[str, Any]],
    parameters_text: str | None,
) -> tuple[str, list[dict[str, Any]]]:
    """``markdown`` and ``parameters`` with the row's pairing ids replaced by ``trajectory_id``.

    The ids are a full row's ``steps_id``, ``instruction_id`` and
    ``pair_group_id``; ids shorter than 8 characters are left alone (they
    would match ordinary text). ``parameters_text`` is the JSON text the
    parameters were decoded from, if any (a fast first search).

    >>> row = {"steps_id": "0123456789-abcdef"}
    >>> scrub_ids(row, "t1", "see 0123456789-abcdef", [{"path": "/x/0123456789-abcdef/a.png"}], None)
    ('see t1', [{'path': '/x/t1/a.png'}])
    """
    # dict.fromkeys: a positive's instruction id is often its steps id; search each id once
    values = (row.get(name) for name in _ID_FIELDS)
    known_ids = list(dict.fromkeys(v for v in values if isinstance(v, str) and len(v) >= 8))
    for value in known_ids:
        if value in markdown:
            markdown = markdown.replace(value, trajectory_id)
    if known_ids and _may_mention(parameters, parameters_text, known_ids):
        parameters = [_replace_in_strings(p, known_ids, trajectory_id) for p in parameters]
    return markdown, parameters
