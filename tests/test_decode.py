"""FLOPs per generated token (paramcount.analyze.decode): the tree read off a parameter tree, built
by hand here; against transformers' own one-token step, every architecture's tree is compared in
``tests/test_costs.py`` (``paramcount.analyze.costs.check`` measures it beside the forward)."""

from __future__ import annotations

import json

import pytest
import sympy

from paramcount.analyze.decode import decode_flops, not_decoded
from paramcount.analyze.verify import transformers_missing
from paramcount.core.formula import group, leaf
from paramcount.core.symbols import B, L, M, T, d_e, d_k, v, w
from paramcount.model import cost
from paramcount.model.components.basic import dense, layer_norm


def _attention(kept=None):
    key = dense("key", d_e, M * d_k, match="k")
    if kept is not None:
        key = key.with_cost(kept=kept)
    return group("attention", dense("query", d_e, M * d_k, match="q"), key,
                 dense("value", d_e, M * d_k, match="v"), dense("output", M * d_k, d_e, match="o"),
                 kind="attention")


def _at(expr, **values) -> int:
    expr = sympy.sympify(expr)
    return int(expr.subs({s: values[s.name] for s in expr.free_symbols}))


def _total(tree, **values) -> int:
    return _at(tree.total(), **values)


def test_dense_maps_run_on_the_new_token_and_its_query_meets_the_cache_and_itself():
    root = group("m", leaf("token", v * d_e, match="emb", kind="embedding"),
                 group("blocks", layer_norm("norm", d_e, match="ln"), _attention(), times=L),
                 dense("head", d_e, v, bias=0, match="lm_head"))
    tree, missing = decode_flops(root)
    assert missing == ()
    at = dict(B=2, T=9, L=3, d_e=8, M=2, d_k=4, v=11)
    projections = 2 * 2 * 4 * 8 * 8  # 2·B·1·(d_in·d_out) each of the four, biases none
    scores = 2 * 2 * (9 + 1) * (2 * 4 + 2 * 4)  # the new query against T cached keys and its own
    assert _total(tree, **at) == 3 * (projections + scores) + 2 * 2 * 8 * 11
    # the forward's tree at T = 1 is the step's with an empty cache
    forward, _ = cost.forward_flops(root)
    assert _total(tree, **{**at, "T": 0}) == _total(forward, **{**at, "T": 1})


def test_a_window_keeps_w_minus_one_and_the_step_adds_its_own():
    root = group("m", group("blocks", _attention(kept=cost.sliding_kept(w)), times=L))
    tree, _ = decode_flops(root)
    (scores,) = [lf for lf in tree.leaves() if lf.path.endswith("scores")]
    at = dict(B=1, L=1, d_e=8, M=2, d_k=4, w=5)
    # min(T, w − 1) keys kept and the new one: 3, 5, 5 at T = 2, 4, 9
    assert [_at(scores.expr, **at, T=t) for t in (2, 4, 9)] == [2 * (k + 1) * 16 for k in (2, 4, 4)]


def test_what_the_step_does_not_run_runs_over_the_cache_or_does_not_formulate():
    image = leaf("patches", 8 * d_e, match="vision", kind="projection", tokens=9,
                 d_in=8, d_out=d_e)
    scan = leaf("scan", 0, match="mixer/scan", flops=2 * B * T * d_e)
    tree, missing = decode_flops(group("m", image, dense("head", d_e, v, match="lm_head")))
    assert missing == () and [lf.path for lf in tree.leaves()] == ["m.head"]  # the image is cached
    _, missing = decode_flops(group("m", scan, dense("head", d_e, v, match="lm_head")))
    assert missing == ("m.scan",)
    latent = group("attention", dense("kv_down", d_e, 4, match="kv_a").with_cost(attends=8, caches=4),
                   dense("kv_up", 4, 8, match="kv_b"), dense("output", 8, d_e, match="o"),
                   kind="attention")
    tree, missing = decode_flops(group("m", latent))
    up = next(lf for lf in tree.leaves() if lf.path == "m.attention.kv_up")
    # the cached latent decompressed anew at each step: every position the cache holds, and one
    assert missing == () and _at(up.expr, B=2, T=9) == 2 * 2 * (9 + 1) * 4 * 8
    assert not_decoded(group("m", _attention()), caches=False).startswith("its class returns no")
    seq2seq = group("m", group("encoder", _attention()), group("decoder", _attention()))
    assert "encoder-decoder" in not_decoded(seq2seq, caches=True)


def _cli(*argv):
    from paramcount.cli.main import main

    return main(list(argv))


def test_count_context_gives_the_flops_of_a_generated_token(capsys):
    code = _cli("count", "llama3", "--preset", "llama3_8b_en", "--context", "4096", "--json")
    decode = json.loads(capsys.readouterr().out)["costs"]["decode"]
    # Llama 3 8B by hand: seven projections and the head on one token, the query against 4,097
    Lh, d, heads, kv_heads, dk, ff, vocab, t = 32, 4096, 32, 8, 128, 14336, 128256, 4096
    per_layer = 2 * d * heads * dk + 2 * d * kv_heads * dk + 3 * d * ff
    expected = 2 * (Lh * per_layer + d * vocab) + 2 * Lh * (t + 1) * 2 * heads * dk
    assert code == 0 and decode["total"] == expected == 17_157_324_800
    assert decode["status"] == "not proven" and "checked against" in decode["why"]
    # DeepSeek-V3's latent, decompressed over the whole cache at each step (README's figure):
    # kv_b_proj, r_kv → M·(d_nope + d_v), on 8,193 positions in each of its 61 layers
    _cli("count", "deepseek_v3", "--preset", "deepseek_v3", "--context", "8192", "--json")
    decode = json.loads(capsys.readouterr().out)["costs"]["decode"]
    up = decode["components"]["blocks"]["attention"]["kv_up"]
    assert up == 2 * 8193 * 512 * 128 * (128 + 128) * 61 and decode["total"] == 16_881_742_921_728
    _cli("count", "mamba", "--preset", "mamba_130m", "--context", "64")
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("FLOPs per generated token"))
    assert "not formulated: a one-token step not formulated for mamba.blocks.mixer.scan" in line


def _shifted(node, old, new):
    """``node`` with its scores leaves' ``old`` written ``new``."""
    import dataclasses

    if node.is_leaf:
        return dataclasses.replace(node, expr=node.expr.subs(old, new)) \
            if node.name == "scores" else node
    return dataclasses.replace(node, children=tuple(_shifted(c, old, new) for c in node.children))


@pytest.mark.skipif(transformers_missing(), reason="the transformers extra is not installed")
def test_the_check_measures_the_step_and_a_wrong_tree_fails_it():
    import dataclasses

    from paramcount.analyze import costs
    from paramcount.analyze.verify import compare
    from paramcount.model import registry
    from paramcount.model.weights import Named
    from paramcount.runtime import isolate

    arch = registry.get("llama3")
    hp = arch.resolve(dict(next(iter(arch.examples.values()))))
    result = costs.check(arch, hp, 7, 2)["decode"]
    assert result.components and not result.unclaimed
    assert all(c.expected == c.actual for c in result.components)
    # a step whose query met the cache without its own key: the check names the scores
    values = costs.at(arch, hp, 7, 2)
    measured = isolate.call("torch", Named("reference_models.hf_decode:decode_weights",
                                           (arch.id, "decode")), values)
    qa = costs.quantity_arch(arch, "decode", hp)
    wrong = dataclasses.replace(qa, formula=_shifted(qa.formula, T, T - 1))
    bad = [c.path for c in compare(wrong, values, measured, framework="transformers").components
           if c.expected != c.actual]
    assert bad == ["llama3.blocks.attention.scores"]
