"""Judge output text -> :class:`Verdict` with a parse status (:func:`parse_verdict`).

A judge answers with a JSON object such as
``{"success": false, "mistake_type": "Bad Side Effect", "confidence": "high", "reasoning": "..."}``.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

from agenthorizon.schema import (
    CONFIDENCE_VALUES,
    PARSE_STATUSES,
    STATUS_ERROR,
    STATUS_MALFORMED_JSON,
    STATUS_MISSING,
    STATUS_MISSING_SUCCESS,
    STATUS_NO_JSON,
    STATUS_NON_BOOLEAN,
    STATUS_OK,
    canonical_mistake_type,
)

__all__ = ["Verdict", "loads_with_success_key", "parse_verdict"]

SUCCESS_KEY = "success"


@dataclass(frozen=True)
class Verdict:
    """A judge's verdict on one trajectory, with how it was parsed.

    Attributes
    ----------
    success : bool or None
        Whether the judge says the trajectory accomplishes the instruction;
        ``None`` when no valid Boolean was found (then ``status`` is not ``"ok"``).
    mistake_type : str or None
        The canonical spelling (``schema.MISTAKE_TYPES``) of a known type in
        any accepted spelling, otherwise the judge's raw text; ``None`` when
        absent, null or empty.
    confidence : str or None
        ``"low"``, ``"medium"`` or ``"high"`` (case-normalised) when the judge
        gave one of those, otherwise its raw value as text; ``None`` when absent.
    reasoning : str or None
        The judge's reasoning; ``None`` when absent.
    status : str
        One of ``schema.PARSE_STATUSES``; anything but ``"ok"`` is an invalid
        prediction (scored as incorrect, never removed from a denominator).
    detail : str or None
        A human-readable explanation when ``status`` is not ``"ok"``.

    >>> v = Verdict(success=True, status="ok")
    >>> v.is_valid, v.to_dict()
    (True, {'success': True, 'mistake_type': None, 'confidence': None, 'reasoning': None})
    """

    success: bool | None = None
    mistake_type: str | None = None
    confidence: str | None = None
    reasoning: str | None = None
    status: str = STATUS_MISSING
    detail: str | None = None

    def __post_init__(self) -> None:
        if self.status not in PARSE_STATUSES:
            raise ValueError(f"Verdict status {self.status!r} is not one of {PARSE_STATUSES}")
        if self.status == STATUS_OK and not isinstance(self.success, bool):
            raise ValueError(f"an 'ok' Verdict needs a Boolean success, got {self.success!r}")

    @property
    def is_valid(self) -> bool:
        """True when the verdict parsed with status ``"ok"`` (a Boolean success)."""
        return self.status == STATUS_OK

    def to_dict(self) -> dict[str, Any]:
        """The verdict fields as stored in a result file's ``"verdict"`` object."""
        return {
            "success": self.success,
            "mistake_type": self.mistake_type,
            "confidence": self.confidence,
            "reasoning": self.reasoning,
        }

    @classmethod
    def error(cls, message: str) -> "Verdict":
        """The verdict of a judge that failed (exception, timeout, HTTP error)."""
        return cls(status=STATUS_ERROR, detail=message)


def parse_verdict(text: object) -> Verdict:
    """Parse a judge's answer into a :class:`Verdict`; never raises, linear in ``len(text)``.

    The verdict is the last top-level JSON object that has a ``"success"``
    key, wherever it stands (alone, after prose, in a Markdown fence); an
    object nested in another parsed object is never taken for it. Prose
    before the first ``{`` never changes the result. Typing is strict:
    ``"true"``, ``1`` and ``null`` are not Booleans.

    ``text`` may be str, bytes (UTF-8, invalid bytes replaced), an already parsed
    mapping, or anything else (parsed as its ``str()``). ``status`` is one of
    ``schema.PARSE_STATUSES``:

    - ``ok``: a verdict object whose ``success`` is ``true`` or ``false``;
    - ``missing``: no text (``None``, empty or white space);
    - ``no_json``: no JSON object (a bare array, number, string or ``true`` included);
    - ``malformed_json``: a ``{`` before a ``"success":`` key that does not parse
      (e.g. truncated output);
    - ``missing_success``: top-level objects, none with ``"success"``;
    - ``non_boolean``: ``success`` present but not a Boolean.

    (``error`` marks a judge that failed, :meth:`Verdict.error`.) Any status but
    ``ok`` is an invalid prediction, scored as incorrect; ``detail`` explains it.

    >>> parse_verdict('Looks done. {"success": true, "confidence": "High"}').confidence
    'high'
    >>> parse_verdict('```json\\n{"success": "false"}\\n```').status
    'non_boolean'
    >>> parse_verdict('{"success": false, "mistake_type": "misunderstanding of the instruction"}').mistake_type
    'Misunderstanding of the Instructions'
    >>> parse_verdict("I think it failed.").status
    'no_json'
    >>> [parse_verdict(p + '{"verdict": {"success": false}}').status for p in ("", "Result: ")]
    ['missing_success', 'missing_success']
    """
    try:
        return _parse(text)
    except Exception as error:  # noqa: BLE001 - the contract is "never raises"
        # A parser bug, not the judge's: make the item visibly invalid rather than crash a sweep.
        return Verdict(status=STATUS_MALFORMED_JSON, detail=f"parser error: {error!r}")


_FAILED = object()
# Characters that change the state of the brace scan; the regex skips the rest in C.
_SCAN_CHARS = re.compile(r'[{}"\\\n]')
_SUCCESS_TOKEN = '"success"'
# "Looks like the verdict": a success key, quoted or not, followed by a colon.
_SUCCESS_KEY_LIKE = re.compile(r"""["']?\bsuccess\b["']?\s*[:=]""", re.IGNORECASE)
# The anchored fallback tries the last few "success" keys and the nearest braces
# before each: bounded, so it stays linear.
_ANCHOR_KEYS = 4
_ANCHOR_BRACES = 64

# Caps on parse attempts in the brace scan: the verdict is normally among the last few objects.
_MAX_CANDIDATES = 512
_MAX_EVIDENCE_ATTEMPTS = 64
# A JSON object starts with "{" then optional white space then a key or "}".
_OBJECT_START = re.compile(r"\{\s*[\"}]")

_DECODER = json.JSONDecoder()


class _Budget:
    """Characters that JSON parse attempts may still read (linear-time guard)."""

    def __init__(self, text_length: int) -> None:
        self.left = 8 * text_length + 100_000

    def loads(self, fragment: str) -> Any:
        if len(fragment) > self.left:
            return _FAILED
        self.left -= len(fragment)
        try:
            return json.loads(fragment)
        except (ValueError, RecursionError):
            return _FAILED

    def raw_decode(self, text: str, start: int) -> tuple[Any, int]:
        if self.left <= 0:
            return _FAILED, start
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as error:
            self.left -= max(1, error.pos - start)
            return _FAILED, start
        except (ValueError, RecursionError):
            self.left -= len(text) - start
            return _FAILED, start
        self.left -= end - start
        return value, end


class _Evidence:
    """What the search saw, to explain an invalid answer with the right status."""

    def __init__(self) -> None:
        self.object_without_success = False
        self.not_object: str | None = None  # what a whole answer that is JSON but no object was (detail only)
        self.parsed: list[tuple[int, int]] = []  # the top-level objects that parsed (disjoint spans)


def _parse(text: object) -> Verdict:
    if text is None:
        return Verdict(status=STATUS_MISSING, detail="no output")
    if isinstance(text, Mapping):
        return _type_verdict(text, "the given mapping")
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = str(text)
    stripped = text.strip().lstrip("\ufeff").strip()
    if not stripped:
        return Verdict(status=STATUS_MISSING, detail="empty output")

    # Everything, the parse budget included, is decided from the first "{" on.
    first_brace = text.find("{")
    budget = _Budget(len(text) - max(first_brace, 0))
    evidence = _Evidence()

    # The whole answer as one JSON value: a fast path, and the detail of a value that is no object.
    if stripped[0] in "{[\"-0123456789tfn":
        whole = budget.loads(stripped)
        if isinstance(whole, dict):
            return _type_verdict(whole, "the answer")
        if whole is not _FAILED:
            evidence.not_object = f"the answer is a JSON {_json_kind(whole)}, not an object with 'success'"

    found = _from_balanced_objects(text, budget, evidence) if first_brace >= 0 else None
    if found is not None:
        return _type_verdict(found, "the last JSON object with 'success'")

    if _looks_like_verdict(text, evidence.parsed):
        return Verdict(
            status=STATUS_MALFORMED_JSON,
            detail="found a 'success' key after '{' but no complete JSON object around it "
            "(truncated or invalid JSON)",
        )
    if evidence.object_without_success:
        return Verdict(
            status=STATUS_MISSING_SUCCESS,
            detail="found JSON objects, none with a 'success' key",
        )
    return Verdict(status=STATUS_NO_JSON, detail=evidence.not_object or "no JSON object in the output")


def _balanced_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every balanced ``{...}`` span, ordered by end position.

    Braces inside JSON strings are ignored, backslash escapes honoured.
    Quotes count only inside an open brace, so quotes in prose do not flip
    the string state; a raw newline (never inside a JSON string) ends one.
    """
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    in_string = False
    escaped_at = -1
    for match in _SCAN_CHARS.finditer(text):
        position = match.start()
        char = text[position]
        if position == escaped_at:
            continue
        if in_string:
            if char == "\\":
                escaped_at = position + 1
            elif char == '"' or char == "\n":
                in_string = False
            continue
        if char == "{":
            stack.append(position)
        elif char == "}":
            if stack:
                spans.append((stack.pop(), position + 1))
        elif char == '"' and stack:
            in_string = True
    return spans


def _from_balanced_objects(text: str, budget: _Budget, evidence: _Evidence) -> dict | None:
    """The last top-level object with ``success`` (see :func:`parse_verdict`), or ``None``."""
    token_positions = [m.start() for m in re.finditer(re.escape(_SUCCESS_TOKEN), text)]
    spans = _balanced_spans(text)
    # Walking the spans backwards visits an enclosing object before its nested ones. Objects
    # that parsed are disjoint: a later span is inside one only if it is inside the last one.
    parsed = evidence.parsed
    candidates_left = _MAX_CANDIDATES
    evidence_attempts_left = _MAX_EVIDENCE_ATTEMPTS
    for start, end in reversed(spans):
        if parsed and start > parsed[-1][0]:
            continue  # nested in an object already read: never the verdict on its own
        if not _OBJECT_START.match(text, start):
            continue  # "{x}", "{{": cannot be a JSON object, skip without parsing
        index = bisect.bisect_left(token_positions, start)
        holds_token = index < len(token_positions) and token_positions[index] < end
        if not holds_token:
            if evidence_attempts_left > 0:
                evidence_attempts_left -= 1
                value = budget.loads(text[start:end])
                if isinstance(value, dict):
                    parsed.append((start, end))
                    if SUCCESS_KEY in value:  # the key spelt with an escape, "\u0073uccess"
                        return value
                    evidence.object_without_success = True
            continue
        if candidates_left <= 0:
            break
        candidates_left -= 1
        value = budget.loads(text[start:end])
        if isinstance(value, dict):
            parsed.append((start, end))
            if SUCCESS_KEY in value:
                return value
            evidence.object_without_success = True
    # Unbalanced quotes in prose inside a stray brace can mislead the scan; anchor on the
    # last "success" keys and try the braces just before.
    for token in reversed(token_positions[-_ANCHOR_KEYS:]):
        brace = token
        for _ in range(_ANCHOR_BRACES):
            brace = text.rfind("{", 0, brace)
            if brace < 0:
                break
            if any(start < brace < end for start, end in parsed):
                continue  # inside an object already read
            value, end = budget.raw_decode(text, brace)
            if value is _FAILED:
                continue
            if isinstance(value, dict) and end > token and SUCCESS_KEY in value:
                return value
    return None


def _looks_like_verdict(text: str, parsed: list[tuple[int, int]]) -> bool:
    """Whether a success-like key follows a ``{`` outside every object that parsed (``parsed``: disjoint spans)."""
    first_brace = text.find("{")
    if first_brace < 0:
        return False
    spans = sorted(parsed)
    starts = [start for start, _ in spans]
    for match in _SUCCESS_KEY_LIKE.finditer(text, first_brace):
        index = bisect.bisect_right(starts, match.start()) - 1
        if index < 0 or match.start() >= spans[index][1]:
            return True  # not inside a parsed object: a verdict that did not parse
    return False


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return type(value).__name__


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _type_verdict(obj: Mapping[Any, Any], where: str) -> Verdict:
    """Strictly type a verdict object."""
    mistake_raw = obj.get("mistake_type")
    mistake_text = _as_text(mistake_raw)
    if mistake_text is not None and not mistake_text.strip():
        mistake_text = None  # "" is how the release spells "no type"
    mistake_type = canonical_mistake_type(mistake_text) or mistake_text

    confidence = _as_text(obj.get("confidence"))
    if confidence is not None and confidence.strip().lower() in CONFIDENCE_VALUES:
        confidence = confidence.strip().lower()

    fields = {
        "mistake_type": mistake_type,
        "confidence": confidence,
        "reasoning": _as_text(obj.get("reasoning")),
    }
    if SUCCESS_KEY not in obj:
        return Verdict(
            status=STATUS_MISSING_SUCCESS,
            detail=f"{where} is a JSON object without a 'success' key",
            **fields,
        )
    success = obj[SUCCESS_KEY]
    if not isinstance(success, bool):
        return Verdict(
            status=STATUS_NON_BOOLEAN,
            detail=f"'success' in {where} is {(_as_text(success) or 'null')[:80]!s} "
            f"(a {_json_kind(success)}), expected true or false",
            **fields,
        )
    return Verdict(success=success, status=STATUS_OK, **fields)


# An answer wrapped whole in one Markdown code fence: ```json ... ``` (the language tag optional).
_WHOLE_FENCE = re.compile(r"\A```[^\n`]*\n(.*?)\n?```\Z", re.DOTALL)


def loads_with_success_key(text: str) -> bool:
    r"""Whether the whole answer, code fences stripped, loads as a JSON object holding ``success``.

    The benchmark authors' test for asking again (``--reask-when no-success-key``):
    the value of ``success`` does not matter (``"yes"`` passes), prose around
    the JSON fails. Surrounding white space and one fence around the whole
    answer are ignored. Never raises.

    >>> loads_with_success_key('```json\n{"success": "yes"}\n```')
    True
    >>> loads_with_success_key('The agent failed. {"success": false}')
    False
    """
    body = text.strip()
    fenced = _WHOLE_FENCE.match(body)
    if fenced is not None:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and SUCCESS_KEY in value
