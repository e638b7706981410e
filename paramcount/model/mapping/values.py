"""Single values out of configuration objects, for the tables of :mod:`paramcount.model.mapping`: dotted
keys into nested objects and list elements, the keys nobody read, and each value checked against
its field's transforms (a flag, an enumerated name, an offset, a scale, a per-block list) before it
becomes a hyperparameter. A bad value is an :class:`~paramcount.core.errors.InputFileError` naming the
file and key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from paramcount.core import symbols
from paramcount.core.errors import InputFileError

if TYPE_CHECKING:
    from paramcount.model.mapping import Field

__all__ = ["count_kinds", "get_key", "nest", "out_value", "read_value", "show", "uniform",
           "unread"]


def get_key(config: Mapping, key: str | None, where: str | None = None):
    """``config[key]``, where a dotted key reaches into nested objects (``text_config.vocab_size``)
    and lists (``image_shape.2``; a number stands for each element: ``image_size`` = 224 is
    224 × 224); None when absent, refused (given ``where``) when a list is too short."""
    if key is None:
        return None
    node: object = config
    for part in key.split("."):
        if part.isdigit() and isinstance(node, (list, tuple)):
            if int(part) >= len(node) and where is not None:
                raise InputFileError(f"{where}: {key} is absent: {show(node)} is too short")
            node = node[int(part)] if int(part) < len(node) else None
        elif not isinstance(node, Mapping):
            return node if part.isdigit() else None
        else:
            node = node.get(part)
    return node


def has_key(config: Mapping, key: str) -> bool:
    """Whether ``config`` holds ``key`` (dotted, as :func:`get_key` reads it), null or not: an
    absent key takes the config class's default, an explicit null is null."""
    *path, last = key.split(".")
    node = get_key(config, ".".join(path)) if path else config
    return isinstance(node, Mapping) and last in node


def nest(flat: Mapping[str, object]) -> dict[str, object]:
    """Dotted keys as nested objects (the inverse of :func:`get_key`)."""
    out: dict[str, object] = {}
    for key, val in flat.items():
        *path, last = key.split(".")
        node = out
        for part in path:
            # Every intermediate value is a dict made on this line; a nested dict's type is recursive.
            node = node.setdefault(part, {})  # type: ignore[assignment]
        node[last] = val
    return {k: _shape(x) for k, x in out.items()}


def _shape(node: object) -> object:
    """A nested object keyed 0, 1, ... as a tuple (``image_shape.0`` .. ``.2``)."""
    if not isinstance(node, dict):
        return node
    items = {k: _shape(x) for k, x in node.items()}
    keys = [str(i) for i in range(len(items))]
    return tuple(items[k] for k in keys) if set(items) == set(keys) else items


def unread(config: Mapping, prefix: str, known: set[str], free: frozenset[str],
            generic: frozenset[str]) -> list[str]:
    """The keys nobody reads, dotted; an object that holds read keys is looked into."""
    out: list[str] = []
    for k, val in config.items():
        key = prefix + k
        if key in known or key in free or k in generic or k.startswith("_"):
            continue
        if isinstance(val, Mapping) and any(x.startswith(key + ".") for x in known):
            out += unread(val, key + ".", known, free, generic)
        elif not any(x.startswith(key + ".") for x in known):  # (image_shape.0: a list read)
            out.append(key)
    return sorted(out)


def show(val) -> str:
    return json.dumps(val)


def out_value(f: Field, framework: str, hp: Mapping[str, int]):
    if f.kinds is None:
        value = f.out(framework, hp[f.symbol] * (hp[f.hf_per] if framework == "hf" and f.hf_per
                                                 else 1))
        return [value] * hp[f.per_block] if framework in f.listed else value
    first, rest = f.kinds
    return [first] * hp[f.symbol] + [rest] * (hp[f.per_block] - hp[f.symbol])


def count_kinds(f: Field, raw, where: str, key: str, values: Mapping[str, int]) -> int:
    """The blocks of ``f.kinds[0]`` in a per-block list (its length must be the blocks read)."""
    kinds: tuple[str, ...] = f.kinds or ("",)
    if not isinstance(raw, list) or any(x not in kinds for x in raw):
        raise InputFileError(f"{where}: {key}: expected a list of {' or '.join(map(show, kinds))}")
    if f.per_block in values and len(raw) != values[f.per_block]:
        raise InputFileError(f"{where}: {key} has {len(raw)} entries for {values[f.per_block]} "
                             "blocks")
    return raw.count(kinds[0])


def uniform(f: Field, framework: str, raw: list, where: str, key: str,
             values: Mapping[str, int]) -> int:
    """The one value of a per-block list (its length must be the blocks read)."""
    if not raw:
        raise InputFileError(f"{where}: {key} = []: expected one entry per block")
    if f.per_block in values and len(raw) != values[f.per_block]:
        raise InputFileError(f"{where}: {key} has {len(raw)} entries for {values[f.per_block]} "
                             "blocks")
    if any(x != raw[0] or isinstance(x, bool) != isinstance(raw[0], bool) for x in raw):
        shown = " and ".join(dict.fromkeys(show(x) for x in raw))
        raise InputFileError(f"{where}: {key} holds {shown}: cannot be counted: the formula has "
                             f"one {f.symbol} for every block")
    return read_value(f, framework, raw[0], where, key)


def read_value(f: Field, framework: str, raw, where: str, key: str) -> int:
    names = f.values(framework)
    if names is not None:
        hits = [x for k, x in names.items()
                if k == raw and isinstance(k, bool) == isinstance(raw, bool)]
        if not hits:
            known = ", ".join(show(k) for k in names)
            raise InputFileError(f"{where}: {key} = {show(raw)} cannot be counted: "
                                 f"expected one of {known}")
        return hits[0]
    if f.flag:
        if not isinstance(raw, bool):
            raise InputFileError(f"{where}: {key} = {show(raw)}: expected true or false")
        return int(raw)
    offset = f.offset(framework)
    # a count that may be zero (symbols.declare's zero_ok: Gemma 3n's KV-shared blocks) may be
    # stated as zero; every other value is positive
    low = offset - 1 if symbols.info(f.symbol).zero_ok else offset
    if isinstance(raw, bool) or not isinstance(raw, int) or raw <= low:
        expected = ("a non-negative integer" if low < 0 else "a positive integer") \
            if not offset else f"an integer above {low}"
        raise InputFileError(f"{where}: {key} = {show(raw)}: expected {expected}"
                             + (f" ({key} = {f.symbol} + {offset})" if offset else ""))
    raw -= offset
    scale = f.scale(framework)
    if raw % scale:
        raise InputFileError(f"{where}: {key} = {raw} is not a multiple of {scale}, as "
                             f"{f.symbol} needs ({key} = {scale}·{f.symbol})")
    return raw // scale
