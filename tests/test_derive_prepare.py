"""Config preparation (paramcount.analyze.derive.prepare): the general rules that make a model type
build where its class reads a sub-config, a library is missing, the config leaves a field None
the model computes with, or a small vocabulary is below the token ids; each on a tiny config."""

from __future__ import annotations

import random
from typing import ClassVar

import pytest

from paramcount.analyze.derive import layers, prepare
from tests._shared import derive_tiny, torch_side

TINY = {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2,
        "intermediate_size": 16, "vocab_size": 50}


def _params(model) -> int:
    import math

    return sum(math.prod(p.shape) for p in model.parameters())


# --- no torch -----------------------------------------------------------------------------------


def test_token_ids_follow_a_small_vocabulary():
    defaults = {"pad_token_id": 58100, "eos_token_id": 0, "decoder_start_token_id": 58100}
    moved = prepare.in_vocabulary({"vocab_size": 40, "bos_token_id": 45}, defaults)
    assert moved == {"vocab_size": 40, "bos_token_id": 39, "pad_token_id": 39,
                     "decoder_start_token_id": 39}  # eos_token_id 0 is inside: left alone
    assert prepare.in_vocabulary({"hidden_size": 8}, defaults) == {"hidden_size": 8}
    both = prepare.in_vocabulary({"vocab_size": 40, "decoder_vocab_size": 30}, defaults)
    assert both["pad_token_id"] == 29  # the smaller of two vocabularies (Marian's decoder's)


def test_widths_divide_by_the_small_inert_divisors_not_the_large_ones():
    """GPT-NeoX's hidden_size divides by its heads (its validator), which change no weight;
    its context length also divides the base width, but the lcm of both is too large to keep:
    the sample keeps the heads' divisibility rather than dropping every one."""
    from paramcount.analyze.derive.core import Derivation
    from paramcount.analyze.derive.sampling import sample

    d = Derivation("t", "T", {}, {"hidden_size": 6144, "num_hidden_layers": 44}, (), ())
    d.explicit = {"num_attention_heads": 64, "max_position_embeddings": 2048, **d.fields}
    rng = random.Random(0)
    for _ in range(20):
        p = sample(rng, d, ["num_hidden_layers"], ["hidden_size"], structured=True, same=False)
        assert p["hidden_size"] % 64 == 0 and p["hidden_size"] <= 256


# --- torch side ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("composite", "key", "sub_type", "cls"), [
    ("qwen3_5", "text_config", "qwen3_5_text", "Qwen3_5ForCausalLM"),
    ("musicgen", "decoder", "musicgen_decoder", "MusicgenForCausalLM"),
])
@torch_side
def test_a_class_reading_a_sub_config_is_derived_from_it(composite, key, sub_type, cls):
    import torch
    import transformers
    from transformers import AutoConfig

    from paramcount.analyze.derive.probe import Source

    tiny = {**TINY, "num_key_value_heads": 2, "head_dim": 8} if composite == "qwen3_5" else \
        {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "ffn_dim": 16,
         "vocab_size": 50}
    src = Source(config={"model_type": composite, key: tiny})
    assert (src.model_type, src.cls_name) == (sub_type, cls)
    assert tiny.items() <= src.base.items() and "model_type" not in src.base
    model = src.model(src.config({}))
    with torch.device("meta"):
        direct = getattr(transformers, cls)(AutoConfig.for_model(sub_type, **tiny))
    assert _params(model) == _params(direct)
    assert Source(model_type=composite).model_type == sub_type  # its defaults too


@torch_side
def test_a_class_needing_a_missing_library_falls_back_to_its_text_class():
    import importlib.util

    from paramcount.analyze.derive.probe import NeedsLibrary, Source

    def builder(cfg):  # a builder's own ImportError is its own (Keras in a torch worker)
        raise ImportError("keras imported in a process that holds torch")

    with pytest.raises(ImportError) as caught:
        Source(builder=builder, defaults={"a": 1}).build({})
    assert not isinstance(caught.value, NeedsLibrary)
    src = Source(model_type="gemma3n", config={"text_config": {"hidden_size": 64}})
    if importlib.util.find_spec("timm") is None:  # Gemma 3n's vision tower needs it
        with pytest.raises(NeedsLibrary, match=r"needs a library that is not installed.*timm"):
            src.build({})
    text = src.text_source()
    assert text is not None
    assert (text.model_type, text.cls_name) == ("gemma3n_text", "Gemma3nForCausalLM")
    assert text.base == {"hidden_size": 64}


@pytest.mark.parametrize(("model_type", "config", "fixes"), [
    # None where the model computes with it: as transformers' configs compute it elsewhere
    ("ministral", {**TINY, "num_key_value_heads": 2}, {"head_dim": 8}),
    ("nemotron", TINY, {"num_key_value_heads": 4}),
    ("lfm2_moe", {**TINY, "num_key_value_heads": 2, "moe_intermediate_size": 8,
                  "num_experts": 4, "num_experts_per_tok": 2, "num_dense_layers": 1},
     {"layer_types": "full_attention"}),
    # None with no expression: the default transformers' config classes most often give it
    # (128 among transformers 5.24.0's classes, 256 among 5.23.0's)
    ("dots1", {**TINY, "moe_intermediate_size": 8}, {"n_routed_experts": 128,
                                                     "n_shared_experts": 1}),
    # a flag the class asserts; an attribute a nested config lacks; RoPE by layer type
    ("reformer", {}, {"is_decoder": True}),
    ("dbrx", {"d_model": 32, "n_heads": 4, "n_layers": 2, "vocab_size": 50},
     {".rope_theta": "rope_theta"}),
    ("cohere_compass_text", TINY, {".full_attention": "full_attention"}),
])
@torch_side
def test_the_first_build_gets_only_the_repairs_it_needs(model_type, config, fixes):
    from paramcount.analyze.derive.probe import Source

    src = Source(model_type=model_type, config=config)
    built = src.build({})
    assert src.fixes == fixes  # and nothing else: is_decoder and the rest were tried, dropped
    assert built
    cfg = src.config({})
    values = src.values(cfg)  # an integer repair is the base's value: a hyperparameter
    assert all(values[k] == v for k, v in fixes.items() if type(v) is int)
    again = src.build({"num_hidden_layers": 3} if "num_hidden_layers" in config else {})
    assert again  # later builds get the same repairs (layer_types follows the layer count)


@torch_side  # prepare reads transformers' config classes: never beside TensorFlow
def test_a_none_field_no_config_class_defaults_is_named_after_its_tail():
    """Qwen4-Exp's indexer_* fields: None, and no config class gives them a default. By the
    longest tail of the name: the config's own value (head_dim), else the most common default
    of the tail (n_heads), else 1 (kv_heads, budget, compress_ratio: Qwen4-Exp's validator
    insists on indexer_kv_heads = 1 and budget divisible by compress_ratio)."""
    from paramcount.analyze.derive.prepare import _by_name, _common_defaults

    values = {"head_dim": 48, "hidden_size": 64}
    assert _by_name("indexer_head_dim", values) == 48
    assert _by_name("indexer_n_heads", values) == _common_defaults()["n_heads"]
    assert _by_name("indexer_kv_heads", values) == 1
    assert _by_name("indexer_budget", values) == 1


@torch_side
def test_a_build_needing_fields_no_class_defaults_gets_them_by_name():
    from paramcount.analyze.derive.prepare import _common_defaults
    from paramcount.analyze.derive.probe import Source

    src = Source(model_type="qwen4_exp_text",
                 config={**TINY, "num_hidden_layers": 4, "head_dim": 8})
    assert src.build({})
    assert src.fixes == {"indexer_budget": 1, "indexer_compress_ratio": 1, "indexer_head_dim": 8,
                         "indexer_kv_heads": 1, "indexer_n_heads": _common_defaults()["n_heads"]}


class _Pinning:
    """A config whose validator pins its text sub-config's ``per_layer`` to 0 and its own
    ``moe`` to False, refusing its own defaults, as Gemma 4 Assistant's does."""
    sub_configs: ClassVar[dict] = {"text_config": object}

    def __init__(self, text_config=None, moe=True, **kwargs):
        text = {"per_layer": 256, **(text_config or {})}
        if text["per_layer"] != 0:
            raise ValueError(f"per_layer must be 0, got {text['per_layer']}")
        if moe is not False:
            raise ValueError(f"`moe` must be False, got {moe}")
        if kwargs:
            raise TypeError(f"unexpected {sorted(kwargs)}")


def test_values_a_config_validator_pins_are_held_where_it_pins_them():
    base, pins = prepare.pinned(_Pinning, {})
    assert base == {"text_config": {"per_layer": 0}, "moe": False}
    assert pins == {"text_config.per_layer": "pinned at 0 by the config class: "
                                             "ValueError: per_layer must be 0, got 256",
                    "moe": "pinned at False by the config class: "
                           "ValueError: `moe` must be False, got True"}


def test_a_value_the_caller_gave_is_not_pinned_nor_an_unreadable_refusal():
    given = {"text_config": {"per_layer": 3}}
    assert prepare.pinned(_Pinning, given, given) == (given, {})

    class Refusing:
        def __init__(self, **kwargs):
            raise ValueError("heads must divide the width")

    assert prepare.pinned(Refusing, {"a": 1}) == ({"a": 1}, {})


@torch_side
def test_a_config_pinning_its_sub_config_derives_there():
    from paramcount.analyze.derive.probe import Source

    src = Source(model_type="gemma4_assistant")
    assert src.base == {"text_config": {"hidden_size_per_layer_input": 0,
                                        "vocab_size_per_layer_input": 0}}
    assert set(src.pins) == {"text_config.hidden_size_per_layer_input",
                             "text_config.vocab_size_per_layer_input"}
    assert src.config({}).text_config.hidden_size_per_layer_input == 0
    assert "backbone_hidden_size" in src.init_fields()  # (the class's, not its refused defaults)


@torch_side
def test_a_config_refusing_its_defaults_names_the_validators_own_reason():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import DeriveError, Source

    given = {"text_config": {"hidden_size_per_layer_input": 256}}  # given: never moved
    with pytest.raises(DeriveError, match=r"refuses its base values: ValueError: "
                                          r"hidden_size_per_layer_input must be 0, got 256"):
        derive(Source(model_type="gemma4_assistant", config=given))


@torch_side
def test_a_small_vocabulary_below_the_pad_id_builds():
    from paramcount.analyze.derive.probe import Source

    src = Source(model_type="marian", config={"d_model": 16, "decoder_layers": 1,
                                              "encoder_layers": 1, "decoder_ffn_dim": 8,
                                              "encoder_ffn_dim": 8, "decoder_attention_heads": 2,
                                              "encoder_attention_heads": 2})
    built = src.build({"vocab_size": 40, "decoder_vocab_size": 30})
    assert built


def test_a_row_says_which_none_fields_its_defaults_were_given():
    from types import SimpleNamespace

    from paramcount.analyze.derive.sweep import Row, _given, section

    src = SimpleNamespace(config=lambda over: {"n_routed_experts": None, "hidden_size": 4})
    d = SimpleNamespace(explicit={"n_routed_experts": 256, "hidden_size": 4})
    note = _given(src, d)
    assert note == "; at n_routed_experts=256 (None at the defaults)"
    row = Row("dots1", "Dots1ForCausalLM", "proven", 10, ("hidden_size",), "8 cases proven" + note)
    assert any("| proven; at n_routed_experts=256 (None at the defaults) |" in line
               for line in section([row], {}))


# --- fields the model insists are equal ---------------------------------------------------------


def test_fields_the_model_insists_equal_follow_the_first_the_config_lists():
    """SqueezeBERT asserts embedding_size = hidden_size: every variation of either alone is
    refused, both varied together build. The first the config lists is the hyperparameter;
    the other follows it wherever it is given off its base and the other at its own."""
    def try_build(over):  # heads held at 12 by the model, whatever groups is
        return {} if over["hidden"] == over["embed"] and over["heads"] == 12 else "refused"

    at = {"embed_before": 4, "hidden": 768, "embed": 768, "heads": 12, "groups": 12}
    order = ["hidden", "heads", "embed", "groups"]
    # heads and groups are equal too, but a build with both varied is refused: no pair
    assert prepare.equal_fields(try_build, at, ["embed", "hidden", "heads", "groups"], order) \
        == [("embed", "hidden")]
    # varied together, the base model again (a config reading both back): no pair
    assert prepare.equal_fields(lambda over: {}, at, ["embed", "hidden"], order, ref={}) == []
    raw = {"hidden": 768, "embed": 768, "vocab": 50}
    pairs = (("embed", ("hidden",)),)  # follows as a one-part sum
    follow = layers.follow_sums
    assert follow({"hidden": 64, "vocab": 9}, raw, pairs)["embed"] == 64
    assert follow({"hidden": 64, "embed": 768}, raw, pairs)["embed"] == 64
    # given otherwise, the follower is the caller's (a build with them unequal: refused)
    assert follow({"hidden": 64, "embed": 32}, raw, pairs)["embed"] == 32
    assert follow({"vocab": 9}, raw, pairs) == {"vocab": 9}


def _equal_builder(cfg):
    from torch import nn

    h, e, g, n = cfg["hidden"], cfg["embed_size"], cfg["groups"], cfg["layers"]
    if e != h:
        raise ValueError("embed_size must equal hidden")

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(cfg["vocab"], e)
            self.convs = nn.ModuleList(nn.Conv1d(h, h, 1, groups=g) for _ in range(n))

    return Tiny()


EQUAL = {"hidden": 24, "embed_size": 24, "groups": 4, "layers": 3, "vocab": 30}


@torch_side
def test_a_field_the_model_insists_equal_follows_its_hyperparameter():
    from paramcount.analyze.derive.store import from_json, to_json
    from paramcount.analyze.derive.tree import ties
    from paramcount.output.derive_output import header

    _, d = derive_tiny(_equal_builder, EQUAL, "tiny_equal")
    assert not d.failures, d.failures
    assert d.equal == {"embed_size": "hidden"} and "embed_size" not in d.held
    assert set(d.fields) == {"hidden", "groups", "layers", "vocab"}
    assert "embed_size = hidden" in "\n".join(header(d, False, ties(d)))
    for h, g, n, v in ((24, 4, 3, 30), (40, 8, 5, 7), (9, 3, 1, 100)):
        want = v * h + n * (h * (h // g) + h)
        assert d.count({"hidden": h, "groups": g, "layers": n, "vocab": v})["trainable"] == want
    assert from_json(to_json(d)).equal == d.equal


@pytest.mark.slow
@torch_side
def test_a_field_the_model_insists_equal_is_proven_as_it_follows():
    """A fresh source (as a cached derivation's proof has): the follower follows there too."""
    from paramcount.analyze.derive.probe import Source
    from paramcount.analyze.derive.proof import prove_derivation
    from paramcount.analyze.derive.store import from_json, to_json

    _, d = derive_tiny(_equal_builder, EQUAL, "tiny_equal")
    proof = prove_derivation(from_json(to_json(d)), Source(builder=_equal_builder, defaults=EQUAL,
                                                           model_type="tiny_equal"))
    assert [c.status for c in proof.cases] == ["proven"] * len(proof.cases), proof.cases
