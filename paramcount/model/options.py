"""Options transformers builds and KerasHub cannot: an untied Gemma head, RoBERTa with sixteen
token types, T5 with eight relative-position buckets. A config holding one is counted as
transformers builds it, the Keras check skipped with its reason, rather than refused.

Each :class:`Option` is data on one mechanism, :func:`derive`: architecture ``<id>:<option>``
(``<id>:untied``), found by :func:`paramcount.model.registry.get`, is the family's architecture
with

- its table (and each transformers class's table) reading the option: the family's
  :class:`~paramcount.model.mapping.Require` on the key is replaced by the option's values (or, with
  ``fields``, by a symbol read from the key), so a config the family's table refuses for that key
  alone is read by the option's (tables sharing a model type are tried in order);
- the option's terms as declared deltas, and their transformers names;
- checked by transformers only, the reason being the family's own (``KerasHub's SmolLM3 always
  ties its LM head``).

A family declares its options in its folder (``families/<family>/options.py``: ``OPTIONS``, by
architecture id, found by :func:`paramcount.model.discovery.family_table`); the options several
families share are built here (:func:`untied`, :data:`TOKEN_TYPES`). Nothing here imports a
framework, or the registry, or a family's formula.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from paramcount.core.formula import leaf
from paramcount.core.symbols import d_e, s, v
from paramcount.model import discovery, heads
from paramcount.model.components.basic import embedding
from paramcount.model.frameworks import Delta
from paramcount.model.mapping import Field, Require

__all__ = ["TOKEN_TYPES", "Option", "combined", "derive", "every", "of", "options_of", "reason", "untied"]


@dataclass(frozen=True)
class Option:
    """A value of one config key that transformers builds and KerasHub cannot.

    Args:
        name: the option's name in the id (``untied``).
        key: the config key (``tie_word_embeddings``).
        values: the key's values this option reads (None: any value, read by ``fields``).
        deltas: the terms transformers builds differently with the option.
        weights: transformers' names of new terms (component path → pattern).
        fields: symbols read from the key (T5's buckets, n_b).
        frees: fixed symbols of the family the option makes settable, with their defaults.
        classes: the transformers classes it applies to (empty: every class of the id).
    """

    name: str
    key: str
    values: tuple | None
    deltas: tuple[Delta, ...] = ()
    weights: Mapping[str, str] = field(default_factory=dict)
    fields: tuple[Field, ...] = ()
    frees: Mapping[object, object] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    # values the family's examples take with the option (RoBERTa's s = 16), so each is checked
    example: Mapping[str, int] = field(default_factory=dict)


def untied(note: str, **kw) -> Option:
    """An untied LM head: ``tie_word_embeddings`` false builds a separate lm_head, d_e × v
    (``note``: the class that honours it)."""
    head = leaf("head", d_e * v, kind="head",
                note=f"untied output projection (lm_head), d_e × v: {note}", macs=d_e * v)
    return Option("untied", "tie_word_embeddings", (False,),
                  (Delta("head", head, "tie_word_embeddings false: transformers builds a "
                                       "separate lm_head, d_e × v"),),
                  {"head": "lm_head"}, **kw)


# RoBERTa's (and XLM-R's) token-type table: one row in every checkpoint, any number in
# transformers, none in KerasHub.
TOKEN_TYPES = Option(
    "token_types", "type_vocab_size", None,
    (Delta("embeddings.segment", embedding("segment", s),
           "transformers builds type_vocab_size token-type rows, s × d_e"),),
    fields=(Field("s", hf="type_vocab_size"),), frees={s: 1}, example={"s": 16})

def of(arch_id: str) -> tuple[Option, ...]:
    """The options of ``arch_id``, from its family's folder (``families/<family>/options.py``)."""
    return discovery.family_table(discovery.family_of(arch_id), "options", "OPTIONS").get(arch_id, ())


def every() -> dict[str, tuple[Option, ...]]:
    """Every architecture with options → its options, as the family folders declare them."""
    return dict(sorted(discovery.family_tables("options", "OPTIONS").items()))


def options_of(arch_id: str) -> tuple[str, ...]:
    return tuple(o.name for o in of(arch_id))


def combined(arch_id: str) -> tuple[str, ...]:
    """``<Class>:<option>`` for each further class of ``arch_id`` (paramcount.model.heads) and each of
    its options that the class builds: an option on an LM head's key concerns no other class
    (the class reads any value of it already), one naming its classes only those."""
    return tuple(f"{c}:{o.name}" for c in heads.classes_of(arch_id)
                 for o in of(arch_id)
                 if o.key not in heads.LM_HEAD_KEYS and (not o.classes or c in o.classes))


def reason(table, option: Option) -> str:
    """Why KerasHub cannot build the option: the family's own requirement on its key."""
    req = next((r for r in table.requires if r.key == option.key and r.framework == "hf"), None)
    return req.reason if req is not None else f"KerasHub has no {option.key} option"


def _table(table, arch_id: str, new_id: str, option: Option, why: str):
    requires = tuple(r for r in table.requires if not (r.key == option.key and r.framework == "hf"))
    if option.values is not None:
        requires += (Require(option.key, option.values, f"read by {arch_id}'s table ({why})",
                             absent_ok=False),)
    consts = {k: c for k, c in table.hf_constants.items() if k != option.key}
    if option.values is not None:
        consts[option.key] = option.values[0]
    classes = {c: new_id for c, a in table.hf_classes.items()
               if a == arch_id and (not option.classes or c in option.classes)}
    return dataclasses.replace(table, requires=requires, hf_constants=consts,
                               fields=(*table.fields, *option.fields), hf_classes=classes,
                               keras_classes={}, hf_builds={})


def derive(arch, name: str):
    """``arch`` with its option ``name`` (see the module docstring)."""
    # a class of the family (``<id>:<Class>``, RoBERTa's classifier) takes the family's options
    option = next(o for o in of(arch.id.partition(":")[0]) if o.name == name)
    new_id = f"{arch.id}:{name}"
    why = reason(arch.mapping, option)
    own = arch.transformers

    def one(ref):
        own_why = reason(ref.mapping or arch.mapping, option)
        table = _table(ref.mapping, arch.id, new_id, option, own_why) if ref.mapping else None
        return dataclasses.replace(ref, deltas=(*ref.deltas, *option.deltas),
                                   weights={**ref.weights, **option.weights}, mapping=table,
                                   only=f"the Keras check is skipped for this {option.key}: {own_why}")

    transformers = dataclasses.replace(one(own), variants=tuple(one(r) for r in own.variants))
    return dataclasses.replace(
        arch, id=new_id, title=f"{arch.title}, {option.key} as transformers builds it",
        optional={**arch.optional, **option.frees},
        fixed={k: e for k, e in arch.fixed.items() if k not in option.frees},
        mapping=_table(arch.mapping, arch.id, new_id, option, why), transformers=transformers,
        presets=None, keras_hub_metadata=False, frameworks=("transformers",),
        examples={k: {**hp, **option.example} for k, hp in arch.examples.items()},
        counting=f"{arch.counting}; {option.key} as transformers builds it (KerasHub cannot: "
                 f"{why})")
