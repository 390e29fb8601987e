"""Judges that need no model: :class:`ConstantJudge`, :class:`RandomJudge`, :class:`LexicalJudge`.

Reference points every real judge must beat. Each answers JSON text through the
same verdict parser, at ``cost_usd`` 0.0 (a ``--max-cost`` run never stops).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenthorizon.judging.judges.base import BaseJudge, JudgeOutput
from agenthorizon.schema import BAD_SIDE_EFFECT, CONFIDENCE_VALUES, CRITICAL_MISTAKE, MISTAKE_TYPES, MISUNDERSTANDING

if TYPE_CHECKING:
    from agenthorizon.judging.inputs import JudgeInput

__all__ = ["ConstantJudge", "RandomJudge", "LexicalJudge", "Term", "extract_terms"]


def _verdict_text(success: bool, reasoning: str, confidence: str | None, mistake_type: str | None) -> str:
    payload: dict[str, Any] = {"success": success, "reasoning": reasoning}
    if confidence is not None:
        payload["confidence"] = confidence
    payload["mistake_type"] = None if success else mistake_type
    return json.dumps(payload, ensure_ascii=False)


class ConstantJudge(BaseJudge):
    """Always the same verdict: ``success`` for every item (``mistake_type`` null).

    Its balanced accuracy is exactly 0.5 on any set with both labels.

    >>> ConstantJudge(False).spec()["spec"]
    'constant:false'
    """

    name = "constant"
    reports_cost = True

    def __init__(self, success: bool = True) -> None:
        if not isinstance(success, bool):
            raise ValueError(f"constant judge: success must be true or false, got {success!r}")
        self.success = success

    def judge(self, judge_input: JudgeInput) -> JudgeOutput:
        text = _verdict_text(self.success, "constant baseline: the same answer for every item", "low", None)
        return JudgeOutput(text=text, latency_s=0.0, cost_usd=0.0)

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "spec": f"constant:{str(self.success).lower()}", "success": self.success}


class RandomJudge(BaseJudge):
    """A seeded coin per item: success with probability ``p_success``.

    The draw depends on ``(seed, trajectory_id)`` alone, so reruns, shards and
    resumed runs agree whatever the order. Rejections name a mistake type drawn uniformly.
    """

    name = "random"
    reports_cost = True

    def __init__(self, seed: int = 0, p_success: float = 0.5) -> None:
        if not 0.0 <= p_success <= 1.0:
            raise ValueError(f"random judge: p_success must be within [0, 1], got {p_success!r}")
        self.seed = int(seed)
        self.p_success = float(p_success)

    def _rng(self, trajectory_id: str) -> random.Random:
        digest = hashlib.sha256(f"{self.seed}\x00{trajectory_id}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def judge(self, judge_input: JudgeInput) -> JudgeOutput:
        rng = self._rng(judge_input.trajectory_id)
        success = rng.random() < self.p_success
        confidence = rng.choice(CONFIDENCE_VALUES)
        mistake_type = rng.choice(MISTAKE_TYPES)
        text = _verdict_text(success, f"random baseline (seed {self.seed})", confidence, mistake_type)
        return JudgeOutput(text=text, latency_s=0.0, cost_usd=0.0)

    def spec(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spec": f"random:{self.seed}",
            "seed": self.seed,
            "p_success": self.p_success,
        }


# --- lexical consistency ------------------------------------------------------------

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_DATE_PATTERNS = [
    re.compile(r"\b(?P<year>\d{4})-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})\b"),
    re.compile(r"\b(?P<mnum>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{2,4})\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+(?P<year>\d{{4}}))?\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+(?P<year>\d{{4}}))?\b", re.IGNORECASE),
]
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(r"\"([^\"\n]{1,200})\"|“([^”\n]{1,200})”|‘([^’\n]{1,200})’|(?<!\w)'([^'\n]{1,200})'(?!\w)|`([^`\n]{1,200})`")
_EXTENSIONS = (
    "png jpg jpeg gif bmp svg tif tiff webp pdf doc docx xls xlsx csv tsv txt md rtf ppt pptx odt ods odp "
    "json xml yaml yml html htm css js ts py ipynb r sql zip tar gz mp3 mp4 wav mov avi mkv psd xcf tex"
).split()
_FORMAT_ALIASES = {"jpeg": "jpg", "tif": "tiff", "htm": "html", "yml": "yaml"}
_FILE = re.compile(r"(?<![\w/\\.-])[\w-]+(?:\.[\w-]+)*?\.(?:" + "|".join(_EXTENSIONS) + r")\b", re.IGNORECASE)
_FORMAT = re.compile(r"\b(" + "|".join(_EXTENSIONS) + r")\b", re.IGNORECASE)
_TIME = re.compile(r"(?<![\w:])\d{1,2}:\d{2}(?::\d{2})?(?![\w:])")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:,\d{3})*(?:\.\d+)?%?(?!\w)")
_IDENTIFIER = re.compile(r"(?<![\w-])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+(?![\w-])")
_NAME = re.compile(r"\b[A-Z][\w&'-]*(?:[ \t]+(?:(?:of|the|and|de|van|von)[ \t]+)?[A-Z][\w&'-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n)$")
_COMMON_CAPITALISED = frozenset(
    "a an the in on at to of for and or but with from by into onto then open save create use make add set "
    "go find select click type send write edit change update delete remove rename move copy export import "
    "please also after before when if i it this that these those my your our their dear hello hi".split()
)

_WEIGHTS = {
    "email": 3.0, "quoted": 3.0, "file": 3.0, "date": 3.0, "time": 2.0, "number": 2.0,
    "format": 2.0, "identifier": 2.0, "name": 1.0,
}
# The mistake type a contradicted detail of each kind means: a wrong parameter
# is a small fix; a wrong entity (name, title, date, recipient) misses the goal.
_KIND_MISTAKE = {
    "format": MISUNDERSTANDING,
    "file": MISUNDERSTANDING,
    "number": MISUNDERSTANDING,
    "time": MISUNDERSTANDING,
    "identifier": MISUNDERSTANDING,
    "name": CRITICAL_MISTAKE,
    "quoted": CRITICAL_MISTAKE,
    "date": CRITICAL_MISTAKE,
    "email": CRITICAL_MISTAKE,
}
# Kinds whose competitors are looked up together (a quoted title vs a typed proper name).
_POOL = {"quoted": "entity", "name": "entity"}


@dataclass(frozen=True)
class Term:
    """A concrete detail of an instruction: its kind, its surface text, its match key."""

    kind: str
    text: str
    key: Any


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower())


def _number_key(text: str) -> str:
    text = text.replace(",", "").lstrip("+")
    percent = text.endswith("%")
    text = text.rstrip("%")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + ("%" if percent else "")


def _dates(text: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(span, (month, day)) of each date in ``text``."""
    found = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            groups = match.groupdict()
            month = int(groups["mnum"]) if groups.get("mnum") else _MONTHS[groups["month"].lower().rstrip(".")]
            day = int(groups["day"])
            if 1 <= month <= 12 and 1 <= day <= 31:
                found.append((match.span(), (month, day)))
    return found


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def extract_terms(text: str) -> list[Term]:
    """The concrete, checkable details of a text, in order of discovery.

    Kinds: ``email``, ``quoted``, ``file``, ``date`` (key: (month, day)),
    ``time`` (hh:mm[:ss]), ``format`` (an upper-case format word such as PNG),
    ``number`` (key: normalised digits), ``identifier`` (words joined by ``-``
    or ``_`` such as ``venv-reports``) and ``name`` (capitalised words not
    opening a sentence). A span claimed by an earlier kind is not reused by a
    later one, so the 1 of "November 1" is a date, not a number.

    >>> [(t.kind, t.text) for t in extract_terms('Email "Q3 plan.pdf" to ann@x.org by November 1, as PNG')]
    [('email', 'ann@x.org'), ('quoted', 'Q3 plan.pdf'), ('date', 'November 1'), ('format', 'PNG')]
    """
    terms: list[Term] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, span: tuple[int, int], surface: str, key: Any) -> None:
        if _overlaps(span, taken) or not surface.strip():
            return
        taken.append(span)
        if all(t.key != key or t.kind != kind for t in terms):
            terms.append(Term(kind, surface, key))

    for match in _EMAIL.finditer(text):
        add("email", match.span(), match.group(0), _norm(match.group(0)))
    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g is not None)
        add("quoted", match.span(), inner, _norm(inner))
    for match in _FILE.finditer(text):
        add("file", match.span(), match.group(0), _norm(match.group(0)))
    for span, key in _dates(text):
        add("date", span, text[span[0] : span[1]], key)
    for match in _TIME.finditer(text):
        add("time", match.span(), match.group(0), match.group(0))
    for match in _FORMAT.finditer(text):
        word = match.group(1)
        if word.isupper() and len(word) >= 2:
            add("format", match.span(), word, _FORMAT_ALIASES.get(word.lower(), word.lower()))
    for match in _NUMBER.finditer(text):
        add("number", match.span(), match.group(0), _number_key(match.group(0)))
    for match in _IDENTIFIER.finditer(text):
        if any(c.isdigit() for c in match.group(0)) and not any(c.isalpha() for c in match.group(0)):
            continue  # 2024-11 and similar are numbers, not names
        add("identifier", match.span(), match.group(0), _norm(match.group(0)))
    for match in _NAME.finditer(text):
        surface = match.group(0).strip()
        words = surface.split()
        if _SENTENCE_START.search(text[: match.start()]):
            words = words[1:]  # the first word is capitalised for grammar, not as a name
        words = [w for w in words if not (w.isupper() and len(w) > 1)]  # SQL keywords, acronyms
        if not words or (len(words) == 1 and (words[0].lower() in _COMMON_CAPITALISED or len(words[0]) < 3)):
            continue
        surface = " ".join(words)
        add("name", match.span(), surface, _norm(surface))
    return terms


def _format_words(text: str) -> set[str]:
    """Every file-format word in ``text`` (extensions included), aliases folded."""
    return {_FORMAT_ALIASES.get(w.lower(), w.lower()) for w in _FORMAT.findall(text)}


class LexicalJudge(BaseJudge):
    """Instruction-trajectory consistency from the text alone, no model.

    Negatives execute a sibling instruction that differs in one detail, so the
    sign is a *contradiction*: an instruction detail (:func:`extract_terms`)
    the agent did not type while it typed another value of the same kind. An
    absent detail may have been clicked, so it is not held against it.

    Evidence is the typed text, the keys pressed and the Markdown's steps
    (never its Goal section). Names of the task's applications are not
    details. Strings match case-insensitively, numbers and dates by value
    ("November 1" is not "November 11").

    Rejects when a detail is contradicted or the agent typed an e-mail address
    the instruction does not mention (a side effect). Confidence counts the
    evidence (contradictions and extra addresses; found details when accepting):
    ``high`` for 2 or more, ``medium`` for 1, else ``low``.
    """

    name = "lexical"
    reports_cost = True

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.name}

    @staticmethod
    def evidence(judge_input: JudgeInput) -> str:
        """What the trajectory shows in text: typed text, key presses, the Markdown's steps (none when the actions are ablated)."""
        parts = list(judge_input.typed_text())
        for step in judge_input.steps:
            parameters = step.get("action", {}).get("parameters", {})
            for key in ("keys", "key"):
                value = parameters.get(key)
                if isinstance(value, list):
                    parts.append(" ".join(str(v) for v in value))
                elif isinstance(value, str):
                    parts.append(value)
        markdown = judge_input.markdown
        cut = markdown.find("## Steps")
        parts.append(markdown[cut:] if cut >= 0 else "")
        return "\n".join(parts)

    def judge(self, judge_input: JudgeInput) -> JudgeOutput:
        started = time.perf_counter()
        reading = _Reading.of(judge_input, self.evidence(judge_input))
        found, absent, contradicted = reading.classify()
        extra_emails = reading.extra_emails()
        success = not contradicted and not extra_emails
        evidence_count = len(contradicted) + len(extra_emails) if not success else len(found)
        confidence = "high" if evidence_count >= 2 else "medium" if evidence_count == 1 else "low"
        mistake_type = None if success else _mistake_type(contradicted, extra_emails)
        reasoning = _reasoning(reading.terms, found, absent, contradicted, extra_emails)
        text = _verdict_text(success, reasoning, confidence, mistake_type)
        return JudgeOutput(text=text, latency_s=time.perf_counter() - started, cost_usd=0.0)


@dataclass(frozen=True)
class _Reading:
    """One item as the lexical judge reads it: the instruction's details and what the agent typed."""

    instruction: str
    terms: list[Term]  # checkable details of the instruction (the task's own applications left out)
    typed: str  # every typed text, one per line
    typed_terms: list[Term]
    evidence: str  # normalised typed text, key presses and the Markdown's steps

    @classmethod
    def of(cls, judge_input: JudgeInput, evidence: str) -> _Reading:
        applications = [_norm(a) for a in (judge_input.task.get("applications") or [])]

        def is_application(term: Term) -> bool:
            return term.kind == "name" and any(term.key in app or app in term.key for app in applications)

        typed = "\n".join(judge_input.typed_text())
        return cls(
            instruction=judge_input.instruction,
            terms=[t for t in extract_terms(judge_input.instruction) if not is_application(t)],
            typed=typed,
            typed_terms=[t for t in extract_terms(typed) if not is_application(t)],
            evidence=_norm(evidence),
        )

    def present(self, term: Term) -> bool:
        """Whether the trajectory shows ``term``: by value for dates, numbers and times; as text otherwise."""
        if term.kind in ("date", "number", "time"):
            return any(t.kind == term.kind and t.key == term.key for t in self.typed_terms)
        if term.kind == "format":
            return term.key in _format_words(self.typed) or term.key in _format_words(self.evidence)
        return term.key in self.evidence

    def competitors(self, term: Term) -> list[str]:
        """Values of the same kind the agent typed that the instruction never mentions."""
        if term.kind == "format":
            return sorted(_format_words(self.typed) - _format_words(self.instruction))
        instruction_lower = _norm(self.instruction)
        pool = _POOL.get(term.kind, term.kind)
        found = []
        for other in self.typed_terms:
            if _POOL.get(other.kind, other.kind) != pool:
                continue
            if term.kind == "file" and other.key.rsplit(".", 1)[-1] != term.key.rsplit(".", 1)[-1]:
                continue
            if term.kind == "identifier" and ("_" in other.key) != ("_" in term.key):
                continue
            if isinstance(other.key, str) and other.key in instruction_lower:
                continue
            if other.kind in ("date", "number", "time") and any(
                t.kind == other.kind and t.key == other.key for t in self.terms
            ):
                continue
            found.append(other.text)
        return found

    def classify(self) -> tuple[list[Term], list[Term], list[tuple[Term, list[str]]]]:
        """The instruction's details split into found, absent (maybe clicked) and contradicted (with rivals)."""
        found, absent, contradicted = [], [], []
        for term in self.terms:
            if self.present(term):
                found.append(term)
                continue
            rivals = self.competitors(term)
            if rivals:
                contradicted.append((term, rivals))
            else:
                absent.append(term)
        return found, absent, contradicted

    def extra_emails(self) -> list[str]:
        """E-mail addresses the agent typed that the instruction does not mention (an extra recipient)."""
        mentioned = {_norm(m.group(0)) for m in _EMAIL.finditer(self.instruction)}
        return sorted({_norm(m.group(0)) for m in _EMAIL.finditer(self.typed)} - mentioned)


def _mistake_type(contradicted: list[tuple[Term, list[str]]], extra_emails: list[str]) -> str:
    """An extra recipient is a side effect; otherwise the type whose contradicted details weigh most."""
    if extra_emails:
        return BAD_SIDE_EFFECT
    weight_by_type: dict[str, float] = {}
    for term, _ in contradicted:
        kind_type = _KIND_MISTAKE[term.kind]
        weight_by_type[kind_type] = weight_by_type.get(kind_type, 0.0) + _WEIGHTS[term.kind]
    return max(weight_by_type, key=weight_by_type.get)


def _reasoning(
    terms: list[Term],
    found: list[Term],
    absent: list[Term],
    contradicted: list[tuple[Term, list[str]]],
    extra_emails: list[str],
) -> str:
    """The verdict's reasoning: what was found, not typed, contradicted, and extra addresses."""

    def listing(items: list[Term]) -> str:
        return ", ".join(f"{t.kind} {t.text!r}" for t in items) or "none"

    if not terms and not extra_emails:
        return "The instruction has no checkable detail (quotes, names, numbers, dates, files); accepting."
    reasoning = (
        f"Of {len(terms)} instruction details, found in the typed text and actions: {listing(found)}; "
        f"not typed (possibly clicked): {listing(absent)}; "
        "contradicted: "
        + (
            "; ".join(f"{t.kind} {t.text!r} missing while {', '.join(repr(r) for r in rivals[:3])} was typed"
                      for t, rivals in contradicted)
            or "none"
        )
        + "."
    )
    if extra_emails:
        reasoning += f" Typed e-mail address(es) not in the instruction: {', '.join(extra_emails)}."
    return reasoning
