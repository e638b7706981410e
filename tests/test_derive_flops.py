"""Forward FLOPs derived as the KV cache is (:mod:`paramcount.analyze.derive_flops`): each counted
operation a tensor shaped by the factors of torch's own formula, under the module that ran it,
summing to what ``FlopCounterMode`` counts. GPT-2's whole derivation and proof (a minute) runs
with ``--runslow``."""

from __future__ import annotations

import math

import pytest

from tests._shared import torch_side


@torch_side
@pytest.mark.parametrize("op, shapes, count_shapes", [
    ("mm", [(21, 16), (16, 48)], [(2, 21, 16, 48)]),
    ("addmm", [(48,), (21, 16), (16, 48)], [(2, 21, 16, 48)]),
    ("bmm", [(6, 7, 8), (6, 8, 7)], [(2, 6, 7, 8, 7)]),
    ("baddbmm", [(6, 7, 7), (6, 7, 8), (6, 8, 7)], [(2, 6, 7, 8, 7)]),
])
def test_a_product_s_factors_are_torch_s_count(op, shapes, count_shapes):
    """A product's shape holds as many elements as torch's formula counts FLOPs for it."""
    import torch
    from torch.utils.flop_counter import flop_registry

    from paramcount.analyze.derive_flops import factors

    func = getattr(torch.ops.aten, op)
    args = [torch.empty(s, device="meta") for s in shapes]
    out = func(*args)
    got = factors(func, args, {}, out)
    assert got == count_shapes
    assert sum(math.prod(s) for s in got) == flop_registry[func](*args, out_val=out)


@torch_side
def test_attention_s_two_products_are_torch_s_count():
    """Attention's scores and their weighted values: two factors of (2, B, heads, T_q, ·, ·)."""
    import torch
    from torch.utils.flop_counter import flop_registry

    from paramcount.analyze.derive_flops import factors

    func = torch.ops.aten._scaled_dot_product_efficient_attention
    q = torch.empty(3, 4, 7, 8, device="meta")
    k, v = torch.empty(3, 4, 9, 8, device="meta"), torch.empty(3, 4, 9, 6, device="meta")
    got = factors(func, [q, k, v], {}, None)
    assert got == [(2, 3, 4, 7, 8, 9), (2, 3, 4, 7, 9, 6)]
    shape = flop_registry[func]  # (its formula reads the shapes only)
    assert sum(math.prod(s) for s in got) == shape(q, k, v, None, False, out_val=None)


@torch_side
def test_the_operations_of_a_forward_sum_to_flop_counter_mode_s_count():
    """Llama's forward (GQA, gated MLP, tied head off): each projection's product under its
    module, attention's under the attention; together exactly FlopCounterMode's total."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    from transformers import AutoConfig, AutoModelForCausalLM

    from paramcount.analyze.derive_flops import flop_module
    from reference_models.hf_inputs import fed, unread

    cfg = AutoConfig.for_model("llama", hidden_size=16, num_attention_heads=2,
                               num_key_value_heads=1, num_hidden_layers=2, vocab_size=32,
                               intermediate_size=24)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
        ids = torch.zeros((3, 7), dtype=torch.long)
    held = dict(flop_module(model, 3, 7).named_buffers())
    assert tuple(held["model.layers.1.mlp.down_proj.mm_0"].shape) == (2, 21, 24, 16)
    assert tuple(held["lm_head.mm_0"].shape) == (2, 21, 16, 32)
    counter = FlopCounterMode(display=False)
    inputs = fed(model, ids)
    with counter, torch.no_grad(), unread(inputs, ids):
        model(**inputs, use_cache=True)
    assert sum(b.numel() for b in held.values()) == counter.get_total_flops()


@pytest.mark.slow
def test_gpt2_s_forward_flops_derive_prove_and_give_the_issue_s_figure():
    """GPT-2 at T = 1,024: 291,648,307,200 FLOPs, as FlopCounterMode counts (issue 31)."""
    from tests.test_derive import _cli

    code, out, err = _cli("derive", "--model-type", "gpt2", "--flops", "--context", "1024",
                          "--budget", "600")
    assert code == 0, err
    assert ("FLOPs = 2·B·T·(2·T·n_head·n_layer·floor(n_embd/n_head) + 12·n_embd^2·n_layer + "
            "n_embd·vocab_size)") in out
    assert "1 of 1 cases proven" in out
    assert "T = 1,024, B = 1: 291,648,307,200 FLOPs" in out


@torch_side
def test_a_forward_whose_heads_are_one_wide_is_refused_as_the_cache_s_is():
    """Qwen 2 at hidden_size < 2·heads: its rotary table broadcasts each key to two. Taken as a
    build, head_dim 1 kept the head width's evenness from being found, and the proof's builds
    at an odd head_dim failed (Qwen 3's, Gemma's); refused, as the cache's derivation refuses
    it."""
    from paramcount.analyze.derive_flops import FlopSource

    src = FlopSource(model_type="qwen2", config={
        "vocab_size": 64, "hidden_size": 6, "intermediate_size": 24, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 64})
    with pytest.raises(ValueError, match="one wide"):
        src.model(src.config({}))
    wider = src.model(src.config({"hidden_size": 8}))  # two wide: counted
    assert any(n.startswith("flops.model.layers.0.") for n, _ in wider.named_buffers())


def test_the_page_s_flops_column_tally_and_causes_come_from_the_rows():
    """A row swept for its forward FLOPs shows the figure beside its KV cache's; the FLOPs have
    their own tally and causes; the record reads them back."""
    from paramcount.analyze.derive import sweep

    rows = [sweep.Row("gpt2", "GPT2LMHeadModel", "proven", 1, ("n_embd",), "1 cases proven",
                      kv="proven: 1 case [abcd]", kv_at=75_497_472,
                      flops="proven: 1 case [ef01]", flops_at=1_384_482_390_016),
            sweep.Row("opt", "OPTForCausalLM", "proven", 3, (), "1 cases proven",
                      flops="error: DeriveError: OPTForCausalLM does not build on the meta "
                            "device at this config [ef01]")]
    page = "\n".join(sweep.section(rows, {}))
    assert "| KV cache at T = 4,096, B = 1 | forward FLOPs at T = 4,096, B = 1 |" in page
    assert "| 75,497,472 elements, proven: 1 case [abcd] | 1,384,482,390,016 FLOPs, " \
           "proven: 1 case [ef01] |" in page
    assert "- 1 of 2 causal-LM model types' forward FLOPs derived and proven (50 %)" in page
    assert "- 1 of 1 causal-LM model types' KV caches derived and proven (100 %)" in page
    assert "Forward FLOPs not proven, by cause:\n\n- no forward on the meta device at the " \
           "defaults: 1" in page
    assert "| not swept |" in page  # opt's cache
    assert sweep.loads(sweep.dumps(rows, {"derive": "x"}))[0] == rows
