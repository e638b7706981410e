"""Configuration files in: a Hugging Face ``config.json`` or a KerasHub preset's ``config.json``
→ an architecture id and its hyperparameters, through the family's table
(:mod:`paramcount.model.mapping`, read backward).

- A Hugging Face config (or a folder holding ``config.json``): ``model_type`` picks the family,
  ``architectures[0]`` the task class (``LlamaForCausalLM``, ``BertModel``, ``BertForMaskedLM``),
  and the class the architecture id. Without ``architectures`` the family's first class is meant.
- A KerasHub preset config, ``{"module", "class_name", "config", "registered_name"}``
  (``keras.saving.serialize_keras_object(backbone)``): the class picks the id, the constructor
  arguments in ``config`` give the hyperparameters.

Every problem is one :class:`~paramcount.core.errors.InputFileError` line naming the file and the key.
Nothing here imports a framework.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from paramcount.analyze import hf_defaults, hf_types
from paramcount.core import symbols
from paramcount.core.errors import InputFileError
from paramcount.model import heads, options, registry
from paramcount.model.mapping import Reading
from paramcount.model.mapping.values import get_key, has_key
from paramcount.runtime import inputs

__all__ = ["check_missing", "load_json", "read_config", "read_data", "supported", "tables"]


MAX_CONFIG_BYTES = 16 << 20  # published config.json files are a few KB; a 16 MB one is not one


def load_json(path: str | Path) -> tuple[dict, str]:
    """The JSON object in ``path`` (or ``path/config.json``) and the file's name for messages.

    Read through :func:`paramcount.runtime.inputs.load_json`, as every JSON file a user hands
    paramcount is: a regular file only (a FIFO or a device is refused by its type, never waited
    on nor read forever), at most MAX_CONFIG_BYTES, and malformed text, nesting past the
    parser's depth or a number too long to read is one line, not a traceback."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    data = inputs.load_json(p, "config", MAX_CONFIG_BYTES,
                            hint="; give a config.json file or the folder holding one")
    if not isinstance(data, dict):
        raise InputFileError(f"{p}: expected a JSON object, got {type(data).__name__}")
    return data, str(p)


def tables() -> list:
    """Every registered architecture's table, once each (a family shares one among its ids),
    then the tables of its other transformers classes (Gemma 2's, for Gemma's id).

    Built once per state of the registry: ``count --config`` asks for it up to three times (is
    the model type read by a table, which table reads it, what is supported when none does), and
    building it derives every family's other classes. The key is the registry's ids and objects,
    so a plugin registered (or an architecture replaced) afterwards is seen."""
    global _built
    archs = registry.architectures()
    key = tuple((a, id(arch)) for a, arch in archs.items())
    if _built is None or _built[0] != key:
        _built = key, archs, _build_tables()  # (archs held: no id of theirs is reused meanwhile)
    return list(_built[2])


_built: tuple[tuple, dict, list] | None = None  # the registry's state, and its tables


def _build_tables() -> list:
    seen: dict[int, object] = {}
    for arch in registry.architectures().values():
        if arch.mapping is not None:
            seen.setdefault(id(arch.mapping), arch.mapping)
    for arch in registry.architectures().values():
        for ref in arch.transformers.all() if arch.transformers is not None else ():
            if ref.mapping is not None:
                seen.setdefault(id(ref.mapping), ref.mapping)
    # the family's other classes (LlamaModel), then its options only transformers builds
    # (an untied Gemma): each read only where the tables above refuse
    for arch_id in list(registry.architectures()):
        for name in (*heads.classes_of(arch_id), *options.options_of(arch_id),
                     *options.combined(arch_id)):
            derived = registry.get(f"{arch_id}:{name}")
            assert derived.transformers is not None  # derived from a transformers family
            for ref in derived.transformers.all():
                table = ref.mapping or derived.mapping
                seen.setdefault(id(table), table)
    return list(seen.values())


def supported() -> tuple[list[str], list[str]]:
    """HF model types and KerasHub classes the readers know, sorted."""
    known = tables()
    types = sorted({t.model_type for t in known if t.model_type and t.hf_classes})
    classes = sorted({c for t in known for c in t.keras_classes})
    return types, classes


def is_keras(data: Mapping) -> bool:
    return isinstance(data.get("class_name"), str) and isinstance(data.get("config"), dict)


def read_config(path: str | Path, arch_id: str | None = None) -> Reading:
    """Read a config file. With ``arch_id``, read it with that architecture's table (the file's
    family must be the architecture's); otherwise the file picks the architecture."""
    data, where = load_json(path)
    return read_data(data, where, arch_id)


def read_data(data: Mapping, where: str, arch_id: str | None = None) -> Reading:
    """:func:`read_config` of a config already in hand (the one beside a checkpoint, or the one
    a GGUF file's metadata gives); ``where`` names it in messages."""
    if "class_name" in data and "config" in data and not isinstance(data["config"], dict):
        raise InputFileError(f"{where}: the KerasHub config's \"config\" is "
                             f"{_json_kind(data['config'])}: expected an object of the "
                             f"constructor's arguments")
    if is_keras(data):
        return _read_keras(data, where, arch_id)
    return _read_hf(data, where, arch_id)


def _read_hf(data: Mapping, where: str, arch_id: str | None) -> Reading:
    model_type = data.get("model_type")
    if "model_type" in data and not isinstance(model_type, str):
        raise InputFileError(f"{where}: model_type = {json.dumps(model_type)}: expected a string "
                             "(a transformers model type, such as \"llama\")")
    if not isinstance(model_type, str):
        raise InputFileError(f"{where}: no model_type key (a transformers config.json has one; a "
                             "KerasHub config has class_name and config)")
    archs = data.get("architectures")
    if archs is not None and not (isinstance(archs, list) and archs
                                  and all(isinstance(a, str) for a in archs)):
        raise InputFileError(f"{where}: architectures = {json.dumps(archs)}: expected a list of "
                             "class names")
    family = [t for t in tables() if t.model_type == model_type and t.hf_classes]
    # each key the file leaves out at its config class's own default (GemmaConfig's 16 key-value
    # heads, BartConfig's 12 decoder layers), as transformers builds it
    data, added = hf_defaults.completed(data, model_type)
    if not family and model_type in hf_types.BUILT_BY:
        return _read_built_by(data, where, arch_id, model_type)
    if not family:
        types, _ = supported()
        raise InputFileError(f"{where}: model_type {model_type!r} is not supported; supported: "
                             f"{', '.join(types)}")
    # Several tables may share a model_type (Falcon: KerasHub's Falcon-RW layout and the parallel
    # Falcon-7B/40B layout; Gemma 3's Gemma3ForCausalLM and the Gemma3TextModel of EmbeddingGemma):
    # among the tables that know the class the file names, the first whose requirements the
    # config meets reads it.
    known = dict.fromkeys(c for t in family for c in t.hf_classes)  # every class, in order
    # without architectures the family's first class is meant (not its base model's table)
    named = archs[0] if archs else next(iter(family[0].hf_classes))
    family = [t for t in family if named in t.hf_classes] or family
    # none reads it: the closest table (fewest requirements broken, the first of equals) says why
    table = min(family, key=lambda t: len(t.broken(_normalized(t, data), "hf")))
    cls = archs[0] if archs else next(iter(table.hf_classes))
    why = next((r for t in family for a in set(t.hf_classes.values())
                if (r := heads.refused(a, cls))), None)
    if cls not in table.hf_classes and why:
        raise InputFileError(f"{where}: class {cls!r} (architectures[0]) cannot be counted: {why}")
    if cls not in table.hf_classes:
        raise InputFileError(f"{where}: class {cls!r} (architectures[0]) is not supported for "
                             f"model_type {model_type!r}; supported: "
                             f"{', '.join(known)}")
    target = _target(arch_id, table.hf_classes[cls], table, where)
    arch = registry.get(target)
    # the table that names the class reads it (Gemma 2's, of a variant class); a config read as
    # another id of its family (Llama 3's, of a Llama config) is read with that id's table
    reader = table if table.hf_classes[cls] == target else (arch.mapping or table)
    freed = _freed(arch)  # what transformers states by a key of its own (Llama's head_dim)
    hparams, ignored = reader.from_hf(data, where=where, fixed={
        s: e for s, e in arch.fixed.items() if s not in freed})
    for s in freed:  # stated as KerasHub fixes it: the Keras model's value, read as before
        if s.name in hparams and arch.fixed[s].xreplace(
                {symbols.get(k): x for k, x in hparams.items()}) == hparams[s.name]:
            del hparams[s.name]
    from paramcount.model.quantization import declared

    shown = tuple(k for k in ignored if k.split(".")[0] not in added)  # the file's own keys
    read = {f.key("hf") for f in reader.fields} | {r.key for r in reader.requires}
    return Reading(target, hparams, "transformers config", cls, shown, where,
                   declared(data), _cost_fields(arch, hparams, data, where),
                   defaulted=tuple((k, data[k]) for k in sorted(added & read)
                                   if data[k] is not None),  # (a null: derived as ever)
                   reread=_reread(data, reader.normalized(data, "hf"), read - added))


def _reread(data: Mapping, normalized: Mapping, keys: set) -> tuple:
    """The ``keys`` the file gives a value that its table's normalization reads otherwise:
    (key, the file's, the one read), one value each (a list, a per-layer spelling, is not
    said; nor a value read as null, the one the config class derives)."""
    out = []
    for k in sorted(k for k in keys if k and "." not in k and k in data):
        given, read = data[k], normalized.get(k)
        if given != read and read is not None and not isinstance(given, (list, dict)) \
                and not isinstance(read, (list, dict)):  # (null: the value the class derives)
            out.append((k, given, read))
    return tuple(out)


def _read_built_by(data: Mapping, where: str, arch_id: str | None, model_type: str) -> Reading:
    """A model type transformers builds with a class a family covers
    (:data:`paramcount.analyze.hf_types.BUILT_BY`): read with that class's table, each key the
    file lacks at the type's own config class's default. The class is the file's
    ``architectures[0]`` where a family covers it, else the one transformers' auto mapping
    names."""
    import dataclasses

    built_by, defaults = hf_types.BUILT_BY[model_type]
    archs = data.get("architectures")
    named = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    cls = named if named is not None and any(named in t.hf_classes for t in tables()
                                             if t.model_type) else built_by
    table = next(t for t in tables() if t.model_type and cls in t.hf_classes)
    filled = {**defaults, **data, "model_type": table.model_type, "architectures": [cls]}
    reading = _read_hf(filled, where, arch_id)
    return dataclasses.replace(
        reading, ignored=tuple(k for k in reading.ignored if k in data),
        via=f"{model_type} is built by {cls} (keys the file lacks at {model_type}'s defaults)")


def _cost_fields(arch, hparams, data: Mapping, where: str) -> tuple[tuple[str, int | None], ...]:
    """The fields of ``data`` that change a cost and no weight (``Transformers.cost_config``'s
    keys: a window's sliding_window), each a positive integer or null, as the file gives them
    (absent: the class's default, filled in by paramcount.analyze.costs)."""
    ref = arch.transformers.pick(hparams) if arch.transformers is not None else None
    out = []
    kinds = data.get("layer_types")
    if isinstance(kinds, list) and kinds and set(kinds) <= {"full_attention", "sliding_attention"}:
        # which layers attend to every position: checked against the tree's window pattern
        # (layer_types that name mixers, as Granite 4.0's do, are no window's)
        out.append(("full_attention_layers", sum(k == "full_attention" for k in kinds)))
    if data.get("use_sliding_window") is True:  # Qwen's switch of windowed upper layers
        out.append(("use_sliding_window", 1))
    for key in getattr(ref, "cost_config", {}) or {}:
        if not has_key(data, key):  # a dotted key reaches into a nested config (decoder.…)
            continue
        value = get_key(data, key)
        if value is not None and not (type(value) is int and value > 0):
            raise InputFileError(f"{where}: {key} = {json.dumps(value)}: expected a positive "
                                 "integer or null")
        out.append((key, value))
    own = getattr(getattr(arch, "mapping", None), "hf_cost_reading", None)
    if own is not None:  # what the family's table knows of the file's cache (it reads last)
        out.extend(own(data))
    return tuple(out)


def _json_kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "a list"}.get(type(value), type(value).__name__)


def _freed(arch) -> set:
    """Symbols ``arch`` fixes for KerasHub that its transformers classes state by a key of their
    own (``Transformers.settable``)."""
    if arch.transformers is None:
        return set()
    return {s for ref in arch.transformers.all() for s in ref.settable if s in arch.fixed}


def _normalized(table, data: Mapping) -> Mapping:
    return table.normalized(data, "hf")


def _read_keras(data: Mapping, where: str, arch_id: str | None) -> Reading:
    cls = data["class_name"]
    # several tables may claim a class (Gemma3Backbone with or without a vision encoder): the
    # first whose requirements the file meets reads it, else the first (which says why not)
    claims = [t for t in tables() if cls in t.keras_classes]
    table = next((t for t in claims if t.meets(data["config"], "keras")),
                 claims[0] if claims else None)
    if table is None:
        _, classes = supported()
        raise InputFileError(f"{where}: KerasHub class {cls!r} is not supported; supported: "
                             f"{', '.join(classes)}")
    target = _target(arch_id, table.keras_classes[cls], table, where)
    arch = registry.get(target)
    hparams, ignored = (arch.mapping or table).from_keras(data["config"], where=where,
                                                          fixed=arch.fixed)
    return Reading(target, hparams, "KerasHub config", cls, tuple(ignored), where)


def _target(arch_id: str | None, picked: str, table, where: str) -> str:
    """The architecture a file is read as: the one it picks, or the one named, when that one's
    table is of the same family (Llama 3 configs say the model_type of Llama)."""
    if arch_id is None or arch_id == picked or picked.startswith(f"{arch_id}:"):
        return picked  # Llama's id named, a LlamaModel config: read as <id>:LlamaModel
    mapping = registry.get(arch_id).mapping
    if mapping is None:
        raise InputFileError(f"{where}: {arch_id} has no config reader yet")
    if mapping is not table and mapping.model_type != table.model_type:
        raise InputFileError(f"{where}: a {picked} config cannot be read as {arch_id}")
    return arch_id


def check_missing(reading: Reading, given: Mapping[str, int]) -> None:
    """After ``--set`` is merged in (``given``): refuse, naming the file and the config key,
    when a hyperparameter the formula needs is neither in the file nor set by the user."""
    arch = registry.get(reading.arch)
    framework = "keras" if reading.source.startswith("KerasHub") else "hf"
    absent = [s.name for s in arch.required if s.name not in given]
    if absent and arch.mapping is not None:
        keys = ", ".join(f"{arch.mapping.missing(s, framework)} ({s})" for s in absent)
        raise InputFileError(f"{reading.where}: missing key {keys}, which {arch.id} needs")
