"""Config preparation: what a derivation builds from, made buildable by general rules.

- **A composite config's sub-config.** A class whose ``config_class`` is one of its model
  type's sub-configs (Qwen3.5's causal LM reads ``text_config``, MusicGen's ``decoder``) is
  built from that sub-config, as ``AutoModelForCausalLM.from_config`` does; the derivation is
  then the sub-config's model type's, its fields named after the sub-config's keys
  (:func:`sub_config`).
- **A class needing a library that is not installed** (Gemma 3n's vision tower needs timm):
  with a text sub-config whose own model type has a causal-LM class, that class
  (:func:`text_class`).
- **Fields the model computes with but the config leaves None or lacks** (:func:`repairs`),
  tried only where the base build fails, each kept only if the build needs it: ``head_dim`` as
  ``hidden_size // num_attention_heads`` and ``num_key_value_heads`` as ``num_attention_heads``
  (as transformers' configs compute them), ``layer_types`` as full attention in every layer,
  ``is_decoder`` on, another None integer field at the default transformers' config classes
  most often give it (where none gives one: by the tail of its name, else 1), and an
  attribute a nested config lacks from the config's own values.
- **Token ids inside the vocabulary** (:func:`in_vocabulary`): a small random vocabulary moves
  an id above it to its last entry (an id is no shape).
- **Fields the model insists are equal** (:func:`equal_fields`): integer fields equal at the
  base, every variation of each alone refused, varied together built (SqueezeBERT asserts
  embedding_size = hidden_size): the first the config lists is the hyperparameter, the others
  follow it in every build, a one-part sum
  (:func:`paramcount.analyze.derive.layers.follow_sums`).
- **Values a config validator pins** (:func:`pinned`): where the config class refuses its own
  defaults with "``name`` must be V, got W" (Gemma 4 Assistant's text config: no per-layer
  inputs, ``hidden_size_per_layer_input`` must be 0), the base holds ``name`` at V, in the
  config or the sub-config whose refusal it ends; a value the caller gave is never moved.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

__all__ = ["equal_fields", "in_vocabulary", "pinned", "repairs", "sub_config", "text_class"]

# fields read as a count of something else when the config leaves them None: the expression
# transformers' own configs use (Llama's num_key_value_heads, Nemotron's head_dim)
_COMPUTED = {"head_dim": lambda c: c["hidden_size"] // c["num_attention_heads"],
             "num_key_value_heads": lambda c: c["num_attention_heads"]}


def sub_config(model_type: str, base: Mapping[str, Any], cls) -> tuple[str, dict] | None:
    """(the sub-config's model type, its values) where ``cls`` is built from a sub-config of
    ``model_type``'s config (its ``config_class`` is one of ``sub_configs``); else None. The
    values are those that differ from the sub-config class's defaults."""
    from transformers.models.auto import configuration_auto

    composite = configuration_auto.CONFIG_MAPPING[model_type]
    own = getattr(cls, "config_class", None)
    subs = dict(getattr(composite, "sub_configs", None) or {})
    key = next((k for k, v in subs.items() if own is not None and v is own), None)
    if own is None or own is composite or key is None or not getattr(own, "model_type", ""):
        return None
    if own.model_type not in configuration_auto.CONFIG_MAPPING_NAMES:
        return None
    sub = getattr(composite(**base), key)
    default = own().to_dict()
    values = {k: v for k, v in sub.to_dict().items() if k not in default or default[k] != v}
    return own.model_type, values


def text_class(model_type: str, base: Mapping[str, Any]) -> tuple[str, dict, str] | None:
    """(text model type, its values, its causal-LM class) for a composite config with a
    ``text_config`` whose model type has a causal-LM class; else None."""
    from transformers.models.auto import configuration_auto, modeling_auto

    composite = configuration_auto.CONFIG_MAPPING[model_type]
    text = dict(getattr(composite, "sub_configs", None) or {}).get("text_config")
    kind = getattr(text, "model_type", "")
    cls = modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(kind)
    if text is None or not isinstance(cls, str):
        return None
    sub = composite(**base).text_config
    default = text().to_dict()
    return kind, {k: v for k, v in sub.to_dict().items()
                  if k not in default or default[k] != v}, cls


_PIN = re.compile(r"`?(\w+)`? must be `?([\w.+-]+)`?,? got ")
PINS = 8  # values pinned at most: a class refusing more is refused with its first reason


def pinned(config_cls, base: Mapping[str, Any], given: Mapping[str, Any] = {}
           ) -> tuple[dict[str, Any], dict[str, str]]:
    """``base`` with each value ``config_cls``'s validator pins, and why (dotted name: "pinned
    at V by the config class: its refusal"), where the class refuses ``base`` saying
    "``name`` must be V, got W": ``name`` set to V at the top or in the sub-config whose
    refusal that ends, one after another, until it builds. ``base`` itself, and no pins, where
    a refusal says no such thing, the value was ``given`` by the caller, or setting it does not
    end that refusal (derive then names the class's own refusal)."""
    import ast

    def refusal(values) -> str | None:
        try:
            config_cls(**values)
        except Exception as exc:  # a validator's own message (huggingface_hub wraps it)
            cause = exc.__cause__ if exc.__cause__ is not None else exc
            return f"{type(cause).__name__}: {' '.join(str(cause).split())[:200]}"
        return None

    out, pins = dict(base), dict[str, str]()
    subs = sorted(dict(getattr(config_cls, "sub_configs", None) or {}))
    for _ in range(PINS):
        why = refusal(out)
        m = _PIN.search(why or "")
        if why is None or m is None:
            return (out, pins) if why is None else (dict(base), {})
        name = m.group(1)
        try:
            want = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError):
            return dict(base), {}
        for key in (None, *subs):
            at = given if key is None else given.get(key) or {}
            if name in (at if isinstance(at, Mapping) else {}):
                continue
            trial = {**out, name: want} if key is None else \
                {**out, key: {**(out.get(key) or {}), name: want}}
            after = refusal(trial)
            nxt = _PIN.search(after or "")  # built, or refused by the next pin
            if after is None or (nxt is not None and nxt.group(1) != name):
                out = trial
                pins[name if key is None else f"{key}.{name}"] = \
                    f"pinned at {want} by the config class: {why}"
                break
        else:
            return dict(base), {}
    return dict(base), {}


_INT_FIELD = re.compile(r"^    (\w+): int(?: \| None)? = (\d[\d_]*)$", re.M)


@functools.cache
def _common_defaults() -> dict[str, int]:
    """Each integer field's default most common across transformers' config classes (read
    from their sources, ``n_routed_experts: int | None = 256``: importing them all is slow)."""
    from pathlib import Path

    import transformers

    seen: dict[str, Counter] = {}
    root = Path(transformers.__file__).parent / "models"
    for path in sorted(root.glob("*/configuration_*.py")):
        for name, value in _INT_FIELD.findall(path.read_text(errors="replace")):
            seen.setdefault(name, Counter())[int(value.replace("_", ""))] += 1
    return {k: c.most_common(1)[0][0] for k, c in seen.items()}


def repairs(cfg, fields: set[str], missing: str | None = None) -> dict[str, Any]:
    """Candidate values for what the model may compute with but ``cfg`` leaves None (among
    ``fields``, the config class's own) or lacks (``missing``: the attribute an
    AttributeError named). Integer values go into the base config (they become
    hyperparameters); ``layer_types`` is made per build (:func:`apply`)."""
    values = cfg.to_dict()
    out: dict[str, Any] = {}
    for k in sorted(fields):
        if values.get(k, 0) is not None or k.endswith("token_id") or k.endswith("_config"):
            continue
        if k in _COMPUTED:
            with contextlib.suppress(KeyError, TypeError, ZeroDivisionError):
                out[k] = _COMPUTED[k](values)
        elif k == "layer_types":
            out[k] = "full_attention"
        elif k in _common_defaults():
            out[k] = _common_defaults()[k]
        elif k in _int_fields(cfg):
            out[k] = _by_name(k, values)
    if values.get("is_decoder") is False:
        out["is_decoder"] = True
    if missing:
        out["." + missing] = missing
    return out


def _by_name(name: str, values: Mapping[str, Any]) -> int:
    """A None integer field no config class gives a default (Qwen4-Exp's ``indexer_head_dim``,
    ``indexer_kv_heads``): the config's own value of the longest tail of its name
    (``head_dim``), else the most common default of that tail (``n_heads``), else 1."""
    parts = name.split("_")
    for i in range(1, len(parts)):
        tail = "_".join(parts[i:])
        if type(values.get(tail)) is int and values[tail] > 0:
            return int(values[tail])
        if tail in _common_defaults() and _common_defaults()[tail] > 0:
            return _common_defaults()[tail]
    return 1


def apply(cfg, fixes: Mapping[str, Any]):
    """``cfg`` (changed in place) with the repairs: an integer where it is None, ``is_decoder``
    on, ``layer_types`` for every layer, and what ``.name`` names supplied (:func:`_supply`)."""
    for k, v in fixes.items():
        if k.startswith("."):
            _supply(cfg, k[1:])
        elif k == "layer_types":
            n = getattr(cfg, "num_hidden_layers", None)
            if getattr(cfg, k, 0) is None and isinstance(n, int):
                cfg.layer_types = [v] * n
        elif k == "is_decoder" or getattr(cfg, k, 0) is None:
            setattr(cfg, k, v)
    return cfg


def _supply(cfg, name: str) -> None:
    """A name the model reads and the config lacks: a layer type its RoPE parameters are
    looked up by (Cohere Compass's, given flat or not at all: the same parameters for each
    layer type, transformers' defaults where none are given); or
    an attribute a nested config lacks (DBRX's ``attn_config.rope_theta``), from the config's
    own value or its RoPE parameters."""
    rope = getattr(cfg, "rope_parameters", None)
    kinds = getattr(cfg, "layer_types", None) or []
    if name in kinds and isinstance(rope, dict) and name not in rope:
        flat = {k: v for k, v in rope.items() if not isinstance(v, dict)} or {
            "rope_type": getattr(cfg, "default_rope_type", "default"),
            "rope_theta": getattr(cfg, "default_theta", 10_000.0)}
        cfg.rope_parameters = {**rope, **{t: dict(flat) for t in set(kinds) if t not in rope}}
        return
    value = getattr(cfg, name, None) if hasattr(cfg, name) else \
        (rope.get(name) if isinstance(rope, dict) else None)
    if value is None:
        return
    for sub in [cfg, *vars(cfg).values()]:
        if hasattr(sub, "to_dict") and not hasattr(sub, name):
            with contextlib.suppress(Exception):
                object.__setattr__(sub, name, value)


def in_vocabulary(kwargs: dict[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` with each integer ``*_token_id`` (given, or the config's default) at or
    above the vocabulary (the smallest ``*vocab_size`` given: Marian's decoder_vocab_size too)
    moved to its last entry."""
    sizes = [v for k, v in kwargs.items() if k.endswith("vocab_size") and type(v) is int and v > 0]
    if not sizes:
        return kwargs
    vocab = min(sizes)
    out = dict(kwargs)
    for k in {**defaults, **kwargs}:
        v = out.get(k, defaults.get(k))
        if k.endswith("token_id") and type(v) is int and v >= vocab:
            out[k] = vocab - 1
    return out


def equal_fields(try_build, at: Mapping[str, Any], refused: list[str], order: list[str],
                 ref: Any = None) -> list[tuple[str, str]]:
    """(follower, leader) pairs among the integer fields ``refused`` (every variation of each
    alone refused) that are equal at ``at``: each group of them varied together by a common
    value, and built (``try_build`` returns a dict) another model than ``ref``, follows its
    first field in ``order``."""
    groups: dict[int, list[str]] = {}
    for f in sorted(refused, key=order.index):
        if type(at.get(f)) is int and at[f] > 1:
            groups.setdefault(at[f], []).append(f)
    out = []
    for v, group in groups.items():
        if len(group) > 1 and any(isinstance(b := try_build({**at, **dict.fromkeys(group, t)}),
                                             dict) and b != ref for t in (2 * v, v + 1)):
            out += [(f, group[0]) for f in group[1:]]
    return out


def settle(src, cfg, make, fatal: type[Exception]):
    """The first build of ``src`` (``make(cfg)``); where it fails, the repairs that make it
    build (:func:`repairs`), each kept only if the build fails without it, are recorded in
    ``src.fixes`` and the repaired build returned. Otherwise the first failure is raised; a
    ``fatal`` one (a library missing) at once."""
    try:
        return make(cfg)
    except fatal:
        raise
    except Exception as exc:
        first: BaseException = exc
    fields = src.init_fields() or set()
    fixes = repairs(cfg, fields, _missing(first))
    model = None
    for _ in range(4):  # a nested config may lack more than one attribute (DBRX's)
        try:
            model = make(apply(_copy(cfg), fixes))
            break
        except fatal:
            raise
        except Exception as exc:
            name = _missing(exc)
            if not name or "." + name in fixes:
                raise _unfilled(first, cfg, fields, fixes) from None
            fixes["." + name] = name
    if model is None:
        raise _unfilled(first, cfg, fields, fixes)
    for k in list(fixes):  # each repair kept only if the build needs it
        rest = {j: v for j, v in fixes.items() if j != k}
        try:
            make(apply(_copy(cfg), rest))
        except fatal:
            raise
        except Exception:
            continue
        fixes = rest
    src.fixes = fixes
    return make(apply(cfg, fixes))


def _unfilled(first: BaseException, cfg, fields: set[str], fixes) -> BaseException:
    """The first failure; a TypeError on None also names the fields None at this config
    that no repair gives a value (Qwen4-Exp's ``indexer_budget``)."""
    if not (isinstance(first, TypeError) and "NoneType" in str(first)):
        return first
    values = cfg.to_dict()
    none = sorted(k for k in fields & _int_fields(cfg) if values.get(k, 0) is None and k not in fixes
                  and not k.endswith("token_id"))
    if not none:
        return first
    return TypeError(f"{first}; None, with no default anywhere in transformers: "
                     f"{', '.join(none)}")


def _int_fields(cfg) -> set[str]:
    """The fields a dataclass config declares integers (``int | None``)."""
    import dataclasses

    if not dataclasses.is_dataclass(cfg):
        return set()
    return {f.name for f in dataclasses.fields(cfg) if "int" in str(f.type)}


def _copy(cfg):
    import copy

    return copy.deepcopy(cfg)


def _missing(exc: BaseException) -> str | None:
    """The attribute an AttributeError or KeyError names, if it is a plain name."""
    name = getattr(exc, "name", None) if isinstance(exc, AttributeError) else \
        (exc.args[0] if isinstance(exc, KeyError) and exc.args else None)
    return name if isinstance(name, str) and name.isidentifier() else None
