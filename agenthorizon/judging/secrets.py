"""Secrets (API keys) the package must never write: registration, validation and scrubbing (:func:`scrub`).

Every written text goes through :func:`scrub`. See docs/security.md, "Secrets".
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Mapping
from urllib.parse import quote, quote_plus

__all__ = ["REDACTED", "check_secret", "is_secret_name", "register_environment", "register_secret",
           "representations", "scrub", "scrub_data"]

REDACTED = "[API key]"
# Shorter values are not secrets worth hunting (and would redact ordinary words).
_MIN_SECRET_LENGTH = 8
_secrets: set[str] = set()
# Every representation of every registered secret, longest first (so that a
# form containing another is replaced whole); rebuilt on registration only.
_forms: tuple[str, ...] = ()
_lock = threading.Lock()
# Parts of a variable's name that say its value is a secret (OPENAI_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY,
# PGPASSWORD, GOOGLE_APPLICATION_CREDENTIALS, GITHUB_PAT, a *_AUTH or a *_PRIVATE...).
_WORD = re.compile(r"[a-z][a-z_-]*")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|PRIVATE|(^|_)PAT($|_)",
                          re.IGNORECASE)


def check_secret(value: str, variable: str) -> None:
    """Raise ``ValueError`` when the secret in environment variable ``variable`` has whitespace or control characters.

    The message names the variable and the fix, never the value.

    >>> check_secret("sk-abc123", "OPENAI_API_KEY")
    >>> check_secret("sk-abc123\\n", "OPENAI_API_KEY")
    Traceback (most recent call last):
    ...
    ValueError: environment variable OPENAI_API_KEY holds an API key with whitespace or control characters (a trailing newline from a file or a \\r from a Windows-edited .env are common); remove them, e.g. export OPENAI_API_KEY="$(tr -d '[:space:]' < keyfile)"
    """
    if any(char.isspace() or not char.isprintable() for char in value):
        raise ValueError(
            f"environment variable {variable} holds an API key with whitespace or control characters "
            "(a trailing newline from a file or a \\r from a Windows-edited .env are common); remove them, "
            f"e.g. export {variable}=\"$(tr -d '[:space:]' < keyfile)\""
        )


def representations(secret: str) -> set[str]:
    """Every form in which ``secret`` may show up in text: raw, stripped, repr-, JSON- and percent-escaped.

    >>> forms = representations("sk-key/1\\n")
    >>> all(form in forms for form in ["sk-key/1\\n", "sk-key/1", "sk-key/1\\\\n", "sk-key%2F1%0A", "sk-key/1%0A"])
    True
    """
    forms = set()
    for value in {secret, secret.strip()}:
        if len(value) < _MIN_SECRET_LENGTH:
            continue
        forms |= {
            value,
            repr(value)[1:-1],
            json.dumps(value)[1:-1],
            json.dumps(value, ensure_ascii=False)[1:-1],
            quote(value, safe=""),
            quote(value),
            quote_plus(value),
        }
    return forms


def register_secret(secret: str | None) -> None:
    """Remember ``secret`` so that :func:`scrub` removes it from everything written from now on."""
    global _forms
    if secret and secret not in _secrets:
        with _lock:
            _secrets.add(secret)
            forms = set().union(*(representations(s) for s in _secrets))
            _forms = tuple(sorted(forms, key=len, reverse=True))


def is_secret_name(name: str) -> bool:
    """Whether the variable ``name`` looks like it holds a secret (``KEY``, ``TOKEN``, ``SECRET``... in it).

    >>> [is_secret_name(n) for n in ("OPENAI_API_KEY", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "GITHUB_PAT", "PATH")]
    [True, True, True, True, False]
    """
    return bool(_SECRET_NAME.search(name))


def _secret_like(value: str) -> bool:
    return len(value) >= _MIN_SECRET_LENGTH and not value.startswith("/") and not _WORD.fullmatch(value)


def register_environment(environ: Mapping[str, str]) -> list[str]:
    """Register the value of every secret-looking variable of ``environ`` (:func:`is_secret_name`); their names, sorted.

    Values shorter than 8 characters, a path (``/...``) or a lowercase word are
    settings, not secrets: scrubbing them would redact ordinary text.

    >>> register_environment({"HF_TOKEN": "hf_doctest_0123", "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
    ...                       "PIP_KEYRING_PROVIDER": "disabled", "PATH": "/usr/bin:/bin"})
    ['HF_TOKEN']
    """
    names = sorted(name for name, value in environ.items()
                   if is_secret_name(name) and isinstance(value, str) and _secret_like(value.strip()))
    for name in names:
        register_secret(environ[name])
    return names


def scrub(text: str) -> str:
    """``text`` with every representation of every registered secret replaced by ``[API key]``.

    >>> register_secret("sk-doctest-key/1")
    >>> scrub("401: bad key 'sk-doctest-key/1' (sk-doctest-key%2F1)")
    "401: bad key '[API key]' ([API key])"
    """
    if not _forms or not isinstance(text, str):
        return text
    for form in _forms:
        if form in text:
            text = text.replace(form, REDACTED)
    return text


def scrub_data(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with :func:`scrub` applied to every string in it."""
    if not _forms:
        return value
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub(k) if isinstance(k, str) else k: scrub_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_data(v) for v in value]
    return value
