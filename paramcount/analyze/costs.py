"""Memory and compute, checked: each architecture's forward-FLOPs and KV-cache trees
(:mod:`paramcount.model.cost`) against what transformers' model does on the meta device.

A quantity is checked the way a parameter count is: :func:`quantity_arch` is the architecture as
transformers builds it with the quantity's tree for a formula, T and B among its hyperparameters,
and a reference that measures (``reference_models.hf_costs:cost_weights``, in a torch worker: torch's
``FlopCounterMode`` per module, the cache's tensors per layer). :func:`check` compares one set
component by component with the verifier's own attribution, and the prover decides the tree for
all hyperparameters with the same oracle (:func:`paramcount.analyze.prove.prove`).

An encoder-decoder's forward is of B sequences of T source tokens *and* T target tokens (the
measurement gives the same ids as ``input_ids`` and ``decoder_input_ids``: one length T for both,
there being no second length symbol): the encoder runs on T positions, the decoder on T, its
cross-attention's T queries against the T encoder positions. Its cache (transformers'
``EncoderDecoderCache``) holds, per decoder layer, the self-attention's keys and values at the T
target positions and the cross-attention's at the T source positions, each measured beside the
attention that wrote it; the encoder caches nothing (:func:`paramcount.model.cost.without_cache`).
An image encoder (a class whose main input is ``pixel_values``: ViT) runs on images, not
tokens: its forward is of B images at the config's image size H × W (zeros: the count does not
depend on the pixels), so its positions are the (H/P)·(W/P) patches and the class token whatever
T, and T plays no part in its trees; it caches nothing (an encoder's positions attend both ways).

An image-text model (a decoder-only class whose config holds a ``vision_config``: PaliGemma's)
runs on B sequences of T tokens of which N are image tokens, with one image per sequence at its
vision config's image size: its vision tower runs on the image's patches, its projection on the
N image tokens (PaliGemma's: one per patch, (H/P)²), whatever T, and the decoder on all T
positions, caching their keys and values; the tower caches nothing. transformers' forward
requires exactly N image-token ids in each sequence, so T ≥ N is a constraint of the quantity
(:func:`image_tokens`). The measurement, on the meta device, cannot read the ids (nor write
them): it gives the image beside T ids and skips transformers' check that they hold N image
tokens (a check that reads values and computes nothing), so the forward it counts is the one
transformers runs on ids holding them.
(Said here, not in :mod:`paramcount.model.cost`, whose source keys the parameter proofs of the
architectures whose reference builders import it.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

from paramcount.analyze.cost_result import WITHHELD, Costs, Quantity, no_position_left
from paramcount.core.errors import ParamcountError
from paramcount.core.symbols import B, T
from paramcount.model import cost
from paramcount.model.cost import NO_WINDOW
from paramcount.model.frameworks import for_framework
from paramcount.model.weights import Named

if TYPE_CHECKING:
    from paramcount.analyze.verify import Verification
    from paramcount.model.dtypes import Dtype
    from paramcount.model.registry import Architecture

__all__ = [
    "NO_WINDOW",
    "QUANTITIES",
    "Costs",
    "Quantity",
    "at",
    "check",
    "check_config",
    "evaluate",
    "formulated",
    "image_tokens",
    "per_head_kv",
    "proof",
    "proof_subspace",
    "quantity_arch",
    "tree",
    "value",
]

#: The proven quantities (paramcount.model.cost's), then FLOPs per generated token
#: (paramcount.analyze.decode: checked, not proven yet).
QUANTITIES = (*cost.QUANTITIES, "decode")


def tree(arch: Architecture, quantity: str, hparams: Mapping[str, int] | None = None):
    """The ``quantity`` tree of ``arch`` as transformers builds it (at ``hparams``' class), and
    the components whose cost is not formulated (ParamcountError when there is no transformers
    reference)."""
    return _of(for_framework(arch, "transformers", hparams).formula, quantity)


def per_head_kv(arch: Architecture, hparams: Mapping[str, int] | None = None):
    """The KV cache of ``arch`` as a cache keeping every query head's own key and value,
    decompressed, would hold it (:func:`paramcount.model.cost.kv_cache` ``per_head``): a named
    convention beside the class's cache, not a measurement."""
    return cost.kv_cache(for_framework(arch, "transformers", hparams).formula, per_head=True)


def _of(formula, quantity: str):
    """The ``quantity`` tree of a transformers-side parameter tree, and its unformulated leaves."""
    if quantity == "flops":
        return cost.forward_flops(formula)
    if quantity == "kv":
        return cost.kv_cache(formula), ()
    if quantity == "decode":
        from paramcount.analyze.decode import decode_flops

        return decode_flops(formula)
    raise ParamcountError(f"unknown quantity {quantity!r}; known: {', '.join(QUANTITIES)}")


def formulated(arch: Architecture, quantity: str) -> str | None:
    """Why ``arch``'s ``quantity`` has no formula here (no transformers reference, a reason its
    family declares, components whose cost is not formulated), or None where its tree is whole
    (:func:`paramcount.model.frameworks.unformulated`)."""
    from paramcount.model.frameworks import unformulated

    try:
        why = unformulated(arch, quantity).get(quantity) or _task_head(arch, quantity)
        if why is None and quantity == "kv" and _uncached_attention(arch):
            why = "its attention is not one the cache tree recognises (no key and value widths)"
        if why is None and quantity == "decode":  # (a step is against the class's cache)
            from paramcount.analyze.decode import why_not

            why = formulated(arch, "flops") or formulated(arch, "kv") or why_not(arch)
        return why
    except (ParamcountError, ValueError, KeyError) as exc:
        return str(exc)


def _task_head(arch: Architecture, quantity: str) -> str | None:
    """Why a task class's cost is not claimed: whether a class with a classification or span
    head returns the cache at all is its own (GPT2ForTokenClassification returns none; Llama's
    sequence classifier does), and a sequence classifier's head runs on the positions it pools
    (DistilBERT's on the first, Llama's on every one); its base model's and its language model's
    are checked."""
    from paramcount.model import heads

    base, _, cls = arch.id.partition(":")
    if not cls:
        return None
    kind = next((r.names[cls] for r in heads.rows(base) if cls in r.names), None)
    if kind in (None, heads.BASE, heads.LM):
        return None
    if quantity == "kv":
        return f"{cls} ({kind}): whether it returns a cache is its own, not checked"
    if kind == heads.SEQUENCE:
        return f"{cls} ({kind}): the positions its head runs on are its own, not checked"
    return None


def _uncached_attention(arch: Architecture) -> bool:
    """Whether ``arch``'s class returns a cache (it is not declared without one) while its cache
    tree holds nothing: attention the tree does not recognise (a fused projection that says no
    ``caches``), whose cache would read as zero."""
    ref = arch.transformers.pick(None) if arch.transformers is not None else None
    if ref is None or not getattr(ref, "caches", True):
        return False
    formula, _ = tree(arch, "kv")
    return formula.total() == 0


def quantity_arch(arch: Architecture, quantity: str,
                  hparams: Mapping[str, int] | None = None, proving: bool = True) -> Architecture:
    """``arch`` as transformers builds it, its formula the ``quantity`` tree, T and B required,
    and a reference that measures the quantity (so ``verify.compare`` and ``prove`` take it as
    they take a parameter count). Without ``proving``, the constraints the prover alone keeps
    to (``prove_within``: its own sub-space) are left out, so a set outside it is evaluated too
    (Jamba v0.1's 4 attention layers beside 16 MoE layers), its figure then not said proven
    (:func:`evaluate`)."""
    import sympy

    from paramcount.core.hparams import Divisible, Relation
    from paramcount.core.symbols import G_ssm, H_lk, H_lv, H_ssm, M, d_e, n, w

    built = for_framework(arch, "transformers", hparams)
    formula, _ = _of(built.formula, quantity)  # (the one build of the transformers view)
    # transformers' sliding-window cache keeps the last w − 1 positions by the slice [-w + 1:],
    # which at w = 1 is [0:], every position: a window of 1 is not one
    narrow = Relation(2, "<=", w, reason="a sliding window of 1 keeps every position in "
                      "transformers' cache (its slice [-w + 1:] is [0:])")
    window: tuple[Relation | Divisible, ...] = (narrow,) if w in formula.free_symbols() else ()
    if any(x.has(sympy.floor(d_e / M)) for x in built.fixed.values()) \
            and Divisible(d_e, M) not in built.constraints:
        # a forward needs whole heads: heads floored to M·⌊d_e/M⌋ columns are weights
        # transformers builds, but its forward cannot multiply them into the d_e-wide output
        # (ALBERT's, ELECTRA's)
        window += (Divisible(d_e, M),)
    # what a forward repeats over heads, a build does not: a Mamba-2 mixer each group's B and C
    # (repeat_interleave H_ssm // G_ssm times, to H_ssm heads), a gated DeltaNet its key heads'
    # queries and keys (H_lv // H_lk times, to the H_lv value heads)
    for need in (Divisible(H_ssm, G_ssm), Divisible(H_lv, H_lk)):
        if {need.dividend, need.divisor} <= built.formula.free_symbols() \
                and need not in built.constraints:
            window += (need,)
    if n in built.formula.free_symbols():  # learned positions: a table of n rows
        window += (Relation(T, "<=", n, reason="the context may not exceed the n positions the "
                            "position table holds"),)
    # after the hyperparameters' own (the prover writes T over them: H = P·H' first)
    images = tuple(Relation(x, "<=", T, reason="the image's tokens are among the T positions "
                            "(transformers refuses ids holding fewer image tokens than the image "
                            "has features)") for x in image_tokens(built.formula))
    return dataclasses.replace(
        built, formula=formula, required=(*built.required, T, B),
        # a forward runs here: what it needs (the notes: an even rotary width) holds, and what
        # the class's validators refuse (prove_within: validate_rope's odd head widths) is not
        # drawn, as in the parameter proof
        constraints=(*window, *(proof_subspace(arch) if proving else ()), *built.constraints, *images,
                     *(r.constraint for r in built.notes)),
        reference=Named(_ORACLES.get(quantity, "reference_models.hf_costs:cost_weights"),
                        (arch.id, quantity)),
        frameworks=("transformers",), keras_hub_metadata=False)


_ORACLES = {"decode": "reference_models.hf_decode:decode_weights"}


def image_tokens(formula) -> list:
    """The image tokens an image-text model's sequence holds (each distinct count once): the
    positions its projection of the image into token embeddings runs on (a leaf of kind
    ``projection`` whose ``tokens`` are not T's), placed at as many of the T token positions."""
    out: list = []
    for lf in formula.leaves():
        tokens = lf.term.costs().get("tokens")
        if lf.term.kind == "projection" and tokens is not None and tokens != 0 \
                and T not in tokens.free_symbols and tokens not in out:
            out.append(tokens)
    return out


def proof_subspace(arch: Architecture) -> tuple:
    """The constraints the prover keeps to for ``arch``'s transformers class (its
    ``prove_within``: what its config validators refuse, no build or forward needs)."""
    return tuple(getattr(arch.transformers, "prove_within", ()) or ())


def check_config(path, context: int, batch: int) -> dict[str, tuple[int | None, int | None, str]]:
    """A config file's costs, as ``count --config --context`` gives them, against the model its
    file describes, built from the file itself by transformers (``reference_models.hf_configs``,
    in a torch worker): quantity → (paramcount's, transformers', why there is no comparison).
    ``context`` is cut to the position table's n rows where positions are learned."""
    import json

    from paramcount.analyze import configs
    from paramcount.model import registry
    from paramcount.runtime import isolate

    data, where = configs.load_json(path)
    reading = configs.read_data(data, where)
    arch = registry.get(reading.arch)
    hp = arch.resolve(reading.hparams)
    context = min(context, hp.get("n", context))  # learned positions: at most n
    try:
        measured = isolate.call("torch", Named("reference_models.hf_configs:config_costs",
                                               (json.dumps(data),)), {"T": context, "B": batch})
        why = ""
    except Exception as exc:
        measured, why = {}, f"{type(exc).__name__}: {exc}"
    out = {}
    for q in QUANTITIES:
        reason = formulated(arch, q) or class_problem(arch, hp, reading.cls, q) or (
            config_problem(arch, hp, dict(reading.costs)) if q == "kv" else None) or (
            no_position_left({**hp, "T": context}) if q == "decode" else None)
        ours = None if reason else value(arch, q, hp, context, batch, dict(reading.costs))
        out[q] = (ours, measured.get(q), reason or why)
    return out


def proof(arch: Architecture, quantity: str):
    """``quantity``'s tree ≡ transformers' measurement, for all hyperparameters: one proof per
    regime (:func:`regimes`), their cases labelled by the regime."""
    from paramcount.analyze.cost_regimes import regimes
    from paramcount.analyze.prove import prove
    from paramcount.analyze.prove.results import ArchProof

    parts = regimes(quantity_arch(arch, quantity))
    cases = []
    for label, qa in parts:
        for c in prove(qa).cases:
            case = c.case if not label else (label if c.case == "(no options)" else f"{label}: {c.case}")
            cases.append(dataclasses.replace(c, case=case))
    return ArchProof(arch.id, tuple(cases))




def at(arch: Architecture, hparams: Mapping[str, int], context: int, batch: int,
       config: Mapping[str, int | None] | None = None) -> dict[str, int]:
    """The values a cost tree of ``arch`` is evaluated at: ``hparams``; the cost symbols of its
    transformers class (a window's w) as ``config`` (a config file's fields, or a preset's) gives
    them, else at the class's defaults, a null window as :data:`NO_WINDOW`; the context T and
    the batch B."""
    from paramcount.model.frameworks import cost_values

    return {**hparams, **cost_values(arch, hparams, config), "T": context, "B": batch}


# transformers' classes that put a language-model head on a base model ``<stem>Model``: the head
# multiplies (FLOPs) but keeps no cache, which is the base model's
LM_HEADS = ("ForCausalLM", "ForConditionalGeneration")


def class_problem(arch: Architecture, hparams: Mapping[str, int], cls: str,
                  quantity: str | None = None) -> str | None:
    """Why a config naming the class ``cls`` is not costed by ``arch``'s trees (for
    ``quantity``, or for any): they describe the class transformers builds for ``arch`` (a
    config of OPTForCausalLM reads as OPTModel's parameters, the head being tied, but its
    forward multiplies by that head too). The KV cache of a language-model head on the trees'
    base model (:data:`LM_HEADS`) is that base model's: no problem."""
    from paramcount.model.frameworks import hf_class

    built = hf_class(arch, hparams)
    if built is None or built == cls:
        return None
    if quantity == "kv" and built.endswith("Model") \
            and cls in (built[:-len("Model")] + h for h in LM_HEADS):
        return None
    return f"the config's class {cls} is not the one the cost trees describe ({built})"


def config_problem(arch: Architecture, hparams: Mapping[str, int],
                   config: Mapping[str, int | None]) -> str | None:
    """Why a config's KV cache is not the tree's (its layer_types hold another number of
    full-attention layers than the tree's window pattern; Qwen's use_sliding_window set where the
    family has no window), or None: read from what :func:`paramcount.analyze.configs.read_data`
    kept of the file (``Reading.costs``)."""
    full, uses = config.get("full_attention_layers"), config.get("use_sliding_window")
    if full is None and not uses:
        return None
    base = at(arch, hparams, 1, 1, config)
    window = base.get("w")
    if uses and window is None:
        return "use_sliding_window is true: its windowed layers are not formulated for this family"
    layers = hparams.get("L")
    if full is None or layers is None:
        return None
    expected: int | None
    if window is None or window >= NO_WINDOW:
        expected = layers  # no window: every layer attends to all
    else:  # past the window the cache grows by the full layers' share alone
        one = value(arch, "kv", hparams, 1, 1, config)
        step = (value(arch, "kv", hparams, window + 1, 1, config)
                - value(arch, "kv", hparams, window, 1, config))
        expected = layers * step // one if one else None
    if expected == full:
        return None
    return (f"its layer_types hold {full} full-attention layers of {layers}, the formula's window "
            f"pattern {expected}")


def value(arch: Architecture, quantity: str, hparams: Mapping[str, int], context: int,
          batch: int, config: Mapping[str, int | None] | None = None) -> int:
    """``quantity`` of ``arch`` at resolved ``hparams``, ``context`` tokens × ``batch`` (the
    cost fields as ``config`` gives them: :func:`at`)."""
    qa = quantity_arch(arch, quantity, hparams, proving=False)
    return qa.formula.evaluate(qa.values(qa.resolve(at(arch, hparams, context, batch, config))))


def check(arch: Architecture, hparams: Mapping[str, int], context: int, batch: int
          ) -> dict[str, Verification]:
    """Each quantity's tree against the measurement of a forward of ``batch`` sequences of
    ``context`` tokens at resolved ``hparams``, component by component (in a torch worker)."""
    from paramcount.analyze.verify import compare
    from paramcount.runtime import isolate

    hp = at(arch, hparams, context, batch)
    measured = isolate.call("torch", Named("reference_models.hf_costs:costs", (arch.id,)), hp)
    if formulated(arch, "decode") is None and no_position_left(hp) is None:
        measured["decode"] = isolate.call(
            "torch", Named("reference_models.hf_decode:decode_weights", (arch.id, "decode")), hp)
    out = {}
    for q in (q for q in QUANTITIES if q in measured):
        qa = quantity_arch(arch, q, hparams)
        out[q] = compare(qa, hp, measured[q], name=f"T={context}, B={batch}",
                         framework="transformers")
    return out


def evaluate(arch: Architecture, hparams: Mapping[str, int], context: int, batch: int,
             dtype: Dtype, parameters: int,
             statuses: Mapping[str, tuple[str, str]] | None = None,
             config: Mapping[str, int | None] | None = None) -> Costs:
    """The costs of ``arch`` at resolved ``hparams`` for ``batch`` sequences of ``context``
    tokens, weights in ``dtype`` (``parameters`` of them); each quantity's number only where its
    tree is whole and not refuted: ``statuses`` gives each quantity's proof outcome and message
    (:func:`paramcount.analyze.prove.record.recorded`), "not proven" where not given; ``config``
    the cost fields (:func:`at`)."""
    from paramcount.core.formula import pretty
    from paramcount.model import dtypes

    values = at(arch, hparams, context, batch, config)
    # where the set lies outside the sub-space the proofs draw from (the same for each quantity)
    outside = [x for c in proof_subspace(arch) if (x := c.check(arch.values(hparams)))]
    out = {}
    for q in QUANTITIES:
        why = formulated(arch, q) or (config_problem(arch, hparams, config or {})
                                      if q == "kv" else None)
        if why is None and q == "decode":
            why = no_position_left(values)
        if why is not None:
            out[q] = Quantity(q, None, None, "", "not formulated", why)
            continue
        qa = quantity_arch(arch, q, hparams, proving=False)
        status, message = (statuses or {}).get(q, ("not proven", "no proof recorded"))
        if status == "proven" and outside:
            status, message = "not proven", (
                "proven for all hyperparameters where the proof draws its sets, not at this one: "
                + outside[0].split("; allowed")[0])
        if status in WITHHELD:  # a refuted formula prints no number
            out[q] = Quantity(q, None, None, pretty(qa.formula.total()), status, message)
            continue
        from paramcount.analyze.counting import count_rows

        vals = qa.values(qa.resolve(values))  # T ≤ n where positions are learned; w ≥ 2
        counts = qa.formula.node_counts(vals)
        total = qa.formula.evaluate(vals)
        named = []
        if q == "kv" and (per_head := per_head_kv(arch, hparams).evaluate(vals)) != total:
            named.append(("per_head", per_head))
        out[q] = Quantity(q, total, qa.formula.breakdown(vals),
                          pretty(qa.formula.total()), status, message,
                          tuple(count_rows(qa, values, counts)), tuple(named))
    size, exact = dtypes.weight_bytes(arch, hparams, parameters, dtype)
    return Costs(context, batch, dtype, dtypes.cache_dtype(dtype), parameters, size, exact, out)
