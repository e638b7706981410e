"""One field at a time (issue 32): does ``count --config`` read every field a transformers class
reads?

A family's table writes a config for one of its sets (``Table.hf_config``); each perturbation
changes ONE field of it — an int to another int, a bool flipped, an optional key that is absent
or null set, a key taken out (the config class's default) — and the class is built from that
config on the meta device. ``count --config``
(the real path: :func:`paramcount.cli.main.main`, reading the file through
:func:`paramcount.analyze.configs.read_data`) must then print the build's parameter count
exactly, or refuse in one line. A config transformers refuses itself (its validator, a build
error) is skipped, the error named.

The fields tried are the config class's own (its dataclass fields and what its constructor
derives: MambaConfig's intermediate_size), and the keys its modeling file reads with a default
(``getattr(config, "mlp_bias", False)``), whether the table reads them, declares them free or
never heard of them: a field the table declares free is exactly where a wrong count hides
(Mamba's intermediate_size). Floats and single strings are not tried (an epsilon, a dropout,
an activation's name; a string's other valid values are not known from its type), nor plain
dicts (rope_parameters). A sub-config's ints and bools are (a vision-language model's
text_config and vision_config), one at a time; so is a per-layer list of kinds (its first entry
another kind of the list), and so are the labels a classification head is as wide as.

Imports torch: call it in a torch worker (tests/_shared.py's ``on_torch``)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import re
import tempfile
import types
import typing
from pathlib import Path

# Fields of every transformers config that change no weight of the classes the tables read, or
# that are not a model's (bookkeeping, generation, token ids: a padding index is no parameter).
SKIP = frozenset({
    "transformers_version", "architectures", "output_hidden_states", "output_attentions",
    "return_dict", "dtype", "torch_dtype", "chunk_size_feed_forward", "is_encoder_decoder",
    "id2label", "label2id", "problem_type", "model_type", "pad_token_id", "bos_token_id",
    "eos_token_id", "sep_token_id", "decoder_start_token_id", "use_cache", "tokenizer_class",
    "prefix", "task_specific_params", "finetuning_task", "tf_legacy_loss", "use_bfloat16",
    "pruned_heads", "torchscript", "is_decoder", "add_cross_attention", "cross_attention_hidden_size",
    "_attn_implementation", "_experts_implementation", "initializer_range", "max_length",
    "forced_bos_token_id", "forced_eos_token_id", "remove_invalid_values", "exponential_decay_length_penalty",
    "suppress_tokens", "begin_suppress_tokens", "num_return_sequences", "output_scores",
    "return_dict_in_generate", "gradient_checkpointing", "use_return_dict",
})

NONE_INT = 8  # what an absent (null) optional int is set to
ABSENT = "<absent>"  # a key taken out of the file: the config class's own default applies


@dataclasses.dataclass(frozen=True)
class Outcome:
    key: str
    value: object  # the value tried (the rest of the config as the table wrote it)
    kind: str  # "ok", "refused", "skipped", "wrong", "error"
    detail: str = ""


def cases() -> list[tuple[str, str, str]]:
    """Every (model_type, transformers class, architecture id) a table reads."""
    from paramcount.analyze.configs import tables

    return [(t.model_type, c, a) for t in tables() if t.model_type
            for c, a in t.hf_classes.items()]


def _table(model_type: str, cls: str, arch_id: str):
    from paramcount.analyze.configs import tables

    return next(t for t in tables() if t.model_type == model_type
                and t.hf_classes.get(cls) == arch_id)


def _ref(arch, cls: str):
    """The transformers reference of ``arch`` that builds ``cls`` (its constructor kwargs)."""
    for ref in arch.transformers.all():
        if (ref.mapping or arch.mapping).hf_class(arch.id) == cls:
            return ref
    return arch.transformers


def build_count(model_type: str, cls: str, data: dict, kwargs: dict) -> int:
    """The trainable parameters ``cls`` builds from ``data`` on the meta device (a frozen one,
    Whisper's sinusoidal table, is not trainable: the count is of trainable parameters)."""
    import torch
    import transformers

    from reference_models.hf import legacy_constructors_on_default_device

    config = transformers.CONFIG_MAPPING[model_type].from_dict(
        {k: x for k, x in data.items() if k != "model_type"})
    with torch.device("meta"), legacy_constructors_on_default_device():
        model = getattr(transformers, cls)(config, **kwargs)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def count_config(data: dict) -> tuple[int, str, int | None]:
    """``paramcount count --config FILE --json``: (exit status, stderr, total or None)."""
    from paramcount.cli.main import main

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.json"
        path.write_text(json.dumps(data))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(["count", "--config", str(path), "--json"])
            except SystemExit as exc:  # argparse
                code = exc.code if isinstance(exc.code, int) else 1
            except Exception as exc:  # a traceback the user would see
                return 1, f"{type(exc).__name__}: {exc}", None
    total = json.loads(out.getvalue())["total"] if code == 0 else None
    return code, err.getvalue().strip(), total


def check(model_type: str, cls: str, data: dict, kwargs: dict, key: str = "",
          value: object = None) -> Outcome:
    """``count --config`` of ``data`` against the build of ``cls`` from it."""
    try:
        built = build_count(model_type, cls, data, kwargs)
    except Exception as exc:
        return Outcome(key, value, "skipped", _line(exc))
    code, err, total = count_config(data)
    if code == 0 and total == built:
        return Outcome(key, value, "ok")
    if code == 2 and err and "\n" not in err and "Traceback" not in err:
        return Outcome(key, value, "refused", err)
    if code == 0:
        return Outcome(key, value, "wrong", f"count --config printed {total}, transformers "
                                            f"builds {built}")
    return Outcome(key, value, "error", f"exit {code}: {err[-500:]}")


def _line(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    return f"{type(cause).__name__}: {' '.join(str(cause).split())}"[:300]


def base(model_type: str, cls: str, arch_id: str,
         checked: bool = True) -> tuple[dict, dict, str] | None:
    """The config the table writes for the first set of ``arch_id`` that reads back (the
    transformers class builds it and ``count --config`` gives its count), the class's extra
    constructor arguments, and the set's name; None when no set does. Unless ``checked``: the
    first set the table writes, taken on trust (a set the sweep has checked)."""
    from paramcount.model import registry

    arch = registry.get(arch_id)
    table = _table(model_type, cls, arch_id)
    kwargs = dict(_ref(arch, cls).kwargs)
    for hs in sorted(arch.hparam_sets(), key=lambda hs: arch.count(hs.hparams)):  # smallest first
        hp = hs.hparams
        try:
            written = table.hf_config(hp)
        except Exception:
            continue
        data = {"model_type": model_type, "architectures": [cls], **written}
        if not checked or check(model_type, cls, data, kwargs).kind == "ok":
            return data, kwargs, hs.name
    return None


def _modeling_keys(model_type: str) -> dict[str, object]:
    """Keys the modeling file reads with a default, ``getattr(config, "key", default)``: the
    default where it is a literal (else None)."""
    import importlib

    import transformers

    module = transformers.CONFIG_MAPPING[model_type].__module__.replace(
        ".configuration_", ".modeling_")
    try:
        source = Path(importlib.import_module(module).__file__).read_text()
    except Exception:
        return {}
    out: dict[str, object] = {}
    for key, default in re.findall(
            r"getattr\(\s*(?:self\.)?config\s*,\s*[\"'](\w+)[\"']\s*,\s*([^()]*?)\s*\)", source):
        try:
            out.setdefault(key, json.loads({"None": "null", "True": "true",
                                            "False": "false"}.get(default, default)))
        except ValueError:
            out.setdefault(key, None)
    return out


def _hints(config_cls) -> dict[str, object]:
    hints: dict[str, object] = {}
    for klass in reversed(config_cls.__mro__):
        try:
            hints.update(typing.get_type_hints(klass))
        except Exception:
            hints.update(getattr(klass, "__annotations__", {}))
    return hints


def _allows(hint, kind: type) -> bool:
    if hint is kind:
        return True
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return any(_allows(h, kind) for h in typing.get_args(hint))
    return False


def perturbations(model_type: str, data: dict) -> list[tuple[str, object]]:
    """(key, value) pairs, each ONE field of ``data`` changed: an int to x + 1 and to 2·x (1 and
    2 for 0), a bool flipped, an int list's first entry + 1, a bool list's first flipped, a list
    of kinds' first entry another of its kinds, a null or absent optional int set to NONE_INT;
    and the labels (num_labels, id2label)."""
    import transformers

    config_cls = transformers.CONFIG_MAPPING[model_type]
    config = config_cls.from_dict({k: x for k, x in data.items() if k != "model_type"})
    now = {k: x for k, x in config.to_dict().items()}
    hints = _hints(config_cls)
    declared = dataclasses.fields(config_cls) if dataclasses.is_dataclass(config_cls) else ()
    keys = dict.fromkeys([*now, *(f.name for f in declared)])
    read = _modeling_keys(model_type)
    for k, default in read.items():
        keys.setdefault(k)
        if k not in now:
            now[k] = default
    out: list[tuple[str, object]] = []
    for key in keys:
        if key in SKIP or key.startswith("_"):
            continue
        try:
            value = now[key] if key in now else getattr(config, key, None)
        except Exception:  # Gemma 4's per-layer attributes refuse a global read
            value = None
        hint = hints.get(key)
        if type(value) is bool:
            out.append((key, not value))
        elif type(value) is int:
            out += [(key, 1), (key, 2)] if value == 0 else [(key, value + 1), (key, 2 * value)]
        elif value is None and (_allows(hint, int) or (hint is None and key in read)):
            out.append((key, NONE_INT))
        elif value is None and _allows(hint, bool):
            out.append((key, True))
        elif isinstance(value, list) and value and all(type(x) is int for x in value):
            out.append((key, [value[0] + 1, *value[1:]]))
        elif isinstance(value, list) and value and all(type(x) is bool for x in value):
            out.append((key, [not value[0], *value[1:]]))
        elif isinstance(value, list) and all(type(x) is str for x in value) \
                and len(set(value)) > 1:  # a per-layer list of kinds: the first block another kind
            out.append((key, [next(x for x in value if x != value[0]), *value[1:]]))
        elif isinstance(value, dict) and isinstance(getattr(config, key, None),
                                                    transformers.PreTrainedConfig):
            # a sub-config (a vision-language model's text_config): each of its own fields
            given = data.get(key) if isinstance(data.get(key), dict) else {}
            out += [(key, {**given, k: x}) for k, x in _one_level(value)]
    # the labels a classification head is as wide as (any other class builds no head of them)
    out += [("num_labels", 3), ("id2label", {str(i): f"LABEL_{i}" for i in range(5)})]
    # each key the table wrote, taken out: the config class's default, which is not always the
    # table's (GraniteMoeHybrid's absent num_local_experts is 8 experts; DeepSeek's absent
    # q_lora_rank a query of rank 1536, its null a plain query)
    out += [(key, ABSENT) for key in data if key not in SKIP and not key.startswith("_")]
    return out


def _one_level(values: dict) -> list[tuple[str, object]]:
    """A sub-config's ints and bools, each changed as :func:`perturbations` changes them."""
    out: list[tuple[str, object]] = []
    for k, x in values.items():
        if k in SKIP or k.startswith("_"):
            continue
        if type(x) is bool:
            out.append((k, not x))
        elif type(x) is int:
            out += [(k, 1), (k, 2)] if x == 0 else [(k, x + 1), (k, 2 * x)]
    return out


def sweep(model_type: str, cls: str, arch_id: str) -> list[Outcome]:
    """Every perturbation of the table's config for ``cls``, checked (the first outcome is the
    unperturbed config's: "ok", or "error" when no set of the table reads back)."""
    found = base(model_type, cls, arch_id)
    if found is None:
        return [Outcome("", None, "error", f"no set of {arch_id} reads back as {cls} builds it")]
    data, kwargs, name = found
    out = [Outcome("", name, "ok")]
    for key, value in perturbations(model_type, data):
        changed = ({k: x for k, x in data.items() if k != key} if value == ABSENT
                   else {**data, key: value})
        out.append(check(model_type, cls, changed, kwargs, key, value))
    return out
