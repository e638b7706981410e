"""Every transformers class of a covered family: the base model and the task heads beside the
class an architecture declares (LlamaModel, LlamaForSequenceClassification, ... beside
LlamaForCausalLM), read from configs and checked against their transformers builds.

One mechanism for all of them:

- a *head table* per convention (:data:`DECODER`, :data:`GPT`, :data:`BERT`, :data:`ROBERTA`,
  shared by the families of a lineage; a family with heads of its own declares them in its folder),
  one :class:`Head` per task kind:
  the term the class adds on top of the base model, under transformers' name for it
  (LlamaForSequenceClassification's bias-free ``score``, d_e × d_y; GPT-2's token classifier
  ``classifier``, with a bias);
- a :class:`Classes` row per architecture, declared by its family's folder
  (``families/<family>/heads.py``: ``CLASSES``, by architecture id, found by
  :func:`paramcount.model.discovery.family_table`): which class is which kind, which head table
  applies, where the family's declared class holds its base model and which term of its tree is
  its own head;
- :func:`derive` turns an architecture and one of its classes into an architecture of its own,
  ``<id>:<Class>`` (``<id>:LlamaForSequenceClassification`` of the Llama family), found by
  :func:`paramcount.model.registry.get`: the family's tree with the declared class's head removed and
  the class's head added, both as declared deltas (so ``count`` lists them with their reasons),
  its table reading the class (and ``num_labels``, or the length of ``id2label``, as d_y), and
  checked by transformers only (KerasHub builds no such class).

The transformers reference names the derived class's base-model weights as the declared class
does (:attr:`paramcount.model.frameworks.Transformers.base`), so the family's weight patterns apply
unchanged. Nothing here imports a framework, or the registry, or a family's formula.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import d_e, d_y, v
from paramcount.model import discovery, frameworks
from paramcount.model.components.basic import dense, layer_norm
from paramcount.model.frameworks import Delta, has_component
from paramcount.model.mapping import Field, Require

__all__ = [
    "ALL",
    "BASE",
    "BERT",
    "DECODER",
    "GPT",
    "HEADS",
    "LM",
    "LM_HEAD_KEYS",
    "QA",
    "ROBERTA",
    "SEQUENCE",
    "SPAN",
    "TOKEN",
    "Classes",
    "Head",
    "classes_of",
    "derive",
    "families",
    "linear",
    "mlm",
    "refused",
    "rows",
    "scores",
    "standard",
    "two_layer",
    "with_classes",
]

BASE = "base model"
LM = "language model"
SEQUENCE = "sequence classification"
TOKEN = "token classification"
QA = "question answering"


# Config keys that concern only an LM head: a class without one reads any value.
LM_HEAD_KEYS = ("tie_word_embeddings",)
# An LM head whose output projection is the token embedding: untied, transformers builds a v×d_e
# projection of its own (ElectraForMaskedLM, EsmForMaskedLM, FNetForMaskedLM, XLNetLMHeadModel:
# issue 32), which these heads do not count.
TIED_OUTPUT = Require("tie_word_embeddings", (True,),
                      "the LM head's output projection counts only as the token embedding, "
                      "tied; untied, transformers builds one of its own")


@dataclass(frozen=True)
class Head:
    """A task head: the terms a class adds at the root of the tree, with transformers' names
    (component path → pattern), and the parts of the family's tree the class builds without
    (``drops``: BertForTokenClassification's base model has no pooler; absent parts are
    skipped)."""

    terms: tuple[Term, ...]
    weights: Mapping[str, str]
    reason: str
    drops: tuple[str, ...] = ()
    # config values the head's terms assume (XLNet's sequence summary is a d_e → d_e projection
    # only with summary_use_proj): anything else is refused, naming the key
    requires: tuple[Require, ...] = ()
    # config keys the head's terms read, as rows of the table (DeBERTa's pooler is
    # pooler_hidden_size wide: read as d_e, so another width is refused, issue 32)
    fields: tuple[Field, ...] = ()

    def plus(self, other: Head) -> Head:
        return Head((*self.terms, *other.terms), {**self.weights, **other.weights},
                    f"{self.reason}; {other.reason}", (*self.drops, *other.drops),
                    (*self.requires, *other.requires), (*self.fields, *other.fields))

    def without(self, *paths: str) -> Head:
        return dataclasses.replace(self, drops=(*self.drops, *paths))


def linear(name: str, d_out, *, bias: int = 1, what: str, d_in=d_e) -> Head:
    """One ``nn.Linear`` named ``name``."""
    return Head((dense(name, d_in, d_out, bias=bias, kind="head"),), {name: name},
                f"{what}: {name}, {d_in} → {d_out}{'' if bias else ', no bias'}")


def two_layer(name: str, d_out, *, what: str) -> Head:
    """RoBERTa's classification head (``dense`` d_e → d_e, then ``out_proj`` d_e → d_out, both
    with biases), under ``name``."""
    term = group(name, dense("dense", d_e, d_e), dense("out_proj", d_e, d_out), kind="head")
    return Head((term,), {name: name, f"{name}.dense": "dense", f"{name}.out_proj": "out_proj"},
                f"{what}: {name}, d_e → d_e → {d_out}")


def mlm(match: str | None, transform: str, norm: str, bias: str, *, width=d_e) -> Head:
    """A masked-LM head whose output projection is the token embedding (tied): a d_e → ``width``
    dense, a layer norm and the output bias (v), each under its transformers pattern (the group
    under ``match``, when one prefix holds them all)."""
    term = group("mlm_head", dense("transform", d_e, width), layer_norm("norm", width),
                 leaf("output_bias", v, note="the output projection is the token embedding "
                                             "(tied); only its bias is new"), kind="head")
    names = {"mlm_head.transform": transform, "mlm_head.norm": norm, "mlm_head.output_bias": bias}
    return Head((term,), {**({"mlm_head": match} if match else {}), **names},
                f"the LM head: d_e → {width}, layer norm, tied output with a bias",
                requires=(TIED_OUTPUT,)).without("pooler")


def scores(name: str, bias: int) -> Head:
    """The class scores: one ``nn.Linear`` ``name``, d_e → d_y."""
    return linear(name, d_y, bias=bias, what="the class scores")


SPAN = "the span start and end logits"
# The Llama lineage's heads (LlamaForSequenceClassification and its kin in every family built
# on it): a bias-free score of the last token, token scores with a bias, span logits.
DECODER: Mapping[str, Head] = {
    SEQUENCE: scores("score", 0), TOKEN: scores("score", 1),
    QA: linear("qa_outputs", 2, what=SPAN),
}
# GPT-2's lineage (GPT-2, BLOOM, Falcon, GPT-NeoX, OPT): the token classifier is ``classifier``.
GPT: Mapping[str, Head] = {**DECODER, TOKEN: scores("classifier", 1)}
# BERT's (and ALBERT's): the pooled output classified, the pooler dropped where unused; the span
# head is num_labels wide.
BERT: Mapping[str, Head] = {
    SEQUENCE: scores("classifier", 1),
    TOKEN: scores("classifier", 1).without("pooler"),
    QA: linear("qa_outputs", d_y, what=SPAN).without("pooler"),
    LM: mlm("cls/predictions", "transform/dense", "transform/LayerNorm", "predictions/bias"),
}
# RoBERTa's (XLM-R, ESM; ELECTRA's with its own LM head): a two-layer classification head, no
# pooler.
ROBERTA: Mapping[str, Head] = {
    **BERT, LM: mlm("lm_head", "dense", "layer_norm", "lm_head/bias"),
    SEQUENCE: two_layer("classifier", d_y, what="the class scores").without("pooler"),
}


@dataclass(frozen=True)
class Classes:
    """A family's further transformers classes.

    Args:
        names: class name → task kind (BASE, LM, SEQUENCE, TOKEN, QA).
        heads: the head table of the family's convention (kind → Head).
        base: where the family's declared class holds its base model (``model`` for
            LlamaForCausalLM; "" when its base-model weights sit at the root, as in GPT2Model).
        own_head: the tree path of the declared class's own head, which no other class has
            (None: it has none).
        refused: classes transformers registers that are not read, each with the reason.
    """

    names: Mapping[str, str]
    heads: Mapping[str, Head]
    base: str = "model"
    own_head: str | None = "head"
    refused: Mapping[str, str] = dataclasses.field(default_factory=dict)
    # which of the architecture's transformers classes (Transformers.all()) the base model is
    # of: Gemma 2's classes are of its Gemma2ForCausalLM variant (1), Gemma's of its own (0)
    variant: int = 0
    # tie_word_embeddings ties tables of the base model itself (BART's encoder and decoder
    # embeddings are its shared table only when tied): its requirements stay with every class
    base_ties: bool = False


_SUFFIX = {BASE: "Model", SEQUENCE: "ForSequenceClassification", TOKEN: "ForTokenClassification",
           QA: "ForQuestionAnswering"}


def standard(stem: str, *kinds: str, **kw) -> Classes:
    """The classes transformers names ``<stem>Model``, ``<stem>For<Kind>``."""
    return Classes(names={f"{stem}{_SUFFIX[k]}": k for k in kinds}, **kw)


def with_classes(row: Classes, **more: str) -> Classes:
    """``row`` with further classes (name → kind) of names no pattern gives."""
    return dataclasses.replace(row, names={**row.names, **more})


ALL = (BASE, SEQUENCE, TOKEN, QA)  # every kind a decoder family's classes take
HEADS = (SEQUENCE, TOKEN, QA)  # the task heads alone (the declared class is the base model)


def families() -> dict[str, tuple[Classes, ...]]:
    """Every architecture with further classes → its rows, as the family folders declare them
    (each class name as transformers 5 registers it for the family's model type:
    tests/test_heads.py checks them against transformers' auto mappings)."""
    return {a: rows(a) for a in sorted(discovery.family_tables("heads", "CLASSES"))}


def rows(arch_id: str) -> tuple[Classes, ...]:
    """The rows of ``arch_id`` (one per transformers class it has classes beside), from its
    family's folder (``families/<family>/heads.py``)."""
    table = discovery.family_table(discovery.family_of(arch_id), "heads", "CLASSES")
    row = table.get(arch_id, ())
    return row if isinstance(row, tuple) else (row,)


def classes_of(arch_id: str) -> tuple[str, ...]:
    """The further classes of ``arch_id`` (none for a family without a row)."""
    return tuple(c for r in rows(arch_id) for c in r.names)


def refused(arch_id: str, cls: str) -> str | None:
    """Why ``cls``, a class transformers registers for ``arch_id``'s family, is not read."""
    return next((r.refused[cls] for r in rows(arch_id) if cls in r.refused), None)


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
    row = next(r for r in rows(arch.id) if cls in r.names)
    kind = row.names[cls]
    ref = arch.transformers.all()[row.variant]
    table = ref.mapping or arch.mapping
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
        staged = frameworks.tree(arch.formula, dataclasses.replace(ref, weights={}))
        for path in head.drops:
            if has_component(staged, path):
                deltas.append(Delta(path, None, f"{cls} builds its base model without it"))
                weights = {p: m for p, m in weights.items()
                           if p != path and not p.startswith(path + ".")}
        for term in head.terms:
            deltas.append(Delta(term.name, term, f"{cls}'s head, {head.reason}"))
        weights.update(head.weights)
        if any(d_y in t.free_symbols() for t in head.terms):
            optional[d_y] = 2  # transformers' num_labels when a config gives none
            fields = (*fields, Field("d_y", hf="num_labels", hf_default=2))
        fields = (*fields, *head.fields)
    requires = table.requires
    if kind != LM and not row.base_ties:  # no LM head: whether it would be tied changes nothing (GemmaModel)
        requires = tuple(r for r in requires if r.key not in LM_HEAD_KEYS)
    mapping = dataclasses.replace(
        table, fields=fields, requires=(*requires, *(head.requires if head else ())),
        free=table.free | set(LM_HEAD_KEYS),
        hf_classes={cls: new_id}, keras_classes={}, hf_builds={},
        hf_normalize=_labels(table.hf_normalize))
    transformers = dataclasses.replace(
        ref, deltas=(*ref.deltas, *deltas), weights=weights, variants=(), mapping=None,
        base=row.base, only=f"KerasHub has no {cls}")
    examples = {k: {**hp, **({"d_y": 3} if d_y in optional else {})}
                for k, hp in arch.examples.items()}
    return dataclasses.replace(
        arch, id=new_id, title=f"{cls} ({kind} of {arch.id}; transformers only)",
        counting=f"trainable weights of transformers' {cls}: the {arch.id} tree"
                 f"{' without its LM head' if row.own_head else ''}"
                 f"{', with the ' + kind + ' head' if head is not None else ''}",
        optional=optional, presets=None, keras_hub_metadata=False, examples=examples,
        mapping=mapping, transformers=transformers, frameworks=("transformers",))
