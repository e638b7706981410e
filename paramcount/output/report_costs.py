"""The report's page "Memory and compute": the KV cache and the forward FLOPs of every
architecture with a transformers reference, their proofs, each published preset at two context
lengths, a plot of cache bytes against the context, and how far the rules of thumb miss.

Every figure is the formula tree of :mod:`paramcount.model.cost` evaluated exactly at a preset;
each architecture's line says whether that tree is proven against transformers' meta-device
measurement (:mod:`paramcount.analyze.costs`). Nothing here names a family: the plot picks one
architecture per kind of cache, a kind being the symbols its per-layer cache depends on.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

from paramcount.core.errors import ParamcountError
from paramcount.model import registry

if TYPE_CHECKING:
    from paramcount.output.plots import Plot
    from paramcount.output.report_pages import Inputs

__all__ = ["CONTEXTS", "FIGURE", "kv_figure", "preset_rows", "section", "tally"]

FIGURE = "kv_cache.svg"
CONTEXTS = (8192, 131072)  # the contexts the preset table and the findings are at
DTYPE_BYTES = 2  # bf16, the weights' and the cache's

HEAD = """\
Beside each parameter count, the two questions it is asked for: *will it fit, at what context,*
and *what does a token cost?* Each is a formula tree in the paper's notation, read off the
architecture's parameter tree (`paramcount.model.cost`), with the context **T** and the batch
**B** among its hyperparameters, and checked like a parameter count: against transformers' own
model on the meta device (nothing allocated), component by component, and proven for all
hyperparameters with the same method (T and B interpolated like a layer count).

- **KV cache**: the elements the cache a forward with `use_cache=True` returns holds after B
  sequences of T tokens; bytes at bf16 (2 per element).
- **Forward FLOPs**: what torch's `FlopCounterMode` counts for one forward over B × T tokens: 2 per
  multiply-accumulate of every matrix product, the attention's scores and weighted values over
  all T keys (a causal mask hides half of them and skips no multiply), the LM head at every
  position. FLOPs per token below are the forward's over B·T.
- **FLOPs per generated token**: one more token in each sequence, against the cache the T tokens
  before it left (every dense map on the new token, its query against the positions the cache
  keeps and its own), as `FlopCounterMode` counts transformers' step on the meta device
  (`paramcount.analyze.decode`). Checked at each architecture's first example set and three
  contexts (`tests/test_costs.py`; every example set and preset with `--runslow`), not proven
  yet. A compressed latent (DeepSeek's) is decompressed over the whole cache at each step, as
  transformers computes it. Not formulated where a step is another computation than the
  forward's: a recurrent mixer's, an encoder-decoder's decoder.
- **Under a router**, each token's k experts are gathered on the meta device (transformers'
  `batched_mm`: the products of its loop over the routed experts, in shapes known before the
  data), checked module by module against a small real model running that loop on the CPU, and
  proven; where the gathered (B·T·k) × d_f × d_e tensor passes torch's byte count only at values
  below 2^16, a proof stays inconclusive (the table below gives its bound). A class whose experts
  run only in the loop is measured for real and checked, not proven.
- **Training FLOPs** are a named convention, not a measurement: forward + backward = 3 × forward
  (the backward pass twice the forward's products), set beside the 6N rule (Kaplan et al. 2020).
- **Training memory** is a named convention too (`paramcount.model.training`): weights, gradients
  and AdamW's states under mixed precision, 16 bytes a trainable parameter (ZeRO's accounting),
  set beside what `accelerate estimate-memory` shows; activations are in neither.
"""


def _proof_cell(proofs: dict, aid: str, quantity: str) -> str:
    from paramcount.analyze.cost_status import unprovable

    p = proofs.get(aid)
    if p is None:
        return unprovable(registry.get(aid), quantity) or "—"
    bad = [c for c in p.cases if c.status != "proven"]
    if not bad:
        return "proven"
    proven = len(p.cases) - len(bad)
    first = " ".join(bad[0].message.split())[:160]
    return (f"{bad[0].status} ({len(bad)} of {len(p.cases)} cases; {proven} proven): "
            f"{bad[0].case}: {first}").replace("|", "/")


def _ids(cost_proofs: Mapping[str, list]) -> list[str]:
    return sorted({p.arch for ps in cost_proofs.values() for p in ps})


def _proven(cost_proofs: Mapping[str, list], aid: str) -> bool:
    return all(any(p.arch == aid and p.status == "proven" for p in cost_proofs.get(q, ()))
               for q in ("flops", "kv"))


def preset_rows(cost_proofs: Mapping[str, list]):
    """(architecture, preset, hyperparameters, parameters, KV elements (None where the preset's
    file caches otherwise than the tree: :func:`paramcount.analyze.costs.config_problem`) and
    FLOPs at each of CONTEXTS, non-trainable weights, FLOPs per generated token at each of
    CONTEXTS or None where not formulated) at each published preset of an architecture proven for both quantities, that
    transformers builds (B = 1)."""
    from paramcount.analyze import costs
    from paramcount.model.frameworks import for_framework
    from paramcount.output.plots import preset_sets

    out = []
    for aid in _ids(cost_proofs):
        if not _proven(cost_proofs, aid):
            continue
        arch = registry.get(aid)
        for label, _, hp in preset_sets([aid]):
            name = label.split(" · ", 1)[1]
            try:
                shown = for_framework(arch, "transformers", hp)
                shown.resolve(hp)
                n = shown.count(hp)
                values = {}
                config = dict(arch.preset(name).config)  # the checkpoint's window
                for q in ("kv", "flops", "decode"):
                    values[q] = {t: costs.value(arch, q, hp, t, 1, config) for t in CONTEXTS} \
                        if costs.formulated(arch, q) is None and not (
                            q == "kv" and costs.config_problem(arch, hp, config)) else None
            except (ParamcountError, ValueError):  # a preset transformers does not build
                continue
            out.append((aid, name, hp, n, values["kv"], values["flops"],
                        shown.count_nontrainable(hp), values["decode"]))
    return out


def _gib(b: int) -> str:
    return f"{b / 2**30:,.3g} GiB"


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:+.1f} %"


def section(inp: Inputs) -> str:
    from paramcount.analyze import costs
    from paramcount.analyze.costs import formulated

    proofs = {q: {p.arch: p for p in ps} for q, ps in inp.cost_proofs.items()}
    lines = [HEAD, "## Proofs", "",
             "| architecture | forward FLOPs | KV cache | FLOPs per generated token |",
             "|---|---|---|---|"]
    hf = sorted({r.arch for r in inp.results if registry.get(r.arch).transformers is not None})
    for aid in hf:
        arch = registry.get(aid)
        cells = []
        for q in ("flops", "kv"):
            why = formulated(arch, q)
            cells.append(_proof_cell(proofs.get(q, {}), aid, q) if why is None
                         else f"not formulated: {why}")
        why = formulated(arch, "decode")
        cells.append("checked, not proven" if why is None else f"not formulated: {why}")
        lines.append(f"| {aid} | {' | '.join(cells)} |")
    rows = preset_rows(inp.cost_proofs)
    t0, t1 = CONTEXTS
    lines += ["", f"## Published presets at T = {t0:,} and {t1:,} (B = 1, bf16)", "",
              "| architecture · preset | parameters N | weights | KV cache at "
              f"{t0:,} | KV cache at {t1:,} | forward FLOPs per token at {t0:,} | ÷ 2N | "
              f"FLOPs per generated token at {t0:,} | at {t1:,} |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for aid, name, _, n, kv, fl, nt, dec in rows:
        per_token = Fraction(fl[t0], t0)
        step = [f"{dec[t]:,}" if dec else "—" for t in CONTEXTS]
        cache = [_gib(kv[t] * DTYPE_BYTES) if kv else "—" for t in CONTEXTS]
        lines.append(f"| {aid} · {name} | {n:,} | {_gib((n + nt) * DTYPE_BYTES)} | "
                     f"{cache[0]} | {cache[1]} | "
                     f"{float(per_token):,.4g} | {float(per_token / (2 * n)):.3f} | "
                     f"{step[0]} | {step[1]} |")
    for aid, name, hp, _, kv, *_ in rows:
        if kv is None:
            why = costs.config_problem(registry.get(aid), hp, dict(registry.get(aid).preset(name).config))
            lines += ["", f"No KV cache is given for {aid} · {name}: {why}."]
    lines += ["", "## How far the rules of thumb miss", "",
              "Training FLOPs per token (3 × forward, the convention) against 6N, and the "
              "forward against 2N, at each context (B = 1): the 2N rule counts each weight "
              "once per token and leaves out the attention over the context, which grows "
              "with T.", "",
              "| architecture · preset | 6N | training at " + f"{t0:,} | miss | training at {t1:,} "
              "| miss |", "|---|---:|---:|---:|---:|---:|"]
    for aid, name, _, n, _, fl, *_ in rows:
        cells = []
        for t in CONTEXTS:
            train = Fraction(3 * fl[t], t)
            cells += [f"{float(train):,.4g}", _pct(Fraction(6 * n) / train - 1)]
        lines.append(f"| {aid} · {name} | {6 * n:,} | " + " | ".join(cells) + " |")
    lines += _training(rows)
    lines += _keras_caches(inp.keras_caches)
    if rows:
        lines += ["", f"![KV cache against context]({FIGURE})"]
    return "\n".join(lines)


def _keras_caches(rows) -> list[str]:
    """KerasHub's generation cache beside transformers' (:mod:`paramcount.analyze.keras_cache`)."""
    if not rows:
        return []
    out = ["", "## KerasHub's generation cache", "",
           "What each KerasHub causal LM allocates for generation (`_build_cache`, read "
           "allocation-free: the zeros it asks for, its seeding forward never run) for one prompt "
           "of T tokens at its first preset, beside transformers' cache (the KV-cache tree, "
           "proven above), and what makes them differ. KerasHub's is the same tree with no "
           "window, or the difference its family declares (`tests/test_keras_cache.py` checks "
           "both at example sets and presets).", "",
           "| architecture · preset | T | KerasHub (elements) | transformers (elements) | "
           "difference |", "|---|---:|---:|---:|---|"]
    for r in rows:
        theirs = "—" if r.transformers is None else f"{r.transformers:,}"
        why = r.why or "none"
        if r.keras != r.expected:  # a finding, not hidden: KerasHub allocates something else
            why = f"**unexplained**: the tree says {r.expected:,}"
        out.append(f"| {r.arch} · {r.preset} | {r.context:,} | {r.keras:,} | {theirs} | {why} |")
    return out


def _training(rows) -> list[str]:
    """The training-memory table: each preset's weights, gradients and AdamW states under mixed
    precision beside accelerate's "Training using Adam" at bfloat16 (its largest part, not the
    sum: 8 bytes a parameter against 16)."""
    from paramcount.model.training import accelerate_bytes, training_bytes

    lines = ["", "## Training memory: weights, gradients and AdamW states", "",
             "Mixed-precision AdamW (16-bit weights and gradients, fp32 master weights and two "
             "fp32 moments: 16 bytes a trainable parameter, 2 a non-trainable weight) beside "
             "`accelerate estimate-memory`'s \"Training using Adam\" at bfloat16, which shows "
             "the largest of its parts (the optimizer's states, 8 bytes a parameter) rather than "
             "their sum. Activations are in neither.", "",
             "| architecture · preset | trainable | non-trainable | mixed-precision AdamW | "
             "accelerate (bf16) | accelerate's miss |", "|---|---:|---:|---:|---:|---:|"]
    for aid, name, _, n, _, _, frozen, _ in rows:
        ours = training_bytes(n, frozen)
        theirs = accelerate_bytes(n + frozen, "bfloat16")
        lines.append(f"| {aid} · {name} | {n:,} | {frozen:,} | {_gib(ours)} | {_gib(theirs)} | "
                     f"{_pct(Fraction(theirs, ours) - 1)} |")
    return lines


def tally(inp: Inputs) -> str:
    proven = [a for a in _ids(inp.cost_proofs) if _proven(inp.cost_proofs, a)]
    return (f"KV cache and forward FLOPs as formulas in T and B: {len(proven)} architectures "
            "proven for both against transformers, their presets at 8k and 128k tokens")


def kv_figure(cost_proofs: Mapping[str, list]) -> Plot | None:
    """KV-cache bytes (bf16, B = 1) against T: one architecture per kind of cache (the symbols
    its cache tree depends on), at its first published preset; None where none is proven."""
    from paramcount.analyze import costs
    from paramcount.output.plots import kv_cache_figure

    picked: dict[frozenset, tuple[str, str, dict]] = {}
    for aid, name, hp, _, kv, *_ in preset_rows(cost_proofs):
        if kv is None:  # the preset's file caches otherwise than the tree (costs.config_problem)
            continue
        kind = frozenset(s.name for s in costs.tree(registry.get(aid), "kv")[0].free_symbols())
        picked.setdefault(kind, (aid, name, hp))
    if not picked:
        return None
    ts = [2 ** k for k in range(8, 18)]
    series = {}
    for aid, name, hp in sorted(picked.values()):
        arch = registry.get(aid)
        config = dict(arch.preset(name).config)
        series[f"{aid} · {name}"] = [(t, costs.value(arch, "kv", hp, t, 1, config) * DTYPE_BYTES)
                                     for t in ts]
    return kv_cache_figure(series)
