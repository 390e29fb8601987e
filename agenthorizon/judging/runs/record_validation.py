"""Typed records read from decoded JSON with msgspec, their errors worded from the declarations.

:func:`convert` validates a JSON value against a ``msgspec.Struct`` type. A
``msgspec.ValidationError`` becomes a ``ValueError`` naming the file, the
field (a dotted path) and what the field's declared type expects:

>>> class Point(msgspec.Struct):
...     x: typing.Annotated[int, msgspec.Meta(ge=0)]
>>> convert({"x": -1}, Point, "p.json")
Traceback (most recent call last):
...
ValueError: p.json: field 'x': expected a count (an integer >= 0), got int -1
"""

from __future__ import annotations

import functools
import re
import typing
from typing import Any, TypeVar

import msgspec
from msgspec import inspect as mi

__all__ = ["convert", "expected"]

T = TypeVar("T")

_MESSAGE = re.compile(r"(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?", re.S)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_MISSING = re.compile(r"Object missing required field `(.+)`")
_UNKNOWN = re.compile(r"Object contains unknown field `(.+)`")


def convert(data: Any, cls: type[T], where: str) -> T:
    """``data`` (decoded JSON) as a ``cls``; a ``ValueError`` ``"<where>: field '<path>': expected ..."`` if it does not fit."""
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as error:
        raise ValueError(f"{where}: {_described(str(error), cls, data)}") from None


def expected(declared: Any) -> str:
    """What a value of a declared type (a ``msgspec.inspect`` type) is, in the words of an error message.

    >>> expected(mi.type_info(int | None))
    'an integer or null'
    """
    kind = type(declared)
    if kind is mi.Metadata:
        return expected(declared.type)
    if kind is mi.UnionType:
        members = [member for member in declared.types if type(member) is not mi.NoneType]
        if {type(member) for member in members} == {mi.IntType, mi.FloatType}:
            members = [next(member for member in members if type(member) is mi.FloatType)]  # a number, whole or not
        nullable = any(type(member) is mi.NoneType for member in declared.types)
        return " or ".join(expected(member) for member in members) + (" or null" if nullable else "")
    if kind is mi.IntType:
        return "a count (an integer >= 0)" if declared.ge == 0 else "an integer"
    if kind is mi.FloatType:
        return "a finite number >= 0" if declared.ge == 0 else "a number"
    if kind is mi.LiteralType:
        return "one of " + ", ".join(map(str, declared.values))
    words = {mi.StrType: "a string", mi.BoolType: "true or false", mi.DictType: "an object", mi.ListType: "a list",
             mi.VarTupleType: "a list", mi.NoneType: "null", mi.StructType: "an object", mi.DataclassType: "an object"}
    return words.get(kind, "a JSON value")


@functools.lru_cache(maxsize=None)
def _info(cls: type) -> Any:
    return mi.type_info(cls)


def _declared(cls: type, steps: list[str | int]) -> Any:
    """The declared type at ``steps`` (field names and list indices) inside ``cls``; ``None`` when it cannot be told."""
    declared = _info(cls)
    for step in steps:
        declared = _container(declared)
        if isinstance(step, int):
            declared = getattr(declared, "item_type", None)
        elif type(declared) in (mi.StructType, mi.DataclassType):
            owner = declared.cls
            declared = next((f.type for f in declared.fields if f.encode_name == step), None)
            if type(declared) is mi.LiteralType:  # inspect sorts the choices; an error lists them as declared
                declared = mi.LiteralType(typing.get_args(typing.get_type_hints(owner)[step]))
        elif type(declared) is mi.DictType:
            declared = declared.value_type
        else:
            return None
    return declared


def _container(declared: Any) -> Any:
    """The struct, object or list member of a union (or of a type with metadata)."""
    if type(declared) is mi.Metadata:
        declared = declared.type
    if type(declared) is mi.UnionType:
        return next((member for member in declared.types if type(member) is not mi.NoneType), declared)
    return declared


def _at(data: Any, steps: list[str | int]) -> Any:
    for step in steps:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _described(message: str, cls: type, data: Any) -> str:
    match = _MESSAGE.fullmatch(message)
    what, path = (match["what"], match["path"] or "") if match else (message, "")
    steps: list[str | int] = [int(index) if index else name for name, index in _STEP.findall(path)]
    field = ".".join(map(str, steps))
    prefix = f"field {field!r}: " if field else ""
    if what.startswith(("Expected", "Invalid enum value")):
        value = _at(data, steps)
        declared = _declared(cls, steps)
        words = expected(declared) if declared is not None else what
        return f"{prefix}expected {words}, got {type(value).__name__} {value!r:.80}"
    missing = _MISSING.fullmatch(what)
    if missing:
        name = f"{field}.{missing[1]}" if field else missing[1]
        return f"field {name!r}: missing; expected {expected(_declared(cls, [*steps, missing[1]]))}"
    unknown = _UNKNOWN.fullmatch(what)
    if unknown:
        struct = _container(_declared(cls, steps))
        noun = getattr(getattr(struct, "cls", None), "unknown_noun", "field")
        names = ", ".join(f.encode_name for f in getattr(struct, "fields", ()))
        return f"{prefix}unknown {noun}(s) {unknown[1]}; expected {names}"
    return prefix + what  # a record's own check (__post_init__)
