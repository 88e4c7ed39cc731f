"""A small declarative validator shared by every input format (suites, encounters, days, registry).

A schema is a dict of field name -> `Field`. `validate(data, schema, path)` walks the data and
raises `FileFormatError(path, field, problem, fix)` at the first fault: an unknown key (with a
"did you mean" from the allowed keys), a missing required key, a value of the wrong type, a value
out of range or not among the choices. Fields are named by their dotted path, e.g.
`envs[2].episodes` or `party[0].level`, so the message points at the line to change.

Checks that need more than the shape of the data (a monster that exists, a square on the map)
stay with each format's loader; the schema runs first, so a typo is reported as a typo, not as
the missing field it leaves behind.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .errors import FileFormatError

_KIND_NAMES = {str: "a string", int: "a whole number", float: "a number", bool: "true or false",
               list: "a list", dict: "a table (key/value mapping)"}


@dataclass(frozen=True)
class Field:
    """What one key may hold.

    kind: the Python type (int excludes bool; float accepts whole numbers too).
    required: the key must be present. nullable: null/None is accepted (YAML `null`).
    low, high: inclusive bounds of a number. choices: the allowed values; noun names them in the
    message ("a scenario family"). min_items: the shortest list allowed.
    items: the Field of each list item. fields: the schema of a nested table (its keys checked);
    values: the Field of every value of a table whose keys are free (a day's `place`).
    fix: how to write the field correctly, shown with every fault of this field.
    """

    kind: type
    required: bool = False
    nullable: bool = False
    low: float | None = None
    high: float | None = None
    choices: Sequence | None = None
    noun: str = ""
    min_items: int = 0
    items: "Field | None" = None
    fields: "Mapping[str, Field] | None" = None
    values: "Field | None" = None
    fix: str = ""


def read_text(path, *, saved_as: str, missing_fix: str, field: str = "(file)",
              not_text_hint: str = "") -> str:
    """An input file's text, or a FileFormatError saying why it cannot be read.

    saved_as: the format, for the fixes ("UTF-8 YAML", "UTF-8 TOML"); missing_fix: what to do
    when the file is not there (each format knows its built-in alternatives); not_text_hint:
    what a file that is not text most likely is, added to that fix."""
    from pathlib import Path

    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileFormatError(path, field, "does not exist", missing_fix) from None
    except UnicodeDecodeError as exc:
        raise FileFormatError(path, field, f"is not UTF-8 text ({exc.reason})",
                              f"save the file as {saved_as}{not_text_hint}") from None
    except OSError as exc:   # a folder, no permission
        raise FileFormatError(path, field, f"cannot be read ({exc.strerror})",
                              f"give the path of a readable {saved_as} file") from None


def kind_name(kind: type) -> str:
    return _KIND_NAMES.get(kind, kind.__name__)


def _is_kind(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is dict:
        return isinstance(value, Mapping)
    return isinstance(value, kind)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _range_words(spec: Field) -> tuple[str, str]:
    """(what is wrong, how to fix) for a number outside spec's bounds."""
    if spec.high is None:
        if spec.low == 1:
            return "is not positive", "use a positive whole number (1 or more)"
        if spec.low == 0:
            return "is negative", "use 0 or more"
        return f"is below {spec.low}", f"use {spec.low} or more"
    if spec.low is None:
        return f"is above {spec.high}", f"use {spec.high} or less"
    return f"is out of range ({spec.low} to {spec.high})", f"use {spec.low} to {spec.high}"


def did_you_mean(word, allowed: Sequence, cutoff: float = 0.6) -> str:
    """"did you mean 'x'? " for the allowed value closest to `word`, or "" when none is close."""
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], n=1, cutoff=cutoff)
    return f"did you mean '{close[0]}'? " if close else ""


def unknown_key_fix(key: str, allowed: Sequence[str]) -> str:
    """'did you mean ...?' when a known key is close, else the list of known keys."""
    known = ", ".join(sorted(allowed))
    hint = did_you_mean(key, allowed)
    return f"{hint}(known fields: {known})" if hint else f"remove it, or use only the known fields: {known}"


def validate(data: Any, schema: Mapping[str, Field], path, where: str = "",
             notes: Mapping[str, str] | None = None) -> Any:
    """Check `data` (a table) against `schema`; return it unchanged, or raise FileFormatError.

    where: the dotted prefix of this table's fields ("" at the top, "party[0]." inside a list).
    notes: key -> why that key is not a field (a field users expect that the format leaves to
    the rules, e.g. hit points), said instead of the list of known fields; nested tables too.
    """
    if not isinstance(data, Mapping):
        name = where.rstrip(".") or "(file)"
        raise FileFormatError(path, name, f"must be a table of named fields, got {_short(data)}",
                              f"write fields such as {', '.join(list(schema)[:3])}")
    for key in data:
        if key not in schema:
            note = (notes or {}).get(key)
            raise FileFormatError(path, f"{where}{key}", "is not a known field",
                                  f"{note}; remove it" if note else unknown_key_fix(key, list(schema)))
    for key, spec in schema.items():
        if key in data:
            check_value(data[key], spec, path, f"{where}{key}", notes)
        elif spec.required:
            raise FileFormatError(path, f"{where}{key}", "is missing",
                                  spec.fix or f"add {key} ({kind_name(spec.kind)})")
    return data


def check_value(value: Any, spec: Field, path, name: str,
                notes: Mapping[str, str] | None = None) -> None:
    """Check one value against its Field; `name` is its dotted path."""
    if value is None and spec.nullable:
        return
    if not _is_kind(value, spec.kind):
        if spec.choices is not None:   # the allowed values say more than their type
            raise FileFormatError(path, name, f"must be one of {', '.join(map(repr, spec.choices))}"
                                  f", got {type(value).__name__} {_short(value)}",
                                  spec.fix or f"use one of {', '.join(map(str, spec.choices))}")
        raise FileFormatError(path, name, f"must be {kind_name(spec.kind)}, got "
                              f"{type(value).__name__} {_short(value)}",
                              spec.fix or f"write {kind_name(spec.kind)}")
    if spec.choices is not None and value not in spec.choices:
        hint = did_you_mean(value, spec.choices)
        raise FileFormatError(path, name, f"{_short(value)} is not {spec.noun or 'an allowed value'}",
                              f"{hint}use one of {', '.join(map(str, spec.choices))}")
    if spec.kind in (int, float) and (spec.low is not None and value < spec.low
                                      or spec.high is not None and value > spec.high):
        problem, fix = _range_words(spec)
        raise FileFormatError(path, name, f"{_short(value)} {problem}", spec.fix or fix)
    if spec.kind is list:
        if len(value) < spec.min_items:
            raise FileFormatError(path, name, "is empty" if not value else
                                  f"has {len(value)} items, fewer than {spec.min_items}",
                                  spec.fix or f"list at least {spec.min_items}")
        if spec.items is not None:
            for i, item in enumerate(value):
                check_value(item, spec.items, path, f"{name}[{i}]", notes)
    if spec.kind is dict:
        if spec.fields is not None:
            validate(value, spec.fields, path, f"{name}.", notes)
        if spec.values is not None:
            for key, item in value.items():
                check_value(item, spec.values, path, f"{name}.{key}", notes)
