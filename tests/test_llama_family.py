"""The Llama lineage and its mixtures of experts: what the generic conformance test does not cover.

- the trees equal a closed form written out by hand (so a tree that double-counts or omits a part
  in a way the Keras build happens to mirror would still be caught);
- the tied-head flag and the QK norm change the count by exactly their terms;
- active parameters per token: k of E experts, the shared expert always, against the figures the
  model makers publish;
- KerasHub's int8 presets: the scales that make its published figure differ from the float build
  are exactly the ones Keras' int8 quantization adds (measured on a small model);
- the largest presets build without allocating weights.
"""

from __future__ import annotations

import math

import pytest
import sympy

from paramcount.core import symbols
from paramcount.core.symbols import E, L, M, M_kv, d_e, d_f, d_k
from paramcount.model import registry
from paramcount.model.components.llama_like import closed_form_dense, tied
from paramcount.model.components.modern import k_act

DENSE = {
    "llama": dict(tie=tied),
    "llama3": dict(tie=tied),
    "mistral": dict(tie=0),
    "qwen": dict(tie=tied, bias_qkv=1),
    "qwen3": dict(tie=tied, qk_norm=1),
}


@pytest.mark.parametrize("arch_id", sorted(DENSE))
def test_dense_tree_equals_closed_form(arch_id):
    arch = registry.get(arch_id)
    total = arch.total().subs(arch.fixed)
    closed = closed_form_dense(**DENSE[arch_id]).subs(arch.fixed)
    assert sympy.expand(total - closed) == 0


def _code_lines(path) -> int:
    """Lines that hold code: not blank, not a comment, not a docstring."""
    import ast
    import io
    import tokenize

    src = path.read_text(encoding="utf-8")
    docs = set()
    for node in ast.walk(ast.parse(src)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            docs |= set(range(body[0].lineno, body[0].end_lineno + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    return len({line for tok in tokenize.generate_tokens(io.StringIO(src).readline) if tok.type not in skip
                for line in range(tok.start[0], tok.end[0] + 1)} - docs)


def test_a_llama_like_family_is_one_short_declaration():
    """The lineage (paramcount.families._decoders) carries the shared rows, free keys, counting
    sentence, transformers' names, reference and presets: Mistral names only what differs, in
    at most 30 lines of code (issue 29; it was 61)."""
    from pathlib import Path

    from paramcount import families

    assert _code_lines(Path(families.__file__).parent / "mistral" / "__init__.py") <= 30


@pytest.mark.parametrize("arch_id", sorted(DENSE))
def test_the_llama_lineage_gives_its_defaults(arch_id):
    """What the lineage declares once, each dense Llama-like family has: its free keys, KerasHub's
    reference and metadata, LlamaForCausalLM's names (Qwen 3 adds its QK norms to them)."""
    from paramcount.families._decoders import LLAMA_FREE, LLAMA_TRANSFORMERS
    from paramcount.model.weights import Named

    arch = registry.get(arch_id)
    assert arch.mapping.free >= LLAMA_FREE
    assert arch.reference == Named("reference_models.table:backbone", (arch_id,))
    assert arch.keras_hub_metadata and arch.origin == "keras_hub" and arch.presets == arch_id
    assert LLAMA_TRANSFORMERS.weights.items() <= arch.transformers.weights.items()
    assert arch.counting.startswith("trainable weights of the backbone: token embedding, L decoder blocks")


def _values(arch, name):
    return arch.values(arch.resolve(arch.preset(name).hparams))


def _count(arch, name, **override):
    hp = {**arch.preset(name).hparams, **override}
    return arch.count(arch.resolve(hp))


@pytest.mark.parametrize(("arch_id", "preset"), [
    ("llama3", "llama3.2_1b"), ("qwen", "qwen2.5_0.5b_en"), ("qwen3", "qwen3_4b_en"),
    ("llama", "llama2_7b_en"),
])
def test_untying_the_head_adds_one_v_by_d_e_matrix(arch_id, preset):
    arch = registry.get(arch_id)
    hp = arch.resolve(arch.preset(preset).hparams)
    assert (_count(arch, preset, tied=0) - _count(arch, preset, tied=1)
            == hp["v"] * hp["d_e"])


def test_qk_norm_is_two_d_k_vectors_per_block():
    qwen3 = registry.get("qwen3").formula.find("blocks.attention")
    norms = qwen3.find("query_norm").total() + qwen3.find("key_norm").total()
    assert norms == 2 * d_k


def test_qwen_biases_are_on_queries_keys_and_values_only():
    att = registry.get("qwen").formula.find("blocks.attention")
    fixed = registry.get("qwen").fixed
    assert sympy.expand((att.find("query").total() - d_e * M * d_k).subs(fixed)) == d_e
    assert sympy.expand(att.find("key").total() - d_e * M_kv * d_k - M_kv * d_k) == 0
    assert sympy.expand(att.find("output").total() - M * d_k * d_e) == 0


def test_mixtral_active_is_total_less_unused_experts():
    arch = registry.get("mixtral")
    unused = L * (E - k_act) * 3 * d_e * d_f
    assert sympy.expand(arch.formula.total() - arch.formula.active_total() - unused) == 0


# Published "total / active" figures, in billions, from the model makers' announcements.
PUBLISHED_ACTIVE = [
    ("mixtral", "mixtral_8_7b_en", 46.7, 12.9),   # Jiang et al. 2024: 47B total, 13B active
    ("mixtral", "mixtral_8x22b", 140.6, 39.2),    # Mistral AI: 141B total, 39B active
    ("qwen_moe", "qwen1.5_moe_2.7b_en", 14.3, 2.7),  # Qwen1.5-MoE-A2.7B: 14.3B, 2.7B
    ("qwen3_moe", "qwen3_moe_30b_a3b_en", 30.5, 3.3),  # Qwen3-30B-A3B: 30.5B, 3.3B
    ("qwen3_moe", "qwen3_moe_235b_a22b_en", 235.1, 22.2),  # Qwen3-235B-A22B: 235B, 22B
]


@pytest.mark.parametrize(("arch_id", "preset", "total_b", "active_b"), PUBLISHED_ACTIVE)
def test_active_parameters_match_published_figures(arch_id, preset, total_b, active_b):
    arch = registry.get(arch_id)
    values = _values(arch, preset)
    total = arch.formula.evaluate(values)
    active = int(arch.formula.active_total().xreplace(
        {s: sympy.Integer(x) for s, x in values.items()}))
    # Published figures are rounded or truncated to 0.1B (Qwen3-30B-A3B: 3.35B is "3.3B").
    assert abs(total / 1e9 - total_b) < 0.06
    assert abs(active / 1e9 - active_b) < 0.06


def test_top_k_changes_active_not_total():
    arch = registry.get("qwen3_moe")
    hp = arch.resolve(arch.preset("qwen3_moe_30b_a3b_en").hparams)
    vals = {symbols.get(n): x for n, x in hp.items()}
    more = {**vals, k_act: vals[k_act] + 1}
    act = arch.formula.active_total()
    assert arch.formula.evaluate(vals) == arch.formula.evaluate(more)
    per_expert = 3 * hp["d_e"] * hp["d_fe"]
    assert int(act.xreplace(_int(more)) - act.xreplace(_int(vals))) == hp["L"] * per_expert


def _int(values):
    return {s: sympy.Integer(x) for s, x in values.items()}


def test_qwen_moe_shared_expert_is_always_active():
    arch = registry.get("qwen_moe")
    moe = arch.formula.find("blocks.moe")
    shared = moe.find("shared")
    assert not shared.has_active  # no router in front of it: every token uses it
    # routed experts: k of E active; shared expert and its gate: all of them (per sparse block:
    # the term repeats L_moe times)
    active = moe.active_total() / moe.times
    assert sympy.expand(active - (d_e * E + k_act * 3 * d_e * symbols.get("d_fe")
                                  + 3 * d_e * symbols.get("d_fs") + d_e)) == 0


def _int8_scales(p):
    """Scales Keras' int8 quantization adds to a Llama backbone: one per output channel of each
    block projection (q, k, v, o, gate, up, down) and one per row of the token table and head."""
    dk = p["d_e"] // p["M"]
    return (p["L"] * (2 * p["d_e"] + p["M"] * dk + 2 * p["M_kv"] * dk + 2 * p["d_f"])
            + 2 * p["v"])


def test_int8_scales_explain_keras_hub_figures():
    """KerasHub's *_int8 figures = float build + the int8 scales, exactly."""
    from paramcount.model.keras_hub_meta import published_params

    for arch_id, float_name, int8_name in [("llama", "llama2_7b_en", "llama2_7b_en_int8"),
                                           ("llama3", "llama3_8b_en", "llama3_8b_en_int8")]:
        arch = registry.get(arch_id)
        p = arch.resolve(arch.preset(float_name).hparams)
        assert arch.preset(int8_name).keras_hub_differs
        assert published_params(int8_name) == arch.count(p) + _int8_scales(p)


@pytest.mark.slow
def test_int8_scale_count_is_what_keras_quantization_adds():
    """The closed form above, checked on a small model Keras really quantizes (~15 s)."""
    keras_hub = pytest.importorskip("keras_hub")
    hp = dict(v=37, d_e=16, M=4, M_kv=2, d_f=24, L=2)
    model = keras_hub.models.LlamaBackbone(
        vocabulary_size=hp["v"], num_layers=hp["L"], num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"], hidden_dim=hp["d_e"], intermediate_dim=hp["d_f"])
    before = sum(math.prod(w.shape) for w in model.weights)
    with pytest.warns(UserWarning):  # norms, dropout and RoPE have nothing to quantize
        model.quantize("int8")
    assert sum(math.prod(w.shape) for w in model.weights) - before == _int8_scales(hp)


def test_llama32_keras_hub_figure_is_the_untied_build():
    from paramcount.model.keras_hub_meta import published_params

    arch = registry.get("llama3")
    for name in ("llama3.2_1b", "llama3.2_3b"):
        assert arch.preset(name).hparams["tied"] == 1
        assert published_params(name) == _count(arch, name, tied=0) != _count(arch, name)


def test_largest_preset_builds_without_allocating():
    import resource

    from paramcount.analyze.verify import verify

    result = verify("llama3", preset="llama3.1_405b")
    assert result.ok, "\n".join(result.mismatches())
    # 405B float32 weights would take 1.6 TB; the build holds shapes only.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 4 * 1024 * 1024  # KiB: < 4 GiB


def test_gated_delta_net_equals_closed_form():
    """Gated DeltaNet as Qwen 3.5 holds it, written out: projections to q, k, v (2·H_lk·d_lk +
    H_lv·d_lv), z (H_lv·d_lv), β and decay (H_lv each), the depthwise conv over the q, k, v
    channels, A and the time-step bias (H_lv each), the gated norm (d_lv), the output projection."""
    from paramcount.model.components.llama_like import H_lk, H_lv, K_conv, d_lk, d_lv, gated_delta_net

    qkv = 2 * H_lk * d_lk + H_lv * d_lv
    closed = (d_e * (qkv + H_lv * d_lv + 2 * H_lv) + K_conv * qkv + 2 * H_lv + d_lv
              + H_lv * d_lv * d_e)
    assert sympy.expand(gated_delta_net().total() - closed) == 0


def test_qwen3_5_mixers_split_the_blocks():
    from paramcount.model.components.llama_like import L_full

    blocks = registry.get("qwen3_5").formula.find("blocks")
    assert blocks.find("full_attention").times == L_full
    assert blocks.find("linear_attention").times == symbols.get("L_linear")
    assert registry.get("qwen3_5").fixed[symbols.get("L_linear")] == L - L_full
    assert blocks.find("ffn").times == L


def test_qwen3_moe_dense_blocks_trade_experts_for_a_dense_ffn():
    arch = registry.get("qwen3_moe")
    name = "qwen3_moe_30b_a3b_en"
    hp = arch.resolve(arch.preset(name).hparams)
    one_dense = _count(arch, name, L_moe=hp["L"] - 1)
    experts = hp["d_e"] * hp["E"] + hp["E"] * 3 * hp["d_e"] * hp["d_fe"]
    assert _count(arch, name) - one_dense == experts - 3 * hp["d_e"] * hp["d_f"]


def test_the_llama_block_takes_its_norm_as_a_parameter():
    """A Llama-like family with another norm passes it; the block group is not copied. Layer
    norm's shift adds d_e per norm: two per block."""
    import sympy

    from paramcount.core.symbols import L, d_e
    from paramcount.model.components.basic import layer_norm
    from paramcount.model.components.llama_like import decoder_blocks, swiglu
    from paramcount.model.components.modern import rms_norm

    rms = decoder_blocks(swiglu()).trainable_total(True)
    ln = decoder_blocks(swiglu(), norm=layer_norm).trainable_total(True)
    assert sympy.expand(ln - rms) == 2 * L * d_e
    assert decoder_blocks(swiglu()) == decoder_blocks(swiglu(), norm=rms_norm)
