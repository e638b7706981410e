"""nanoGPT: without biases, and with them GPT-2."""

from __future__ import annotations

from paramcount.model import registry


def test_nanogpt_without_biases_is_124_337_664_and_with_them_gpt2():
    # nanoGPT's default bias=False drops every linear and layer-norm bias of GPT-2 small
    nano = registry.get("nanogpt")
    hp = nano.resolve(nano.preset("nanogpt_gpt2").hparams)
    assert nano.count(hp) == 124_337_664
    L, d_e, d_f = hp["L"], hp["d_e"], hp["d_f"]
    biases = L * (2 * d_e + 3 * d_e + d_e + d_f + d_e) + d_e  # 2 norms, c_attn, c_proj, mlp; ln_f
    assert nano.count({**hp, "bias": 1}) - nano.count(hp) == biases
    gpt2 = registry.get("gpt2_causal_lm")
    assert nano.count({**hp, "bias": 1}) == gpt2.count(gpt2.resolve(gpt2.preset("gpt2_base_en").hparams))
