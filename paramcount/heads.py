"""Every transformers class of a covered family: the base model and the task heads beside the
class an architecture declares (LlamaModel, LlamaForSequenceClassification, ... beside
LlamaForCausalLM), read from configs and checked against their transformers builds.

One mechanism for all of them:

- a *head table* per convention (:data:`DECODER`, :data:`GPT`), one :class:`Head` per task kind:
  the term the class adds on top of the base model, under transformers' name for it
  (LlamaForSequenceClassification's bias-free ``score``, d_e × d_y; GPT-2's token classifier
  ``classifier``, with a bias);
- a :class:`Classes` row per family (:data:`FAMILIES`, by architecture id): which class is which
  kind, which head table applies, where the family's declared class holds its base model and
  which term of its tree is its own head;
- :func:`derive` turns an architecture and one of its classes into an architecture of its own,
  ``<id>:<Class>`` (``llama:LlamaForSequenceClassification``), found by
  :func:`paramcount.registry.get`: the family's tree with the declared class's head removed and
  the class's head added, both as declared deltas (so ``count`` lists them with their reasons),
  its table reading the class (and ``num_labels``, or the length of ``id2label``, as d_y), and
  checked by transformers only (KerasHub builds no such class).

The transformers reference names the derived class's base-model weights as the declared class
does (:attr:`paramcount.frameworks.Transformers.base`), so the family's weight patterns apply
unchanged. Nothing here imports a framework, or the registry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from paramcount.components.basic import dense
from paramcount.formula import Term
from paramcount.frameworks import Delta
from paramcount.mapping import Field
from paramcount.symbols import d_e, d_y

__all__ = ["BASE", "DECODER", "FAMILIES", "GPT", "QA", "SEQUENCE", "TOKEN", "Classes", "Head",
           "classes_of", "derive"]

BASE = "base model"
SEQUENCE = "sequence classification"
TOKEN = "token classification"
QA = "question answering"


@dataclass(frozen=True)
class Head:
    """A task head: the term a class adds at the root of the tree (its transformers names as the
    term's weight patterns: component path under the head → pattern)."""

    term: Term
    weights: Mapping[str, str]
    reason: str


def _linear(name: str, d_out, *, bias: int, what: str) -> Head:
    return Head(dense(name, d_e, d_out, bias=bias, kind="head"), {name: name},
                f"{what}: d_e → {d_out}{', with a bias' if bias else ', no bias'}")


# The Llama lineage's heads (LlamaForSequenceClassification and its kin in every family built
# on it): score without a bias, token scores with one, span start/end logits.
DECODER: Mapping[str, Head] = {
    SEQUENCE: _linear("score", d_y, bias=0, what="the class scores of the last token"),
    TOKEN: _linear("score", d_y, bias=1, what="the class scores of each token"),
    QA: _linear("qa_outputs", 2, bias=1, what="span start and end logits"),
}
# GPT-2's lineage (GPT-2, BLOOM, Falcon, GPT-NeoX, OPT): the token classifier is ``classifier``.
GPT: Mapping[str, Head] = {
    **DECODER, TOKEN: _linear("classifier", d_y, bias=1, what="the class scores of each token")}


@dataclass(frozen=True)
class Classes:
    """A family's further transformers classes.

    Args:
        names: class name → task kind (BASE, SEQUENCE, TOKEN, QA).
        heads: the head table of the family's convention (kind → Head).
        base: where the family's declared class holds its base model (``model`` for
            LlamaForCausalLM; "" when its base-model weights sit at the root).
        own_head: the tree path of the declared class's own head, which no other class has
            (None: it has none).
    """

    names: Mapping[str, str]
    heads: Mapping[str, Head]
    base: str = "model"
    own_head: str | None = "head"


def _standard(stem: str, *kinds: str, base_class: str | None = None, **kw) -> Classes:
    """The classes transformers names ``<stem>Model``, ``<stem>For<Kind>``."""
    suffix = {SEQUENCE: "ForSequenceClassification", TOKEN: "ForTokenClassification",
              QA: "ForQuestionAnswering"}
    names = {base_class or f"{stem}Model": BASE, **{f"{stem}{suffix[k]}": k for k in kinds}}
    return Classes(names=names, **kw)


_ALL = (SEQUENCE, TOKEN, QA)
# Architecture id → its further classes (each name as transformers 5 registers it for the
# family's model type: tests/test_heads.py checks the list against transformers' auto mappings).
FAMILIES: Mapping[str, Classes] = {
    "llama": _standard("Llama", *_ALL, heads=DECODER),
    "mistral": _standard("Mistral", *_ALL, heads=DECODER),
    "qwen": _standard("Qwen2", *_ALL, heads=DECODER),
    "qwen3": _standard("Qwen3", *_ALL, heads=DECODER),
    "phi3": _standard("Phi3", SEQUENCE, TOKEN, heads=DECODER),
    "smollm3": _standard("SmolLM3", *_ALL, heads=DECODER),
    "mixtral": _standard("Mixtral", *_ALL, heads=DECODER),
    "qwen_moe": _standard("Qwen2Moe", *_ALL, heads=DECODER),
    "qwen3_moe": _standard("Qwen3Moe", *_ALL, heads=DECODER),
    "gpt_oss": _standard("GptOss", SEQUENCE, TOKEN, heads=DECODER),
}


def classes_of(arch_id: str) -> tuple[str, ...]:
    """The further classes of ``arch_id`` (none for a family without a row)."""
    row = FAMILIES.get(arch_id)
    return tuple(row.names) if row is not None else ()


def _labels(normalize):
    """The table's hf_normalize, then ``num_labels`` from ``id2label`` when only that is given
    (transformers' PretrainedConfig: num_labels wins when both are)."""

    def read(config: Mapping) -> Mapping:
        config = normalize(config) if normalize is not None else config
        labels = config.get("id2label")
        if config.get("num_labels") is None and isinstance(labels, Mapping) and labels:
            return {**config, "num_labels": len(labels)}
        return config

    return read


def derive(arch, cls: str):
    """``arch`` as transformers' class ``cls`` of its family builds it (see the module
    docstring); a KeyError when ``cls`` is not one of them."""
    row = FAMILIES[arch.id]
    kind = row.names[cls]
    ref, table = arch.transformers, arch.mapping
    new_id = f"{arch.id}:{cls}"
    deltas: list[Delta] = []
    weights = dict(ref.weights)
    if row.own_head is not None:
        deltas.append(Delta(row.own_head, None, f"{cls} has no LM head"))
        weights = {p: m for p, m in weights.items()
                   if p != row.own_head and not p.startswith(row.own_head + ".")}
    head = row.heads.get(kind)
    optional = dict(arch.optional)
    fields = table.fields
    if head is not None:
        deltas.append(Delta(head.term.name, head.term, f"{cls}'s head, {head.reason}"))
        weights.update(head.weights)
        if d_y in head.term.free_symbols():
            optional[d_y] = 2  # transformers' num_labels when a config gives none
            fields = (*fields, Field("d_y", hf="num_labels", hf_default=2))
    mapping = dataclasses.replace(
        table, fields=fields, hf_classes={cls: new_id}, keras_classes={}, hf_builds={},
        hf_normalize=_labels(table.hf_normalize))
    transformers = dataclasses.replace(
        ref, deltas=(*ref.deltas, *deltas), weights=weights, variants=(), mapping=None,
        base=row.base)
    examples = {k: {**hp, **({"d_y": 3} if d_y in optional else {})}
                for k, hp in arch.examples.items()}
    return dataclasses.replace(
        arch, id=new_id, title=f"{cls} ({kind} of {arch.id}; transformers only)",
        counting=f"trainable weights of transformers' {cls}: the {arch.id} tree without its LM "
                 f"head{', with the ' + kind + ' head' if head is not None else ''}",
        optional=optional, presets=None, keras_hub_metadata=False, examples=examples,
        mapping=mapping, transformers=transformers, frameworks=("transformers",))
