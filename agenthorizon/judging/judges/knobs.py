"""Knobs: one declaration per judge setting, from which its other spellings are made.

A knob is a settings-dataclass field declared with :func:`knob`: its default,
option name (``make_judge``'s keyword, a preset's key), command-line flag,
Inspect task parameter and run-record path. The CLI flags (:func:`add_flags`),
the Inspect parameters and the run.json keys are all read from these declarations.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo:
...     temperature: float = knob(0.0, flag="--temperature", help="sampling temperature", record=("sampling", "temperature"))
>>> [(k.option, k.flag, k.dest, k.record) for k in knobs(Demo)]
[('temperature', '--temperature', 'temperature', ('sampling', 'temperature'))]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

__all__ = ["CLI_MODEL", "CLI_RUN", "Knob", "add_flags", "json_object", "knob", "knobs", "record_value"]

CLI_MODEL = "model"
"""The flag is made in the command line's model-judge group from the declaration."""
CLI_RUN = "run"
"""The flag is the command line's own, for every judge kind (``--timeout``, ``--retries``, ``--prompt``,
``--max-output-bytes``): declared there with a default and help that cover command judges too."""

_MISSING = dataclasses.MISSING


@dataclass(frozen=True)
class Knob:
    """One setting's spellings besides its field: option name, flag, Inspect parameter, run-record path.

    ``option`` defaults to the field's name; ``record`` is a key path into
    the judge's ``spec()``. ``field`` and ``default`` are filled in by :func:`knobs`.
    """

    option: str = ""
    flag: str | None = None
    help: str | None = None
    metavar: str | None = None
    type: Callable[[str], Any] | None = None
    choices: tuple[Any, ...] | None = None
    action: str | None = None
    cli: str = CLI_MODEL
    inspect: bool = False
    record: tuple[str, ...] | None = None
    field: str = ""
    default: Any = None

    @property
    def dest(self) -> str | None:
        """The flag's argparse destination, which is also the Inspect parameter's name (``--jpeg-quality``: ``jpeg_quality``)."""
        return None if self.flag is None else self.flag.lstrip("-").replace("-", "_")

    def argparse_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``add_argument`` for this knob's flag (no default: unset means the judge's)."""
        kwargs: dict[str, Any] = {"help": self.help}
        if self.action is not None:
            kwargs.update(action=self.action, default=None)
        else:
            kwargs.update({k: v for k, v in (("type", self.type), ("choices", self.choices), ("metavar", self.metavar))
                           if v is not None})
        return kwargs


def knob(default: Any = _MISSING, *, default_factory: Any = _MISSING, **declaration: Any) -> Any:
    """A dataclass field that declares a knob (the keywords of :class:`Knob`)."""
    marker = Knob(**declaration)
    if default_factory is not _MISSING:
        return dataclasses.field(default_factory=default_factory, metadata={"knob": marker})
    return dataclasses.field(default=default, metadata={"knob": marker})


def knobs(*classes: type) -> list[Knob]:
    """The knobs of settings dataclasses, in declaration order, each with its field name and default.

    Fields declared without :func:`knob` are left out.
    """
    found = []
    for cls in classes:
        for item in dataclasses.fields(cls):
            marker = item.metadata.get("knob")
            if marker is None:
                continue
            default = item.default_factory() if item.default_factory is not _MISSING else item.default
            found.append(dataclasses.replace(marker, option=marker.option or item.name, field=item.name, default=default))
    return found


def add_flags(group: Any, declared: Iterable[Knob], cli: str = CLI_MODEL) -> None:
    """Add the flag of each knob of ``declared`` made in the ``cli`` group to an argparse parser or group."""
    for item in declared:
        if item.flag is not None and item.cli == cli:
            group.add_argument(item.flag, **item.argparse_kwargs())


def record_value(record: Mapping[str, Any], item: Knob) -> Any:
    """The knob's value as a run record (a judge's ``spec()``) holds it; its default when the record leaves it out.

    Records leave a setting out while it has its default, so that earlier runs' judge keys stay the same.

    >>> record_value({"sampling": {"temperature": 0.5}}, Knob(record=("sampling", "temperature")))
    0.5
    >>> record_value({"images": {"mode": "auto"}}, Knob(record=("images", "token_budget"), default=None)) is None
    True
    """
    if item.record is None:
        raise ValueError(f"knob {item.option!r} is not recorded in the run record")
    value: Any = record
    for key in item.record:
        if not isinstance(value, Mapping) or key not in value:
            return item.default
        value = value[key]
    return value


def json_object(text: str) -> dict[str, Any]:
    """An argparse type: a JSON object (``--extra-body``'s value), or an error saying what was expected.

    >>> json_object('{"seed": 0}')
    {'seed': 0}
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(
            f"not valid JSON ({error.msg} at character {error.pos}); expected an object such as "
            '\'{"top_p": 0.95, "seed": 0}\''
        ) from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object ({{...}}), got {type(value).__name__}: {text}")
    return value
