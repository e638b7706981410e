"""Memory and compute against transformers: every architecture's forward-FLOPs and KV-cache trees
(:mod:`paramcount.model.cost`) agree exactly, component by component, with what transformers'
model computes and caches (``reference_models.hf_costs.costs``: torch's FlopCounterMode on the meta
device, a router's experts gathered per token, or a tiny real model on the CPU where the class
cannot gather them), at B = 2 and three contexts T
(one past any sliding window), or the architecture declares the quantity not formulated, with its
reason, and the check really fails there (so a stale declaration fails this test).

The default run checks the first example set of each architecture (one torch worker call per set
and T); ``--runslow`` every example set and every preset. The unit tests at the end build small
trees by hand."""

from __future__ import annotations

import pytest
import sympy

from paramcount.analyze.verify import transformers_missing
from paramcount.core.errors import ParamcountError, Refused
from paramcount.core.formula import Term, group, leaf, zero
from paramcount.core.symbols import B, E, L, M, T, d_e, d_f, d_k, v, w
from paramcount.core.symbols import k as k_act
from paramcount.model import cost, frameworks, registry
from paramcount.model.components.basic import dense, layer_norm
from tests._shared import torch_side

WINDOW = 8  # the window the example sets are measured with: T = 5 below it, 11 and 37 past it
# Sets whose weights transformers builds but whose forward it cannot run, with why.
NO_FORWARD = {
    (a, "uneven_heads"): "transformers builds the floored heads' projections (M·⌊d_e/M⌋ wide) "
                         "but its forward cannot multiply them by the d_e-wide output"
    for a in ("albert", "albert_masked_lm", "electra")
} | {
    ("zamba2", "tiny_attention_adapters"): "transformers builds the attention adapters 2·d_e "
                                           "wide, but its forward adds the key's and value's to "
                                           "the M_kv·d_k-wide keys and values (M_kv < M: no "
                                           "broadcast)",
} | {
    # an odd head width with full rotary positions that the config class does not refuse
    # (validate_rope refuses an odd one above 4, and only where the class runs it): the weights
    # build, but RoPE's cos and sin are ⌈d_k/2⌉·2 wide and the forward cannot broadcast them
    (a, name): "transformers builds these odd rotary heads, but its forward cannot rotate them "
               "(RoPE's cos and sin are one column wider than a head)"
    for a, name in (("qwen", "tiny_untied_odd"), ("qwen", "tiny_mqa"), ("qwen3", "tiny_mha"),
                    ("qwen_moe", "tiny_odd_tied"), ("mixtral", "tiny_odd_top1"))
}


def with_reference() -> list[str]:
    return sorted(a for a, arch in registry.architectures().items()
                  if "transformers" in arch.checked_by)


def sets() -> list:
    """(architecture, set) pairs: the first example set of each in the default run, every other
    example set and every preset in the slow one."""
    out = []
    for arch_id in with_reference():
        arch = registry.get(arch_id)
        names = [*arch.examples, *(p.name for p in arch.presets_table().values())]
        for i, name in enumerate(names):
            out.append(pytest.param(arch_id, name, id=f"{arch_id}-{name}",
                                    marks=() if i == 0 else (pytest.mark.slow,)))
    return out


def _hparams(arch, name: str) -> tuple[dict[str, int], tuple[int, ...]]:
    """The set's resolved hyperparameters with the cost symbols (the window), and its contexts:
    an example set with a window of WINDOW at T = 5, 11, 37; a preset at its own window (w + 1
    past it); T at most a learned position table's n rows."""
    hp = arch.resolve(dict(arch.preset(name).hparams))
    extra = frameworks.cost_values(arch, hp)
    example = name in arch.examples
    if "w" in extra and example:
        extra["w"] = WINDOW
    hp = {**hp, **extra}
    # (a preset without a window, null in its config, has none to pass: NO_WINDOW + 1 positions
    # would overflow the ids' storage)
    ts = (5, 11, 37) if example or hp.get("w", cost.NO_WINDOW) >= cost.NO_WINDOW \
        else (5, 37, hp["w"] + 1)
    if "n" in hp:  # learned positions: no T past the table
        ts = tuple(sorted({min(t, hp["n"]) for t in (3, 5, *ts)}))[-3:]
    image = _image_tokens(arch, hp)
    if image:  # an image-text model: the image's tokens among the T, the window past them
        ts = tuple(image + t for t in ts)
        if "w" in hp and example:
            hp["w"] += image
    return hp, ts


def _image_tokens(arch, hp) -> int:
    """The image tokens a sequence of ``arch`` holds at ``hp`` (the fewest T its forward takes:
    :func:`paramcount.analyze.costs.image_tokens`), 0 for a model of tokens only."""
    from paramcount.analyze.costs import image_tokens
    from paramcount.model.frameworks import for_framework

    try:
        built = for_framework(arch, "transformers", hp)
    except (ParamcountError, ValueError):
        return 0
    values = arch.values(hp)
    return max((int(x.subs(values)) for x in image_tokens(built.formula)), default=0)


def _skipped(arch, hp) -> str | None:
    """Why a set is not measured: a limit, transformers' refusal, or a note (what a forward needs,
    no build does: XLNet's even width) it breaks."""
    from paramcount.core.restrictions import broken_notes

    notes = broken_notes(arch.notes, arch.values(hp))
    return (frameworks.broken_limit(arch, hp) or arch.transformers.refusal(hp)
            or (notes[0] if notes else None))


def _disagreements(arch, hp, t: int) -> dict[str, list]:
    from paramcount.analyze import costs

    out = {}
    for q, r in costs.check(arch, hp, t, 2).items():
        bad = [(c.path, c.expected, c.actual) for c in r.components if c.expected != c.actual]
        bad += [(u.path, None, u.size) for u in r.unclaimed]
        if bad:
            out[q] = bad
    return out


@pytest.mark.skipif(transformers_missing(), reason="the transformers extra is not installed")
@pytest.mark.parametrize("arch_id, name", sets())
def test_cost_trees_equal_transformers(arch_id, name):
    arch = registry.get(arch_id)
    hp, contexts = _hparams(arch, name)
    why = _skipped(arch, hp) or NO_FORWARD.get((arch_id, name))
    if why:
        pytest.skip(why)
    declared = frameworks.unformulated(arch)
    if declared:
        assert all(r.strip() for r in declared.values()), declared
        # a stale declaration fails: the declared quantity really disagrees, or the forward
        # cannot be measured at all
        try:
            bad = _disagreements(arch, hp, contexts[-1])
        except Exception:  # whatever the measurement raises is the point
            return
        assert set(bad) & set(declared), (
            f"{arch_id} declares {sorted(declared)} not formulated, but check agrees: {declared}")
        return
    for t in contexts:
        try:
            bad = _disagreements(arch, hp, t)
        except Refused as exc:  # a set transformers refuses (an odd rotary width), a preset
            pytest.skip(str(exc))  # too large for a real model (routed experts)
        assert not bad, f"T={t}: {bad}"


def test_every_architecture_is_formulated_or_declares_why():
    for arch_id in with_reference():
        declared = frameworks.unformulated(registry.get(arch_id))
        assert all(isinstance(r, str) and r.strip() for r in declared.values()), (arch_id, declared)


def test_cost_proofs_keep_to_what_the_class_validators_refuse():
    """A cost proof draws only where the parameter proof draws: a row binding the proof alone
    (validate_rope's odd head widths, ``prove_within``) binds the quantity's proof too (ten
    rotary families' cost proofs errored on drawn odd widths while it did not)."""
    from paramcount.analyze.costs import quantity_arch

    checked = 0
    for arch_id in with_reference():
        arch = registry.get(arch_id)
        within = tuple(arch.transformers.prove_within or ())
        if not within or frameworks.unformulated(arch):
            continue
        for quantity in ("kv", "flops"):
            got = quantity_arch(arch, quantity).constraints
            assert all(c in got for c in within), (arch_id, quantity, within)
        checked += 1
    assert checked >= 10



def test_a_convolutions_max_splits_into_two_regimes_as_a_windows_min_does():
    """The prover takes polynomials: a causal convolution's max(T, K_conv) (a Mamba mixer's FLOPs)
    is split as a window's min(T, w − 1) is, each regime under the constraint that keeps its
    points there (every state-space FLOPs proof errored on the max while only the min split)."""
    from paramcount.analyze.cost_regimes import regimes
    from paramcount.analyze.costs import quantity_arch

    parts = regimes(quantity_arch(registry.get("mamba"), "flops"))
    assert [label for label, _ in parts] == ["K_conv ≤ T", "T ≤ K_conv"]
    for label, qa in parts:
        exprs = [lf.term.expr for lf in qa.formula.leaves()]
        assert not any(e.has(sympy.Max, sympy.Min) for e in exprs), label
        assert any(str(c.reason).startswith(label) for c in qa.constraints
                   if hasattr(c, "reason")), label
    # each regime's scan equals the max's own value at a point of that regime
    scan = next(lf.term.expr for lf in quantity_arch(registry.get("mamba"), "flops").formula.leaves()
                if lf.term.expr is not None and lf.term.expr.has(sympy.Max))
    for (_, qa), t in zip(parts, (9, 2), strict=True):  # K_conv ≤ T at T = 9, T ≤ K_conv at T = 2
        split = next(lf.term.expr for lf in qa.formula.leaves()
                     if "scan" in lf.path and lf.term.expr != 0)
        at = {s: {"T": t, "K_conv": 4}.get(s.name, 3) for s in scan.free_symbols}
        assert split.xreplace(at) == scan.xreplace(at)  # max(9, 4) = 9; max(2, 4) = 4


def test_a_cost_proof_draws_whole_heads_where_a_forward_repeats_them():
    """A Mamba-2 forward repeats each group's B and C over H_ssm/G_ssm heads, a gated DeltaNet its
    key heads over H_lv/H_lk value heads (repeat_interleave): builds need neither, so the
    parameter proof does not keep to them, and a cost proof must (Falcon-H1's and Qwen 3.5's KV
    proofs errored at drawn sets where the heads did not divide)."""
    from paramcount.analyze.costs import quantity_arch
    from paramcount.core.hparams import Divisible
    from paramcount.core.symbols import G_ssm, H_lk, H_lv, H_ssm

    for arch_id, need in (("falcon_h1", Divisible(H_ssm, G_ssm)), ("mamba2", Divisible(H_ssm, G_ssm)),
                          ("qwen3_5", Divisible(H_lv, H_lk))):
        arch = registry.get(arch_id)
        assert need not in arch.constraints, arch_id
        for quantity in ("kv", "flops"):
            assert need in quantity_arch(arch, quantity).constraints, (arch_id, quantity)
    assert all(c.divisor not in (G_ssm, H_lk) for c in quantity_arch(registry.get("llama"), "kv")
               .constraints if isinstance(c, Divisible))

# --- model/cost.py on trees built by hand ----------------------------------------------------------

def _at(expr, **values) -> int:
    expr = sympy.sympify(expr)
    return int(expr.subs({s: values[s.name] for s in expr.free_symbols}))


def _attention():
    return group("attention", dense("query", d_e, M * d_k, bias=0), dense("key", d_e, M * d_k, bias=0),
                 dense("value", d_e, M * d_k, bias=0), dense("output", M * d_k, d_e, bias=0),
                 kind="attention", match="attn")


def test_dense_maps_cost_two_flops_per_multiply_accumulate_and_lookups_none():
    tree = group("lm", leaf("token", v * d_e, kind="embedding"),
                 group("blocks", layer_norm("norm"), dense("up", d_e, d_f), times=L),
                 leaf("mystery", d_e))
    flops, missing = cost.forward_flops(tree)
    assert missing == ("lm.mystery",)
    assert [lf.path for lf in flops.leaves()] == ["lm.blocks.up"]
    assert flops.total() == 2 * B * T * L * d_e * d_f
    assert cost.kv_cache(tree).total() == 0


def test_attention_scores_and_cache_and_a_window():
    tree = group("lm", group("blocks", _attention(), times=L))
    flops, _ = cost.forward_flops(tree)
    scores = next(lf for lf in flops.leaves() if lf.path.endswith("scores"))
    assert scores.expr == L * 2 * B * T * T * (2 * M * d_k)
    assert scores.term.match == "scores"
    kv = cost.kv_cache(tree)
    assert kv.total() == L * B * T * 2 * M * d_k
    windowed = cost.kv_cache(cost.with_kept(tree, cost.sliding_kept(w)))
    assert _at(windowed.total(), L=2, B=2, T=37, M=2, d_k=4, w=8) == 2 * 2 * 7 * 16
    assert _at(windowed.total(), L=2, B=2, T=5, M=2, d_k=4, w=8) == 2 * 2 * 5 * 16
    # one of every 2 layers attends to all: 3 layers, one full (T), two windowed (w − 1)
    mixed = cost.kv_cache(cost.with_kept(tree, cost.sliding_kept(w, sympy.floor(L / 2))))
    assert _at(mixed.total(), L=3, B=1, T=37, M=1, d_k=1, w=8) == 2 * (37 + 7 + 7)
    assert cost.kv_cache(cost.without_cache(tree)).total() == 0


def test_routed_experts_compute_k_of_e_and_the_pooler_one_token():
    experts = Term("experts", None, (dense("up", d_e, d_f, bias=0),), E, active_times=k_act)
    tree = group("lm", experts, dense("pooler", d_e, d_e, bias=0).with_cost(tokens=1))
    flops, _ = cost.forward_flops(tree)
    assert flops.total() == 2 * B * T * k_act * d_e * d_f + 2 * B * d_e * d_e
    assert tree.total() == E * d_e * d_f + d_e * d_e  # the parameters: all E


def test_shared_blocks_run_many_times_and_explicit_flops_and_states():
    shared = cost.runs(group("blocks", _attention()), 3)
    flops, _ = cost.forward_flops(group("lm", shared))
    assert flops.total() == 3 * (2 * B * T * 4 * d_e * M * d_k + 2 * B * T * T * 2 * M * d_k)
    mixer = group("mixer", zero("scan", "the scan's products", flops=7 * B * T),
                  leaf("conv", 4 * d_e, flops=2 * B * T * 4 * d_e, state=3 * d_e), match="mixer")
    tree = group("lm", mixer)
    flops, missing = cost.forward_flops(tree)
    assert not missing and flops.total() == 7 * B * T + 8 * B * T * d_e
    kv = cost.kv_cache(tree)
    assert kv.total() == 3 * B * d_e
    assert [lf.term.match for lf in kv.leaves()] == ["cache"]


def test_unformulated_says_why():
    arch = registry.get("llama")
    assert frameworks.unformulated(arch) == {}
    with pytest.raises(ParamcountError):
        frameworks.for_framework(registry.get("ffnn_lm"), "transformers")
    assert set(frameworks.unformulated(registry.get("ffnn_lm"))) == set(cost.QUANTITIES)


# --- the measurement of a recurrent layer's cache (reference_models.hf_costs) --------------------

@pytest.mark.skipif(transformers_missing(), reason="the transformers extra is not installed")
@torch_side  # it handles torch objects: a test process may hold TensorFlow
def test_cache_weights_read_state_dicts_and_split_a_hybrid_layer():
    """A linear-attention layer holds its states in dicts ({0: tensor}): they are read, and where
    the layer also holds keys and values (a hybrid's attention beside a Mamba mixer, both of one
    index) the states go to the mixer (the module holding conv1d), the keys and values to the
    attention; an attention-only layer is reported as before. The output's ``cache`` is read
    where it has no ``past_key_values`` (transformers 5's Mamba)."""
    import types

    import torch

    from reference_models.hf_costs import _returned_cache, cache_weights

    def indexed(module, i):
        module.layer_idx = i
        return module

    mixer = indexed(torch.nn.Module(), 0)
    mixer.conv1d = torch.nn.Conv1d(4, 4, 3, groups=4)
    block = torch.nn.Module()
    block.self_attention, block.mixer = indexed(torch.nn.Module(), 0), mixer
    model = torch.nn.Module()
    model.layers = torch.nn.ModuleList([block, indexed(torch.nn.Module(), 1)])
    hybrid = types.SimpleNamespace(keys=torch.zeros(2, 1, 5, 3), values=torch.zeros(2, 1, 5, 3),
                                   conv_states={0: torch.zeros(2, 4, 3)},
                                   recurrent_states={0: torch.zeros(2, 4, 6)},
                                   is_conv_states_initialized={0: True}, cumulative_length=5)
    plain = types.SimpleNamespace(keys=torch.zeros(2, 1, 5, 3), values=torch.zeros(2, 1, 5, 3))
    cache = types.SimpleNamespace(layers=[hybrid, plain])
    got = {w.path: w.size for w in cache_weights(model, cache)}
    assert got == {"layers/0/self_attention/cache": 60, "layers/0/mixer/cache": 24 + 48,
                                  "layers/1/cache": 60}
    assert _returned_cache(types.SimpleNamespace(cache=cache)) is cache
    assert _returned_cache(types.SimpleNamespace(past_key_values=None)) is None


@pytest.mark.slow
@pytest.mark.skipif(transformers_missing(), reason="the transformers extra is not installed")
def test_a_context_shorter_than_the_convolution_pads_it():
    """T < K_conv: transformers pads the prefill to K_conv (LinearAttentionLayer.update_conv_state)
    before its causal convolution, so the products are of max(T, K) + K − 1 outputs."""
    arch = registry.get("mamba")
    hp, _ = _hparams(arch, "tiny")
    assert hp["K_conv"] == 4
    assert not _disagreements(arch, hp, 2)


@pytest.mark.skipif(transformers_missing(), reason="the transformers extra is not installed")
def test_an_encoder_decoder_cache_is_read_at_the_attention_that_wrote_it():
    """An EncoderDecoderCache's two caches share layer indices: each layer is attributed to the
    module that wrote it (the decoder's self-attention, its cross-attention), none to the encoder,
    whose attention modules carry the same indices."""
    from paramcount.model.weights import Named
    from paramcount.runtime import isolate

    arch = registry.get("bart")
    hp = {**arch.resolve(dict(arch.preset("tiny").hparams)), "T": 5, "B": 2}
    kv = isolate.call("torch", Named("reference_models.hf_costs:costs", ("bart",)), hp)["kv"]
    paths = sorted(w.path for w in kv)
    layers = hp["L"]
    assert paths == sorted(f"decoder/layers/{i}/{a}/cache" for i in range(layers)
                           for a in ("self_attn", "encoder_attn")), paths
    assert all(w.size == 2 * 5 * 2 * hp["d_e"] for w in kv)  # B·T·(keys + values)


def test_an_image_text_context_holds_the_image_tokens():
    """An image-text model's T counts its image's tokens among it (transformers refuses ids with
    fewer image tokens than the image's features): T below them is refused, and the tower's cost
    does not grow with T (PaliGemma's tiny set: a 32-pixel image of 8-pixel patches, 16 tokens)."""
    from paramcount.analyze import costs
    from paramcount.core.errors import ConstraintError

    arch = registry.get("pali_gemma")
    hp = arch.resolve(dict(arch.preset("tiny").hparams))
    assert costs.image_tokens(frameworks.for_framework(arch, "transformers", hp).formula) != []
    with pytest.raises(ConstraintError, match="image"):
        costs.value(arch, "flops", hp, 15, 2)
    assert costs.value(arch, "kv", hp, 16, 2) == 2 * 2 * 16 * (8 + 8)  # L · B·T·M_kv·(d_k + d_v)
    assert costs.image_tokens(frameworks.for_framework(registry.get("llama"), "transformers").formula) == []


def test_a_chunked_scans_flops_are_checked_not_proven_and_say_why():
    """Mamba-2's scan runs on ⌈T/Q_ssd⌉ chunks (its config's chunk_size, 256 by default): its
    FLOPs are a polynomial on each residue of T mod Q_ssd, a proof of 256 cases per regime at the
    default (a proof of Mamba-2's FLOPs ran 23 CPU minutes in its first regime, two residues of
    256 split at once); the report proves no such quantity and says why, and its KV cache (no
    chunk) is proven as any."""
    from paramcount.analyze.cost_status import unprovable

    why = unprovable(registry.get("mamba2"), "flops")
    assert why is not None and "⌈T/Q_ssd⌉" in why and "Q_ssd residues" in why
    # a constant chunk is named by its length (a gated DeltaNet's 64)
    assert "⌈T/64⌉" in unprovable(registry.get("qwen3_next"), "flops")
    assert unprovable(registry.get("mamba2"), "kv") is None
    assert unprovable(registry.get("mamba"), "flops") is None  # no chunk: its max splits in two
    assert "routed" in unprovable(registry.get("dbrx"), "kv")  # its experts in its own loop
    assert unprovable(registry.get("mixtral"), "kv") is None  # gathered per token, on meta


# the routed architectures the default run compares (the rest with --runslow): the one measured
# for real, plain top-k experts, shared experts with latent attention, a linear-attention hybrid
ROUTED_DEFAULT = ("dbrx", "mixtral", "deepseek_v3", "qwen3_5_moe")


def routed() -> list:
    """The architectures whose cost trees have a router (``active_times``), with a transformers
    reference: :data:`ROUTED_DEFAULT` in the default run, every one with --runslow."""
    return [pytest.param(a, id=a, marks=() if a in ROUTED_DEFAULT else (pytest.mark.slow,))
            for a in with_reference() if registry.get(a).formula.has_active]


@pytest.mark.parametrize("arch_id", routed())
@torch_side
def test_a_router_s_experts_gathered_on_meta_cost_what_the_real_loop_costs(arch_id):
    """A router's experts gathered per token on the meta device (transformers' ``batched_mm``,
    what the cost proofs measure) cost exactly what a real small model running transformers'
    loop over the routed experts costs on the CPU: each module's FLOPs and each cache layer, at
    the first example set, T = 5 and 11. A class whose forward needs the data on meta all the
    same declares so (``experts_on_meta=False``: measured for real, not proven), and the
    declaration holds: its meta forward fails."""
    from reference_models import hf_costs

    arch = registry.get(arch_id)
    name = next(iter(arch.examples))
    hp, _ = _hparams(arch, name)
    why = _skipped(arch, hp)
    if why:
        pytest.skip(why)
    if not arch.transformers.pick(hp).experts_on_meta:
        with pytest.raises(NotImplementedError, match="meta"):
            hf_costs.costs(arch, {**hp, "T": 5, "B": 2}, real=False)
        return
    for t in (5, 11):
        sizes = {**hp, "T": t, "B": 2}
        gathered, real = hf_costs.costs(arch, sizes), hf_costs.costs(arch, sizes, real=True)
        for q in ("flops", "kv"):
            assert sorted((w.path, w.size) for w in gathered[q]) == sorted(
                (w.path, w.size) for w in real[q]), (t, q)
