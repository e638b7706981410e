"""Heterogeneous layer stacks: per-kind layer counts as symbols, derived from a declared pattern.

What the generic conformance test (every preset and example verified against Keras) does not
cover: the pattern turning a configuration into counts, the remainder kind, the zero-count domain,
and KerasHub's QwenMoe test configuration that its backbone builds differently from the option's
meaning.
"""

from __future__ import annotations

import pytest
import sympy

from paramcount.core import symbols
from paramcount.core.errors import ConstraintError, HyperparameterError
from paramcount.core.formula import leaf
from paramcount.core.symbols import L, d_e
from paramcount.model import registry
from paramcount.model.components.stacks import MOE_AND_DENSE, L_dense, L_moe, LayerKinds

# KerasHub's QwenMoeBackboneTest.setUp (keras_hub/src/models/qwen_moe/qwen_moe_backbone_test.py).
KERAS_HUB_TEST = dict(v=20, d_e=16, M=4, M_kv=2, L=2, E=4, d_fe=16, d_fs=32, d_f=32, k=2, tied=0)


@pytest.mark.parametrize(("options", "published", "as_built"), [
    (dict(), 4, 4),
    (dict(mlp_only_layers=[0]), 3, 0),
    (dict(decoder_sparse_step=2), 2, 0),
    (dict(decoder_sparse_step=2, mlp_only_layers=[1]), 1, 0),
    (dict(mlp_only_layers=[3]), 3, 4),
    (dict(num_experts=0), 0, 0),
])
def test_moe_pattern_gives_the_counts(options, published, as_built):
    assert MOE_AND_DENSE.counts(4, **options) == {"L_moe": published, "L_dense": 4 - published}
    # KerasHub's QwenMoeBackbone: every block sees index 0
    assert MOE_AND_DENSE.counts(4, index_seen=0, **options)["L_moe"] == as_built


def test_remainder_kind_is_derived_and_bounded():
    assert MOE_AND_DENSE.fixed() == {L_dense: L - L_moe}
    arch = registry.get("qwen_moe")
    hp = arch.resolve(dict(KERAS_HUB_TEST, L_moe=1))
    assert (hp["L_moe"], hp["L_dense"]) == (1, 1)
    assert arch.resolve(KERAS_HUB_TEST)["L_dense"] == 0  # L_moe defaults to L: all sparse
    with pytest.raises(ConstraintError, match="L_moe"):
        arch.resolve(dict(KERAS_HUB_TEST, L_moe=3))
    with pytest.raises(HyperparameterError, match="non-negative"):
        arch.resolve(dict(KERAS_HUB_TEST, L_moe=-1))
    with pytest.raises(HyperparameterError, match="cannot be set"):
        arch.resolve(dict(KERAS_HUB_TEST, L_dense=2))  # derived: L − L_moe = 0


def test_keras_hub_mlp_only_layers_test_configuration_has_5392_parameters():
    arch = registry.get("qwen_moe")

    def count(hp):
        return arch.count(arch.resolve(hp))

    as_built = MOE_AND_DENSE.counts(2, mlp_only_layers=[0], index_seen=0)
    assert count(dict(KERAS_HUB_TEST, L_moe=as_built["L_moe"])) == 5392
    # the option's meaning (the published models' rule): block 0 dense, block 1 sparse
    meant = MOE_AND_DENSE.counts(2, mlp_only_layers=[0])
    assert meant == {"L_moe": 1, "L_dense": 1}
    assert count(dict(KERAS_HUB_TEST, L_moe=meant["L_moe"])) == (5392 + 11696) // 2
    assert count(KERAS_HUB_TEST) == 11696  # the test's own expected count, all sparse


def test_keras_hub_backbone_builds_5392_for_mlp_only_layers_0():
    keras_hub = pytest.importorskip("keras_hub")
    from reference_models._build import stateless_backbone

    model = stateless_backbone(
        keras_hub.models.QwenMoeBackbone, vocabulary_size=20, num_layers=2, num_query_heads=4,
        num_key_value_heads=2, hidden_dim=16, intermediate_dim=32, moe_intermediate_dim=16,
        shared_expert_intermediate_dim=32, num_experts=4, top_k=2, mlp_only_layers=[0])
    assert model.count_params() == 5392


def test_stack_repeats_common_parts_by_total_and_kinds_by_count():
    blocks = registry.get("qwen_moe").formula.find("blocks")
    assert blocks.find("attention").times == L
    assert blocks.find("moe").times == L_moe
    assert blocks.find("dense_ffn").times == L_dense


def test_stack_rejects_unknown_kinds_and_patterns():
    kinds = LayerKinds((("a", L_moe), ("b", L_dense)), lambda i: "c")
    with pytest.raises(ValueError, match="unknown kinds"):
        kinds.stack("s", per_kind={"z": (leaf("x", d_e),)})
    with pytest.raises(ValueError, match="unknown kind 'c'"):
        kinds.counts(2)
    with pytest.raises(ValueError, match="two kinds"):
        LayerKinds((("a", L_moe),), lambda i: "a")
    total = kinds.stack("s", common=(leaf("n", d_e),), per_kind={"a": (leaf("x", 3),)}).total()
    assert sympy.expand(total - (L * d_e + 3 * L_moe)) == 0


def test_gemma4_pattern_every_sixth_layer_global_or_layer_types():
    from paramcount.families.gemma4 import LOCAL_AND_GLOBAL

    assert LOCAL_AND_GLOBAL.counts(12) == {"L_global": 2, "L_local": 10}
    assert LOCAL_AND_GLOBAL.counts(7, sliding_window_pattern=2) == {"L_global": 3, "L_local": 4}
    types = ["full_attention", "sliding_attention", "full_attention"]
    assert LOCAL_AND_GLOBAL.counts(3, layer_types=types) == {"L_global": 2, "L_local": 1}


def test_gemma4_global_layers_trade_head_width_and_value_projection():
    arch = registry.get("gemma4")
    base = dict(v=100, d_e=32, M=4, M_kv=2, d_k=8, d_f=48, L=6)

    def count(**kw):
        return arch.count(arch.resolve(dict(base, **kw)))

    # a global layer with the local layers' shapes costs what a local one does
    assert count(L_global=1) == count(L_global=2)
    # global heads twice as wide: query, key, value, output and both QK norms double
    wider = count(L_global=1, d_kg=16) - count(L_global=1)
    assert wider == 32 * 4 * 8 + 2 * 32 * 2 * 8 + 4 * 8 * 32 + 2 * 8
    # keys doubling as values (one global kv head): the value projection goes, keys shrink
    keqv = count(L_global=1, keqv=1, M_kvg=1) - count(L_global=1)
    assert keqv == -(32 * 2 * 8) - (32 * 2 * 8 - 32 * 1 * 8)


GEMMA3N_TINY = dict(v=50, d_e=8, M=2, M_kv=1, d_k=4, d_f=16, L=3, v_p=40, d_p=2, A=3, r_l=1)


@pytest.mark.parametrize(("layers", "shared", "expected"), [
    (35, 15, 15),  # E4B: the last 15 of 35 blocks reuse keys and values
    (30, 10, 10),
    (4, 0, 0),
    (4, 4, 0),  # KerasHub's rule i ≥ L − L_kvs > 0: none shared when L_kvs = L
])
def test_gemma3n_kv_sharing_pattern(layers, shared, expected):
    from paramcount.families.gemma3n import KV_SHARED_AND_OWN

    counts = KV_SHARED_AND_OWN.counts(layers, num_hidden_layers=layers,
                                      num_kv_shared_layers=shared)
    assert counts == {"L_kvs": expected, "L_kvo": layers - expected}


def test_gemma3n_kv_shared_blocks_keep_their_unused_key_value_weights():
    arch = registry.get("gemma3n")

    def count(**kw):
        return arch.count(arch.resolve(dict(GEMMA3N_TINY, **kw)))

    # KerasHub builds a shared block's key/value projections and key norm: same total
    assert count(L_kvs=0) == count(L_kvs=2)
    tree = arch.formula.find("blocks")
    assert tree.find("unused_key_value").times == symbols.get("L_kvs")
    assert tree.find("key_value").times == symbols.get("L_kvo")
    with pytest.raises(ConstraintError, match="L_kvs"):
        arch.resolve(dict(GEMMA3N_TINY, L_kvs=3))  # a shared block needs a computing one


def test_gemma3n_altup_laurel_and_per_layer_inputs():
    arch = registry.get("gemma3n")

    def count(**kw):
        return arch.count(arch.resolve(dict(GEMMA3N_TINY, **kw)))

    d_e_, n = 8, 3
    # one more AltUp copy: two more d_e × d_e projections; per block a wider router and
    # (A+1)³ − A³ prediction and (A+1)² − A² correction coefficients
    per_block = d_e_ + (4 ** 3 - 3 ** 3) + (4 ** 2 - 3 ** 2)
    assert count(A=4) - count() == 2 * d_e_ * d_e_ + n * per_block
    # LAuReL rank + 1: one more row and column per block
    assert count(r_l=2) - count() == n * 2 * d_e_
    # per-layer width + 1: a table column and a projection output per block, the norm, and
    # each block's gate and projection
    assert count(d_p=3) - count() == 40 * n + d_e_ * n + 1 + n * 2 * d_e_
    assert count(altup_cs=0) - count() == -n * d_e_


def test_gemma3n_presets_are_explained_not_listed():
    from paramcount.model import keras_hub_meta

    presets = [p for p in keras_hub_meta.preset_names()
               if keras_hub_meta.preset_model(p) == "gemma3n"]
    if not presets:
        pytest.skip("KerasHub not installed")
    for p in presets:
        assert "vision" in keras_hub_meta.unlisted()[p] and "audio" in keras_hub_meta.unlisted()[p]


def test_gemma3n_counts_what_keras_hub_builds_for_any_m_kv_up_to_m():
    arch = registry.get("gemma3n")
    arch.resolve(dict(GEMMA3N_TINY, M=3, M_kv=2))  # KerasHub builds it (M // M_kv groups)
    with pytest.raises(ConstraintError, match="M_kv"):
        arch.resolve(dict(GEMMA3N_TINY, M=2, M_kv=3))


def test_gemma3n_proof_grid_stays_small():
    # What keeps `prove gemma3n` near a minute and a half of CPU: per option case (4), exact
    # interpolation over A (degree 3: A·A² prediction coefficients) and the two layer counts,
    # and 2 random points per node because every width keeps a full random range (no
    # divisibility substitution). Computed from the parametrization alone, no build.
    from paramcount.analyze import prove

    arch = registry.get("gemma3n")
    all_cases = prove.cases(arch)
    assert len(all_cases) == 4
    for case in all_cases:
        nodes = prove.decide.nodes(case)
        assert {x.name: len(v) for x, v in nodes.items()} == {"A": 5, "L'": 3, "L_kvs": 3}
        ranges = prove.decide.ranges(case, prove.decide.VALUE_BITS[0])
        per_point = sum(case.bound(x) / (hi - lo) for x, (lo, hi) in ranges.items())
        assert per_point ** prove.decide.MIN_POINTS < prove.TARGET_ERROR


def test_count_of_reads_options_as_a_config_holds_them():
    """What the config readers call (Field(stack=...)): the counts, and which value is wrong."""
    assert MOE_AND_DENSE.count_of("L_moe", 6, {"decoder_sparse_step": 2,
                                                "mlp_only_layers": [1]}) == 2
    assert MOE_AND_DENSE.count_of("L_dense", 6, {}) == 0
    for bad, want in ((("mlp_only_layers", 3), "a list of block indices"),
                      (("decoder_sparse_step", True), "a positive integer"),
                      (("mlp_only_layers", [-1]), "a list of block indices")):
        with pytest.raises(ValueError) as exc:
            MOE_AND_DENSE.count_of("L_moe", 4, dict([bad]))
        assert exc.value.args == (bad[0], want)
