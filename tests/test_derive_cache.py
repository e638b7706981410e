"""The KV cache derived as parameters are (:mod:`paramcount.analyze.derive_cache`): the cache a
forward returns observed as weights, a window caught before any claim, and each side of it its
own regime. The whole derivations of GPT-2 and Mistral (half a minute and two and a half) run
with ``--runslow``."""

from __future__ import annotations

import pytest

from tests._shared import torch_side

_TINY = {"vocab_size": 64, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4,
         "max_position_embeddings": 64}


def _template(name: str, dims: list[str]):
    from paramcount.analyze.derive.core import Template

    return Template(name, "buffer", ((1, ("num_hidden_layers",)),),
                    tuple(((1, (d,)),) for d in dims))


def _kv_derivation(fields: dict[str, int]):
    """What a derivation of a Llama-like cache finds: keys and values of B·M_kv·T·d per layer."""
    from paramcount.analyze.derive.core import Derivation

    d = Derivation("llama", "LlamaForCausalLM", {}, dict(fields), (), ())
    dims = ["B", "num_key_value_heads", "T", "head_dim"]
    d.templates = [_template("kv_cache.layers.*.keys", dims),
                   _template("kv_cache.layers.*.values", dims),
                   _template("model.layers.*.mlp.up_proj.weight",
                             ["intermediate_size", "hidden_size"])]
    d.explicit = dict(fields)
    return d


@torch_side
def test_the_cache_a_forward_returns_is_a_module_of_its_tensors_at_their_shapes():
    from paramcount.analyze.derive_cache import CacheSource

    src = CacheSource(model_type="llama", config=_TINY)
    model = src.model(src.config({"T": 7, "B": 3}))
    shapes = {n: tuple(b.shape) for n, b in model.kv_cache.named_buffers()}
    assert shapes == {f"layers.{i}.{kv}": (3, 2, 7, 4) for i in range(2)
                      for kv in ("keys", "values")}
    assert any(n.startswith("model.layers.0.") for n, _ in model.named_parameters())


@torch_side
def test_a_window_is_caught_past_every_integer_of_the_config_and_full_attention_is_not():
    """Mistral keeps its last sliding_window − 1 positions: the formula fitted at small T
    (B·M_kv·T·d a layer) is not the cache at T beyond every integer of the config, and says so;
    Llama's full attention is."""
    from paramcount.analyze.derive_cache import CacheSource, cache_part, window

    fields = {"B": 3, "T": 5, "num_key_value_heads": 2, "head_dim": 4, "num_hidden_layers": 2,
              "intermediate_size": 24, "hidden_size": 16}
    d = cache_part(_kv_derivation(fields))
    full = CacheSource(model_type="llama", config=_TINY)
    assert window(d, full) == ""
    sliding = CacheSource(model_type="mistral", config={**_TINY, "sliding_window": 8})
    why = window(d, sliding)
    assert "a window (sliding_window)" in why and "no polynomial of T" in why


def test_the_cache_part_keeps_the_cache_s_templates_and_the_fields_bound_to_them():
    """The weights go (their fields with them), the cache's fields stay, and a constraint on
    one of those keeps the field it binds (the heads the key/value heads divide)."""
    from paramcount.analyze.derive_cache import cache_part

    d = _kv_derivation({"B": 3, "T": 5, "num_key_value_heads": 2, "head_dim": 4,
                        "num_hidden_layers": 2, "intermediate_size": 24, "hidden_size": 16,
                        "num_attention_heads": 4})
    d.constraints = [("divides", "num_attention_heads", "num_key_value_heads"),
                     ("divides", "intermediate_size", "2")]
    part = cache_part(d)
    assert [t.name for t in part.templates] == ["kv_cache.layers.*.keys",
                                               "kv_cache.layers.*.values"]
    assert set(part.fields) == {"B", "T", "num_key_value_heads", "head_dim", "num_hidden_layers",
                                "num_attention_heads"}
    assert part.constraints == [("divides", "num_attention_heads", "num_key_value_heads")]


def test_a_regime_covers_its_side_of_the_window_only():
    """Past the window, T = w + T_over_window − 1: Mistral-7B's 32 layers keep 4,095 positions
    of 8 heads of 128 at T = 5,000, not 5,000 (the 22 % the issue measured)."""
    from paramcount.analyze.derive_cache import PAST, Regime, cache_part

    fields = {"B": 3, PAST: 3, "num_key_value_heads": 8, "head_dim": 128,
              "num_hidden_layers": 32, "sliding_window": 4096}
    from paramcount.analyze.derive.core import Template

    d = _kv_derivation(fields)
    kept = ((-1, ()), (1, ("sliding_window",)))  # sliding_window − 1 positions
    d.templates = [Template(f"kv_cache.layers.*.{kv}", "buffer", ((1, ("num_hidden_layers",)),),
                            (((1, ("B",)),), ((1, ("num_key_value_heads",)),), kept,
                             ((1, ("head_dim",)),))) for kv in ("keys", "values")]
    past = Regime("T >= sliding_window", cache_part(d), "", window="sliding_window",
                  below=False, width=4096)
    assert past.holds(5000) and past.holds(4096) and not past.holds(4095)
    assert past.elements({"T": 5000, "B": 1}) == 2 * 32 * 8 * 4095 * 128
    with pytest.raises(ValueError):
        past.elements({"T": 100, "B": 1})


@pytest.mark.parametrize("argv, said", [
    (("--config", "x.json", "--kv"), "give --model-type NAME"),
    (("--model-type", "gpt2", "--kv", "--no-prove"), "--kv always proves"),
    (("--model-type", "gpt2", "--kv", "--context", "0"), "positive"),
    (("--model-type", "gpt2", "--kv", "--flops"), "give one"),
    (("--config", "x.json", "--flops"), "give --model-type NAME"),
    (("--model-type", "gpt2", "--flops", "--no-prove"), "--flops always proves"),
])
def test_derive_kv_and_flops_bad_input_is_one_line_exit_2(argv, said):
    from tests.test_derive import _cli

    code, out, err = _cli("derive", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and said in err


@pytest.mark.slow
def test_derive_kv_prints_the_formula_its_proof_and_the_figure():
    from tests.test_derive import _cli

    code, out, err = _cli("derive", "--model-type", "gpt2", "--kv", "--context", "100",
                          "--batch", "2", "--budget", "600")
    assert code == 0, err
    assert "KV = 2·B·T·n_head·n_layer·floor(n_embd/n_head)" in out
    assert "1 of 1 cases proven" in out
    assert f"T = 100, B = 2: {2 * 12 * 2 * 100 * 768:,} elements" in out


@pytest.mark.slow
@torch_side
def test_gpt2_and_mistral_caches_derive_and_prove():
    """GPT-2's cache in one regime; Mistral's in two, each side of its window proven, the
    page's figure at T = 4,096 from the side past it (4,095 positions kept)."""
    from paramcount.analyze.derive import sweep

    kv, at = sweep.cache("gpt2")
    assert kv.startswith("proven: 1 case") and at == 2 * 12 * 12 * 4096 * 64
    kv, at = sweep.cache("mistral")
    assert kv.startswith("proven: ") and "two regimes" in kv
    assert at == 2 * 32 * 8 * 4095 * 128


def test_the_page_s_kv_column_tally_and_causes_come_from_the_rows():
    """A causal row swept for its cache shows the figure and its status; one not swept says so;
    the tally counts the swept rows only, the causes name why the others are not proven; the
    record reads its KV fields back, and a figure that is no integer is no record."""
    import dataclasses

    from paramcount.analyze.derive import sweep

    rows = [sweep.Row("gpt2", "GPT2LMHeadModel", "proven", 1, ("n_embd",), "1 cases proven",
                      kv="proven: 1 case [abcd]", kv_at=75_497_472),
            sweep.Row("mistral", "MistralForCausalLM", "proven", 2, (), "1 cases proven",
                      kv="not polynomial: at T = 9 the cache holds 1 elements [abcd]"),
            sweep.Row("opt", "OPTForCausalLM", "proven", 3, (), "1 cases proven"),
            sweep.Row("bert", "BertForMaskedLM", "proven", 4, (), "1 cases proven", "masked")]
    page = "\n".join(sweep.section(rows, {}))
    assert "- 1 of 2 causal-LM model types' KV caches derived and proven (50 %)" in page
    assert "| 75,497,472 elements, proven: 1 case [abcd] |" in page
    assert "| not swept |" in page
    assert "- a bound on the positions kept, not one window: 1" in page
    masked = page[page.index("## masked-LM"):]
    assert "KV cache" not in masked  # no masked row was swept: no column
    assert sweep.loads(sweep.dumps(rows, {"derive": "x"}))[0] == rows
    bad = sweep.dumps([dataclasses.replace(rows[0], kv_at=1)], {}).replace('"kv_at": 1', '"kv_at": 1.5')
    with pytest.raises(ValueError):
        sweep.loads(bad)


@torch_side
def test_aone_wide_head_broadcast_by_its_rotary_table_is_refused_and_latent_widths_are_not():
    """Qwen 2 at hidden_size < 2·heads: each key broadcast to two by the rotary table, values one
    wide, where any wider odd head fails outright; a latent cache (keys r_kv wide, values
    d_rope) is no such thing."""
    import torch

    from paramcount.analyze.derive_cache import CacheSource, one_wide

    src = CacheSource(model_type="qwen2", config={**_TINY, "hidden_size": 6,
                                                  "num_attention_heads": 4,
                                                  "num_key_value_heads": 2})
    del src.base["head_dim"]
    with pytest.raises(ValueError, match="one wide"):
        src.model(src.config({}))
    layer = torch.nn.Module()
    layer.register_buffer("keys", torch.empty(1, 1, 3, 4, device="meta"))
    layer.register_buffer("values", torch.empty(1, 1, 3, 2, device="meta"))
    one_wide(layer)  # MLA's latent keys and rope values: kept


@torch_side
def test_the_window_check_gives_a_strict_config_its_flags_as_booleans():
    """A derivation holds flags as 0/1; Gemma 3's config class is strict and refuses 0 for a
    boolean field, so the check passes them as the proof's builds do (the sweep's gemma3_text
    row failed there first)."""
    from paramcount.analyze.derive.core import Template
    from paramcount.analyze.derive_cache import CacheSource, cache_part, window

    tiny = {**_TINY, "sliding_window": 8, "layer_types": ["full_attention"] * 2}
    fields = {"B": 3, "T": 5, "num_key_value_heads": 2, "head_dim": 4, "num_hidden_layers": 2,
              "use_bidirectional_attention": 0}
    d = _kv_derivation(fields)
    d.flags = ("use_bidirectional_attention",)
    d.explicit = {**fields, "use_bidirectional_attention": False}
    # a cache tensor the flag adds (none at 0): the flag is a field of the cache's part
    d.templates.append(Template("kv_cache.layers.*.extra", "buffer",
                                ((1, ("use_bidirectional_attention", "num_hidden_layers")),),
                                (((1, ("B",)),),)))
    src = CacheSource(model_type="gemma3_text", config=tiny)
    assert window(cache_part(d), src) == ""

