"""A checkpoint against the formula: every stored tensor attributed by name to the formula tree
(:func:`paramcount.analyze.verify.compare`, the attribution the Keras and transformers references use),
and the stored figure explained against the config's model as named terms.

Names: a safetensors checkpoint's are transformers' (``model.layers.0.self_attn.q_proj.weight``),
attributed through the family's declared transformers weights
(:func:`paramcount.model.frameworks.for_framework`); a GGUF file's are translated to those by its
family's name table (:mod:`paramcount.analyze.checkpoints.gguf_names`); a KerasHub preset's are the Keras
weight paths. Before the comparison, the tensors a checkpoint stores beside the model's weights
are set apart, each a term with its reason (:data:`STORED`): quantization state, buffers older
libraries saved, layers beyond the config's stack (a multi-token-prediction module), a tied head
stored a second time. What is left must match the formula leaf by leaf.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from paramcount.analyze.checkpoints.tensors import Checkpoint, StoredTensor
from paramcount.analyze.verify import Verification, Weight
from paramcount.core.errors import InputFileError
from paramcount.model.frameworks import Delta

__all__ = ["STORED", "CheckpointCheck", "Extra", "check"]

# Stored tensors no leaf claims that are known not to be parameters: pattern → term, reason.
STORED: tuple[tuple[str, str, str], ...] = (
    (r"(^|\.)rotary_emb\.inv_freq$", "rotary inv_freq buffers",
     "rotary frequencies, computed from the rotary base; transformers saved the buffer before "
     "4.31 made it non-persistent"),
    (r"(^|\.)attn\.(bias|masked_bias)$", "attention mask buffers",
     "GPT-2's causal mask (n × n) and masked_bias constant, saved by older transformers"),
    (r"(^|\.)position_ids$", "position index buffers",
     "the 0..n−1 position index, a buffer older transformers saved"),
    (r"^rope_freqs\.weight$", "rope frequency factors",
     "Llama 3.1's rope scaling factors, which llama.cpp stores as a tensor; computed from the "
     "config in transformers"),
)
_STORED = tuple((re.compile(p), term, why) for p, term, why in STORED)
_LAYER = re.compile(r"(?:^|\.)(?:layers|h|blk)\.(\d+)\.")


@dataclass(frozen=True)
class Extra:
    """A stored-versus-built term: tensors the checkpoint stores that the model does not build
    (or stores in another way), with the reason, and the term as a
    :class:`~paramcount.model.frameworks.Delta` on the config's model (the way paramcount names a
    term one side has and the other lacks): the checkpoint's figure is the formula tree with
    the framework's deltas and then these (:func:`check` applies them, the frameworks' own
    ``with_deltas``). A term the framework's own delta removes from the formula (DeepSeek-V3's
    MTP module) is that delta's term put back, with its path and reason."""

    term: str
    reason: str
    tensors: tuple[str, ...]
    stored: int  # elements, as the Hub counts them
    built: int = 0  # what the config's model holds of them
    delta: Delta | None = None  # set by check()

    @property
    def difference(self) -> int:
        return self.stored - self.built


@dataclass(frozen=True)
class CheckpointCheck:
    """The outcome of :func:`check`."""

    checkpoint: Checkpoint
    arch: str
    hparams: dict[str, int]
    verification: Verification
    extras: tuple[Extra, ...]
    missing: tuple[tuple[str, int], ...]  # leaves with a count and no tensor: (path, count)
    tied_once: tuple[str, ...]  # zero-count head leaves with no tensor: a tied head stored once
    built: int  # the config's model: trainable + non-trainable, the formula with its deltas
    framework: str
    # the formula tree with the framework's deltas and then the checkpoint's (the extras')
    stored_formula: int = 0

    @property
    def ok(self) -> bool:
        return self.verification.ok

    @property
    def explained(self) -> int:
        return sum(e.difference for e in self.extras)

    @property
    def unexplained(self) -> int:
        return self.checkpoint.stored_total - self.stored_formula


def _extras(tensors: list[StoredTensor], layers: int | None, mtp: int = 0
            ) -> tuple[list[Extra], set[str]]:
    """The tensors set apart before attribution: quantization state and layers beyond the
    config's stack (known from the name alone); the first ``mtp`` of those are the
    multi-token-prediction layers the config declares (``num_nextn_predict_layers``)."""
    groups: dict[tuple[str, str], list[StoredTensor]] = {}
    for t in tensors:
        m = _LAYER.search(t.name)
        if t.role:
            groups.setdefault(tuple(t.role.split(": ", 1)), []).append(t)  # type: ignore[arg-type]
        elif layers is not None and m and layers <= int(m.group(1)) < layers + mtp:
            groups.setdefault((
                "multi-token-prediction layers",
                f"the config declares num_nextn_predict_layers = {mtp}, stored as layer indices "
                f"{layers}..{layers + mtp - 1} after its L = {layers} (DeepSeek-V3's MTP "
                "module: an embedding, two norms, eh_proj, a block and a shared head); the "
                "config's model, as transformers builds it, leaves them out"), []).append(t)
        elif layers is not None and m and int(m.group(1)) >= layers:
            groups.setdefault((
                "layers beyond the config's stack",
                f"layer indices ≥ L = {layers} (the config's num_hidden_layers): a "
                "multi-token-prediction module (DeepSeek-V3 stores one) or other layers the "
                "config's model does not build"), []).append(t)
    out = [Extra(term, why, tuple(t.name for t in ts), sum(t.numel for t in ts))
           for (term, why), ts in groups.items()]
    return out, {n for e in out for n in e.tensors}


def _packing(tensors: list[StoredTensor]) -> list[Extra]:
    packed = [t for t in tensors if not t.role and t.logical != t.numel]
    if not packed:
        return []
    return [Extra("packed weights", "quantized weights hold several logical parameters per "
                  "stored element (the Hub counts stored elements)",
                  tuple(t.name for t in packed), sum(t.numel for t in packed),
                  sum(t.logical for t in packed))]


def check(ckpt: Checkpoint, arch, hparams: Mapping[str, int], framework: str) -> CheckpointCheck:
    """Attribute ``ckpt``'s tensors to ``arch``'s tree as ``framework`` names them, at resolved
    ``hparams``."""
    from paramcount.analyze.verify import compare
    from paramcount.core.formula import to_int
    from paramcount.model.frameworks import for_framework, torch_path

    shown = for_framework(arch, framework, hparams)
    leaves = list(shown.formula.leaves())
    path = torch_path if framework == "transformers" else (lambda n: n)
    tensors = list(ckpt.tensors)
    if framework == "transformers":
        path = _renamed(arch, ckpt, path)
    mtp = (ckpt.config or {}).get("num_nextn_predict_layers")
    extras, apart = _extras(tensors, hparams.get("L"),
                            mtp if isinstance(mtp, int) and not isinstance(mtp, bool) else 0)
    extras += _packing(tensors)
    if framework == "transformers":  # per-expert tensors, stacked as transformers holds them
        from paramcount.analyze.checkpoints import layouts

        tensors = [t for t in tensors if t.name in apart] + layouts.apply(
            [t for t in tensors if t.name not in apart], (ckpt.config or {}).get("model_type"))
    values = shown.values(hparams)
    zero = {lf.path for lf in leaves if lf.term.match and to_int(lf.expr, values, lf.path) == 0}
    kept = _chosen([t for t in tensors if t.name not in apart], leaves, path, zero)
    owners = {t.name: [lf for lf in leaves if lf.claims(path(t.weight_name))] for t in kept}
    embedded = {t.shape for t in kept
                if any(lf.kind == "embedding" for lf in owners[t.name])}
    twice = [t for t in kept if owners[t.name] and all(lf.path in zero for lf in owners[t.name])
             and t.shape in embedded]
    if twice:
        extras.append(Extra("tied head stored twice", "the config ties the output head to the "
                            "token embedding, yet the checkpoint stores the head's copy as well "
                            "(loading ties them again: one matrix, stored twice)",
                            tuple(t.name for t in twice), sum(t.numel for t in twice)))
    for pat, term, why in _STORED:  # buffers no leaf claims
        hit = [t for t in kept if not owners[t.name] and pat.search(t.name)]
        if hit:
            extras.append(Extra(term, why, tuple(t.name for t in hit), sum(t.numel for t in hit)))
    apart = {n for e in extras if e.term != "packed weights" for n in e.tensors}
    weights = [Weight(path(t.weight_name), t.logical,
                      all(lf.term.trainable for lf in owners[t.name]), t.shape)
               for t in kept if t.name not in apart]
    from paramcount.analyze.checkpoints import converted

    held = {lf.path: t for t in kept if t.name not in apart for lf in owners[t.name]}
    dropped = [Extra(*t) for t in converted.terms(ckpt, leaves, path, held, values, zero)]
    extras += dropped
    compared = shown
    if dropped:  # the file against the tree its converter writes: the terms' deltas applied
        import dataclasses

        from paramcount.model.frameworks import with_deltas

        compared = dataclasses.replace(shown, formula=with_deltas(
            shown.formula, tuple(e.delta for e in dropped if e.delta)))
        leaves = list(compared.formula.leaves())
    v = compare(compared, hparams, weights, name=ckpt.path, framework=framework)
    by_path = {c.path: c for c in v.components}
    missing = tuple((lf.path, by_path[lf.path].expected) for lf in leaves
                    if lf.term.match and not by_path[lf.path].weights
                    and by_path[lf.path].expected)
    tied = tuple(lf.path for lf in leaves if lf.path in zero and not by_path[lf.path].weights
                 and lf.kind == "head")
    extras, stored_formula = _through_deltas(extras, arch, shown, framework, hparams)
    return CheckpointCheck(ckpt, arch.id, dict(hparams), v, tuple(extras), missing, tied,
                           v.formula + v.formula_nontrainable + sum(e.built for e in dropped),
                           framework, stored_formula)


def _through_deltas(extras: list[Extra], arch, shown, framework: str, hparams
                    ) -> tuple[list[Extra], int]:
    """Each extra as a :class:`Delta` on the framework's tree, and that tree's total with them
    applied (the stored figure the formula explains). An extra whose count is exactly a term
    the framework's own delta removes (``Delta(path, None, reason)``) is that term put back,
    named by the delta; any other is a constant term added under the root."""
    import dataclasses

    import sympy

    from paramcount.core.formula import Term, to_int
    from paramcount.model.frameworks import with_deltas

    values = {**arch.values(hparams), **shown.values(hparams)}
    ref = arch.transformers if framework == "transformers" else None
    removed = [(d, t) for d in (ref.deltas if ref else ()) if d.term is None
               and (t := _term_at(arch.formula, d.path)) is not None]
    out: list[Extra] = []
    for e in extras:
        if e.delta is not None:  # its own (a converter's term, paramcount.analyze.checkpoints.converted)
            out.append(e)
            continue
        hit = next(((d, t) for d, t in removed if not e.built
                    and to_int(t.total(), values, d.path) == e.difference), None)
        if hit:
            d, t = hit
            delta = Delta(d.path, t, d.reason)
            e = dataclasses.replace(e, reason=f"{e.reason}; the formula's term `{d.path}`, which "
                                    f"the {framework} model leaves out: {d.reason}")
        else:
            slug = re.sub(r"\W+", "_", e.term).strip("_")
            slug += f"_{len(out)}" if any(o.delta and o.delta.path == f"stored_{slug}"
                                           for o in out) else ""
            delta = Delta(f"stored_{slug}", Term(f"stored_{slug}", sympy.Integer(e.difference),
                                                 note=e.reason), e.reason)
        out.append(dataclasses.replace(e, delta=delta))
    tree = with_deltas(shown.formula, tuple(e.delta for e in out if e.delta))
    return out, to_int(tree.total(), values, "the stored figure")


def _term_at(root, path: str):
    node = root
    for name in path.split("."):
        node = next((c for c in node.children if c.name == name), None)
        if node is None:
            return None
    return node


def _chosen(tensors: list[StoredTensor], leaves, path, zero: set[str]) -> list[StoredTensor]:
    """Each tensor under the one of its candidate names (a GGUF tensor's, from gguf's map) that
    a formula leaf claims, each name taken once. The tensors with the fewest claimed candidates
    choose first; among a tensor's candidates, one whose leaf has a count (not a tied head) and
    holds no tensor of the same block and kind (``weight``, ``bias``) yet, then one under the
    prefix most tensors' names take (``model.``), then the map's order: Falcon-40B's
    ``attn_norm`` is ``ln_mlp`` once ``attn_norm_2`` has taken ``ln_attn``'s leaf (a one-norm
    Falcon's ``input_layernorm`` names the same leaf)."""
    if not any(t.alternatives for t in tensors):
        return tensors
    import dataclasses
    from collections import Counter

    def leaf_of(name: str):
        return next((lf.path for lf in leaves if lf.claims(path(name))), None)

    options = {t.name: [(n, leaf) for n in dict.fromkeys((t.weight_name, *t.alternatives))
                        if (leaf := leaf_of(n)) is not None] for t in tensors}
    # the prefix most tensors' first claimed candidate has (``model.``): among equals, preferred
    firsts = Counter(o[0][0].split(".")[0] for o in options.values() if o)
    main = firsts.most_common(1)[0][0] if firsts else ""
    taken: set[str] = set()
    filled: set[tuple] = set()  # (leaf, block, the name's last segment: weight, bias)
    chosen: dict[str, StoredTensor] = {}
    for t in sorted(tensors, key=lambda t: len(options[t.name]) or 1 << 30):
        m = _LAYER.search(t.name)
        block = (m.group(1) if m else None, t.name.rpartition(".")[2])
        free = [(i, n, leaf) for i, (n, leaf) in enumerate(options[t.name]) if n not in taken]
        if free:
            _, name, leaf = min(free, key=lambda o: (o[2] in zero, (o[2], block) in filled,
                                                     o[1].split(".")[0] != main, o[0]))
            taken.add(name)
            filled.add((leaf, block))
        else:
            name = t.weight_name
        chosen[t.name] = dataclasses.replace(t, logical_name=name, alternatives=())
    return [chosen[t.name] for t in tensors]


def chosen_names(rows: list[tuple[str, list[str]]], arch, hparams
                 ) -> list[tuple[str, str, str]]:
    """(name, candidates) → (name, the candidate :func:`check` keeps, the leaf that claims it),
    for the rows a leaf with a count at ``hparams`` claims (the report's GGUF tables)."""
    from paramcount.core.formula import to_int
    from paramcount.model.frameworks import for_framework, torch_path

    shown = for_framework(arch, "transformers", hparams)
    leaves = list(shown.formula.leaves())
    values = shown.values(hparams)
    zero = {lf.path for lf in leaves if lf.term.match and to_int(lf.expr, values, lf.path) == 0}
    fake = [StoredTensor(g, "F32", (), 0, 0, logical_name=c[0], alternatives=tuple(c[1:]))
            for g, c in rows]
    out = []
    for t in _chosen(fake, leaves, torch_path, zero):
        leaf = next((lf.path for lf in leaves if lf.claims(torch_path(t.weight_name))), None)
        if leaf is not None and leaf not in zero:
            out.append((t.name, t.weight_name, leaf))
    return out


def _renamed(arch, ckpt: Checkpoint, path):
    """Names as the family's ``Transformers.rename`` sees them (Gemma 4's global layers, told
    apart by the config's ``layer_types``)."""
    import types

    rename = arch.transformers.rename if arch.transformers is not None else None
    if rename is None:
        return path
    cfg = dict(ckpt.config or {})
    cfg = {**cfg, **(cfg.get("text_config") or {})}
    ns = types.SimpleNamespace(**cfg)

    def renamed(name: str) -> str:
        try:
            return rename(path(name), ns)
        except (AttributeError, IndexError, KeyError, TypeError):
            raise InputFileError(f"{ckpt.path}: {arch.id} tells its layers apart by the config "
                                 "(layer_types), which the config beside the checkpoint does "
                                 "not give for every layer") from None
    return renamed


def framework_of(ckpt: Checkpoint, source: str) -> str:
    """The names a checkpoint's tensors carry: Keras paths for a KerasHub preset's weights file,
    transformers' otherwise."""
    if ckpt.format.startswith("Keras"):
        return "keras"
    if source == "KerasHub config":
        raise InputFileError(f"{ckpt.path}: a {ckpt.format} checkpoint names its tensors as "
                             "transformers does; read it with a transformers config.json")
    return "transformers"
