"""What the conformance test does not check for the decoder-only families: closed forms and
published figures from the papers, and how options change the count."""

from __future__ import annotations

import pytest
import sympy

from paramcount.core.symbols import M, d_e, n, v
from paramcount.model import registry


def _count(arch_id: str, preset: str) -> int:
    arch = registry.get(arch_id)
    return arch.count(arch.resolve(arch.preset(preset).hparams))


def _total_with_fixed(arch_id: str) -> sympy.Expr:
    """The total with the fixed values in, where M divides d_e (KerasHub's floor(d_e/M) is then
    d_e/M): the case every published checkpoint is in, and the only one some families allow."""
    arch = registry.get(arch_id)
    total = arch.total().subs(arch.fixed)
    return sympy.expand(total.replace(lambda t: isinstance(t, sympy.floor), lambda t: t.args[0]))


# Brown et al. 2020, table 2.1, n_params column.
GPT3_TABLE = {
    "gpt3_small": 125e6, "gpt3_medium": 350e6, "gpt3_large": 760e6, "gpt3_xl": 1.3e9,
    "gpt3_2.7b": 2.7e9, "gpt3_6.7b": 6.7e9, "gpt3_13b": 13e9, "gpt3_175b": 175e9,
}


@pytest.mark.parametrize("preset", sorted(GPT3_TABLE))
def test_gpt3_presets_match_the_papers_parameter_column(preset):
    # The table rounds; the hyperparameters are right when the exact count is within 2 %.
    count = _count("gpt2", preset)
    assert abs(count - GPT3_TABLE[preset]) / GPT3_TABLE[preset] < 0.02


def test_gpt3_175b_exact_count_and_closed_form():
    # 12·L·d² + 13·L·d + (v + n)·d + 2·d: the GPT-2 block's closed form.
    hp = dict(v=50257, n=2048, d=12288, L=96)
    closed = (12 * hp["L"] * hp["d"] ** 2 + 13 * hp["L"] * hp["d"]
              + (hp["v"] + hp["n"]) * hp["d"] + 2 * hp["d"])
    assert _count("gpt2", "gpt3_175b") == closed == 174_604_259_328


def test_gpt2_block_count_does_not_depend_on_the_head_count():
    # Why GPT-3 XL's inconsistent head count (24 heads of 128 in a 2048-wide model) cannot
    # change its figure: with d_k = d_e/M, M cancels.
    assert M not in _total_with_fixed("gpt2").free_symbols
    # where M does not divide d_e, the floored heads are narrower: then M counts
    gpt2 = registry.get("gpt2")
    hp = dict(v=5000, n=128, d_e=256, d_f=128, L=2)
    assert gpt2.count(gpt2.resolve({**hp, "M": 4})) != gpt2.count(gpt2.resolve({**hp, "M": 3}))


def test_opt_and_gpt2_have_the_same_formula():
    assert sympy.expand(_total_with_fixed("opt") - _total_with_fixed("gpt2")) == 0


def test_gpt_neo_x_is_gpt2_without_learned_positions():
    # Fused QKV and the parallel block change no count: only the n·d_e position table goes.
    diff = sympy.expand(_total_with_fixed("gpt2") - _total_with_fixed("gpt_neo_x"))
    assert diff == n * d_e


def test_bloom_is_falcon_rw_plus_an_embedding_norm():
    diff = sympy.expand(_total_with_fixed("bloom") - _total_with_fixed("falcon"))
    assert diff == 2 * d_e


def test_gemma2_post_norms_add_two_vectors_per_block():
    arch = registry.get("gemma")
    hp = arch.resolve(arch.preset("gemma2_2b_en").hparams)
    without = arch.count({**hp, "post_attn_norm": 0, "post_ffw_norm": 0})
    assert arch.count(hp) - without == 2 * hp["L"] * hp["d_e"]
    # KerasHub's use_post_attention_norm and use_post_ffw_norm switch them apart
    attn_only = arch.count({**hp, "post_ffw_norm": 0})
    assert attn_only - without == hp["L"] * hp["d_e"]
    # post_norm is the presets' shorthand: it sets both unless either is given
    assert arch.resolve({**arch.preset("gemma2_2b_en").hparams, "post_norm": 0})["post_ffw_norm"] == 0


def test_gemma3_qk_norm_adds_two_head_width_vectors_per_block():
    arch = registry.get("gemma3")
    hp = arch.resolve(arch.preset("gemma3_1b").hparams)
    assert arch.count(hp) - arch.count({**hp, "qk_norm": 0}) == 2 * hp["L"] * hp["d_k"]


def test_gemma3_sliding_window_layers_hold_the_same_weights_as_global_ones():
    import keras_hub

    from paramcount.analyze.verify import keras_weights
    from reference_models._build import stateless_backbone

    arch = registry.get("gemma3")
    hp = arch.resolve(dict(v=50, d_e=16, M=2, M_kv=1, d_k=8, d_f=24, L=7))
    shapes = []
    for sliding in (True, False):  # the table's constructor arguments (as the reference builds)
        kw = {**arch.mapping.keras_kwargs(hp), "use_sliding_window_attention": sliding}
        model = stateless_backbone(keras_hub.models.Gemma3Backbone, **kw)
        shapes.append(sorted((w.path, w.shape) for w in keras_weights(model)))
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize(("preset", "active_billions"), [
    ("gpt_oss_20b_en", 3.6), ("gpt_oss_120b_en", 5.1)])
def test_gpt_oss_active_parameters_match_the_model_card(preset, active_billions):
    # OpenAI's model card gives active parameters per token without the input embedding table
    # (a lookup reads one row of it); the unembedding is all used.
    arch = registry.get("gpt_oss")
    hp = arch.resolve(arch.preset(preset).hparams)
    active = int(arch.formula.active_total().xreplace(arch.values(hp)))
    assert active < arch.count(hp)
    assert round((active - hp["v"] * hp["d_e"]) / 1e9, 1) == active_billions


def test_gpt_oss_active_count_has_k_experts_in_place_of_e():
    arch = registry.get("gpt_oss")
    hp = arch.resolve(arch.preset("gpt_oss_20b_en").hparams)
    values = arch.values(hp)
    expert = hp["d_e"] * 2 * hp["d_f"] + 2 * hp["d_f"] + hp["d_f"] * hp["d_e"] + hp["d_e"]
    idle = int(arch.total().xreplace(values)) - int(arch.formula.active_total().xreplace(values))
    assert idle == hp["L"] * (hp["E"] - hp["k"]) * expert


def test_phi3_and_gpt_oss_backbones_hold_an_untied_head():
    for arch_id in ("phi3", "gpt_oss", "rwkv7"):
        head = registry.get(arch_id).formula.find("head")
        assert head.expr != 0 and v in head.expr.free_symbols


def test_smollm3_rotary_frequencies_are_counted_apart_as_non_trainable():
    arch = registry.get("smollm3")
    hp = arch.resolve(arch.preset("smollm3_3b_en").hparams)
    frozen = arch.formula.trainable_total(False).xreplace(arch.values(hp))
    assert frozen == hp["L"] * hp["d_k"] // 2 == 2304


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


def test_a_reference_build_without_tensorflows_checkpoint_tracking_has_the_same_weights():
    """reference_models._build.stateless skips TensorFlow's checkpoint-dependency tracking (a
    quarter of a build's CPU time): Keras' own tracking still finds every weight, the same paths
    and shapes as a build with TF's tracking, and every model built outside is tracked as ever."""
    import keras
    import keras_hub
    from keras.src.backend.tensorflow.trackable import KerasAutoTrackable

    from paramcount.analyze.verify import keras_weights
    from reference_models import _build

    arch = registry.get("gpt2")
    kw = arch.mapping.keras_kwargs(arch.resolve(arch.preset("tiny").hparams))
    tracked_setattr = KerasAutoTrackable.__setattr__
    fast = _build.stateless_backbone(keras_hub.models.GPT2Backbone, **kw)
    assert KerasAutoTrackable.__setattr__ is tracked_setattr  # restored after the build
    with keras.StatelessScope(initialize_variables=False):
        tracked = keras_hub.models.GPT2Backbone(**kw)
    assert sorted((w.path, w.shape) for w in keras_weights(fast)) == \
        sorted((w.path, w.shape) for w in keras_weights(tracked))
    assert len(keras_weights(fast)) > 10
    assert tracked._trackable_children() and not fast._trackable_children()
