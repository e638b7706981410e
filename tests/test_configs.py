"""Configuration files in (paramcount.analyze.configs, paramcount.model.mapping): published transformers
configs, KerasHub preset configs, the tables read both ways, and every refusal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.cli.main import main
from paramcount.model import registry
from tests._shared import on_torch

CONFIGS = Path(__file__).with_name("configs")

# file → (architecture read, transformers' parameter count of that class). The counts are the
# published figures of the checkpoints (model cards / sum of safetensors shapes), and what the
# transformers reference gives (tests/test_transformers.py checks the same configs by building).
PUBLISHED = {
    "llama-2-7b-hf.json": ("llama", 6_738_415_616),
    "meta-llama-3-8b.json": ("llama", 8_030_261_248),
    "llama-3.2-1b.json": ("llama", 1_235_814_400),
    "mistral-7b-v0.1.json": ("mistral", 7_241_732_096),
    "gpt2.json": ("gpt2_causal_lm", 124_439_808),
    "gpt2-medium.json": ("gpt2_causal_lm", 354_823_168),
    "bert-base-uncased.json": ("bert_masked_lm", 109_514_298),
    "opt-125m.json": ("opt", 125_239_296),
    "llama-2-13b-hf.json": ("llama", 13_015_864_320),
    "llama-2-70b-hf.json": ("llama", 68_976_648_192),
    "mistral-7b-v0.3.json": ("mistral", 7_248_023_552),
    "gpt2-large.json": ("gpt2_causal_lm", 774_030_080),
    "gpt2-xl.json": ("gpt2_causal_lm", 1_557_611_200),
    "bert-large-uncased.json": ("bert_masked_lm", 335_174_458),
    "opt-1.3b.json": ("opt", 1_315_758_080),
    # Qwen/Qwen2.5-0.5B and Qwen/Qwen2.5-7B config.json (Qwen2.5 technical report, table 1)
    "qwen2.5-0.5b.json": ("qwen", 494_032_768),
    "qwen2.5-7b.json": ("qwen", 7_615_616_512),
    # Qwen/Qwen3-0.6B and Qwen/Qwen3-8B config.json (Qwen3 technical report, table 1)
    "qwen3-0.6b.json": ("qwen3", 596_049_920),
    "qwen3-8b.json": ("qwen3", 8_190_735_360),
    # EleutherAI/pythia-70m and EleutherAI/gpt-neox-20b config.json (Biderman et al. 2023,
    # table 1; Black et al. 2022): GPTNeoXForCausalLM, untied head included
    "pythia-70m.json": ("gpt_neo_x", 70_426_624),
    "gpt-neox-20b.json": ("gpt_neo_x", 20_554_567_680),
    # bigscience/bloom-560m and bigscience/bloom-7b1 config.json (BigScience 2022, table 3)
    "bloom-560m.json": ("bloom", 559_214_592),
    "bloom-7b1.json": ("bloom", 7_069_016_064),
    # tiiuae/falcon-rw-1b (KerasHub's layout), tiiuae/falcon-7b and tiiuae/falcon-40b config.json
    # (Almazrouei et al. 2023, table 2); the last two only transformers builds
    "falcon-rw-1b.json": ("falcon", 1_311_625_216),
    "falcon-7b.json": ("falcon_parallel", 6_921_720_704),
    "falcon-40b.json": ("falcon_parallel", 41_303_293_952),
    # Qwen/Qwen1.5-MoE-A2.7B config.json (Qwen1.5-MoE blog: 14.3B parameters in all)
    "qwen1.5-moe-a2.7b.json": ("qwen_moe", 14_315_784_192),
    # Qwen/Qwen3-30B-A3B config.json (Qwen3 technical report, table 2)
    "qwen3-30b-a3b.json": ("qwen3_moe", 30_532_122_624),
    # the text_config of Qwen/Qwen3.5-27B (as public code copies it; the checkpoint's vision
    # encoder and multi-token-prediction layers are not in Qwen3_5ForCausalLM), as a text config:
    # the count is transformers' build of this file, not a published figure
    "qwen3.5-27b-text.json": ("qwen3_5", 26_895_998_464),
    # mistralai/Mixtral-8x7B-v0.1 config.json; 46.7B on its model card
    "mixtral-8x7b-v0.1.json": ("mixtral", 46_702_792_704),
    # HuggingFaceTB/SmolLM3-3B config.json; 3.08B (tied head), KerasHub's smollm3_3b_en figure
    # less its 2,304 RoPE inverse frequencies
    "smollm3-3b.json": ("smollm3", 3_075_098_624),
    # openai/gpt-oss-20b config.json (its mxfp4 quantization_config left out: it changes the
    # storage, not the count); 20.9B on the model card
    "gpt-oss-20b.json": ("gpt_oss", 20_914_757_184),
    # google/gemma-3-1b-it config.json (Gemma3ForCausalLM, text only); KerasHub's gemma3_1b
    "gemma-3-1b-it.json": ("gemma3", 999_885_952),
    # google/gemma-7b and google/gemma-2b config.json; KerasHub's gemma_7b_en and gemma_2b_en
    "gemma-7b.json": ("gemma", 8_537_680_896),
    "gemma-2b.json": ("gemma", 2_506_172_416),
    # google/gemma-2-2b and google/gemma-2-9b config.json (Gemma2ForCausalLM, model_type gemma2;
    # Gemma 2 report, table 1); KerasHub's gemma2_2b_en and gemma2_9b_en
    "gemma-2-2b.json": ("gemma", 2_614_341_888),
    "gemma-2-9b.json": ("gemma", 9_241_705_984),
    # microsoft/Phi-3-mini-4k-instruct config.json (auto_map left out); 3.82B, KerasHub's
    # phi3_mini_4k_instruct_en
    "phi-3-mini-4k-instruct.json": ("phi3", 3_821_079_552),
    # google/paligemma-3b-pt-224 config.json; 2.92B on the model card (KerasHub's
    # pali_gemma_3b_224 has 64 token rows fewer: see CONVERTER_DIFFERS)
    "paligemma-3b-pt-224.json": ("pali_gemma", 2_923_466_480),
    # google/paligemma2-3b-pt-224 config.json (text_config: Gemma 2, model_type gemma2); 3.03B on
    # the model card (KerasHub's pali_gemma2_pt_3b_224 has 64 token rows fewer, as above)
    "paligemma2-3b-pt-224.json": ("pali_gemma", 3_032_242_416),
    # google/gemma-3-4b-it config.json (its text_config leaves vocab_size, heads and head_dim to
    # Gemma3TextConfig's defaults); 4.3B, KerasHub's medgemma_4b (its gemma3_4b presets hold
    # 262144 token rows, 64 fewer)
    "gemma-3-4b-it.json": ("gemma3_vision", 4_300_079_472),
    # google/t5gemma-2b-2b-ul2 config.json; KerasHub's t5gemma_2b_2b_ul2
    "t5gemma-2b-2b-ul2.json": ("t5gemma", 5_596_853_760),
    # the text_config of google/gemma-3n-E2B and google/gemma-3n-E4B (config.json: model_type
    # gemma3n_text, Gemma3nForCausalLM named here; Gemma3nForCausalLM.from_pretrained reads that
    # part of the multimodal checkpoint). Transformers' build, without the key/value weights of the
    # KV-shared blocks the checkpoints hold (KerasHub's count of the same files: 4,456,156,768,
    # the E2B's "4.46B text parameters", and 6,866,696,688)
    "gemma-3n-E2B-text.json": ("gemma3n", 4_435_182_688),
    "gemma-3n-E4B-text.json": ("gemma3n", 6_835_235_568),
    # google/t5gemma-2-270m-270m's config as transformers 5 loads it (its _name_or_path keys left
    # out): T5Gemma2ForConditionalGeneration, the SigLIP tower and its projector included
    # (417M, "a 417M vision encoder" in the T5Gemma 2 release); 368,424,832 without them
    # ("~370M total, excluding vision encoder"). KerasHub's t5gemma2_270m_270m keeps a separate
    # decoder table (+167,772,160)
    "t5gemma-2-270m-270m.json": ("t5gemma2", 786_029_296),
    # FacebookAI/roberta-base, roberta-large (config.json as published; counts: the checkpoints'
    # RobertaForMaskedLM, n + 2 position rows and the one-row token-type table included)
    "roberta-base.json": ("roberta_masked_lm", 124_697_433),
    "roberta-large.json": ("roberta_masked_lm", 355_412_057),
    "xlm-roberta-base.json": ("xlm_roberta_masked_lm", 278_295_186),  # FacebookAI/xlm-roberta-base
    "distilbert-base-uncased.json": ("distil_bert_masked_lm", 66_985_530),  # distilbert/...
    # google/electra-{base,small}-discriminator's values, the class set to ElectraModel: the
    # published ElectraForPreTraining has a discriminator head KerasHub does not build
    "electra-base-discriminator.json": ("electra", 108_891_648),
    "electra-small-discriminator.json": ("electra", 13_483_008),
    "albert-base-v2.json": ("albert_masked_lm", 11_221_680),  # albert/albert-base-v2
    "bart-base.json": ("bart", 139_420_416),  # facebook/bart-base
    "bart-large-cnn.json": ("bart", 406_290_432),  # facebook/bart-large-cnn (lm_head tied)
    # google-t5/t5-small (v1.0, tied); google/flan-t5-small (untied: the checkpoint has
    # 76,961,152, KerasHub's count; transformers 5 forces the head tied and builds 60,511,616)
    "t5-small.json": ("t5", 60_506_624),
    "flan-t5-small.json": ("t5", 60_511_616),
    # microsoft/deberta-v3-base (its config.json names no class: DebertaV2Model added here)
    "deberta-v3-base.json": ("deberta_v3", 183_831_552),
    # facebook/esm2_t6_8M_UR50D's values, the class set to EsmModel (pooler and contact head;
    # the published EsmForMaskedLM's LM head is not in paramcount's ESM)
    "esm2_t6_8M_UR50D.json": ("esm", 7_511_801),
    # google/fnet-base's values, the class set to FNetModel (the published FNetForPreTraining
    # adds MLM and NSP heads KerasHub's backbone does not have) and use_tpu_fourier_optimizations
    # false (published: true, which makes transformers keep DFT matrices as buffers: refused)
    "fnet-base.json": ("f_net", 82_861_056),
    # xlnet/xlnet-base-cased's values, the class set to XLNetModel (the published
    # XLNetLMHeadModel adds an LM head bias)
    "xlnet-base-cased.json": ("xlnet", 116_718_336),
    # google/vit-{base,large}-patch16-224-in21k and google/vit-huge-patch14-224-in21k config.json
    # (ViTModel, pooler included: 86.4M on the base model card); KerasHub's
    # vit_*_imagenet21k backbones plus the pooler (d_e² + d_e)
    "vit-base-patch16-224-in21k.json": ("vit", 86_389_248),
    "vit-large-patch16-224-in21k.json": ("vit", 304_351_232),
    "vit-huge-patch14-224-in21k.json": ("vit", 632_404_480),
    # the text_config of google/gemma-4-31B (60 layers, 10 global with 512-wide heads and 4 K = V
    # heads; model card and public ports of its config), as a Gemma4ForCausalLM text config: the
    # checkpoint's vision encoder is not in the text decoder; the count is transformers' build
    "gemma-4-31b-text.json": ("gemma4", 30_697_345_280),
    # google/embeddinggemma-300m config.json (Gemma3TextModel, the backbone: 302.9M; with the
    # sentence-transformers Dense modules beside it, 307,581,696, KerasHub's
    # embedding_gemma3_300m)
    "embeddinggemma-300m.json": ("gemma3_embedding", 302_863_104),
    # openai/whisper-tiny, whisper-base and whisper-large-v3 config.json (generation lists
    # suppress_tokens and, for large-v3, forced_decoder_ids left out: they change no count). The
    # counts leave out the encoder's sinusoidal table, frozen in transformers (requires_grad
    # False) as it is non-trainable in KerasHub: with it, 37,760,640, 72,593,920 and
    # 1,543,490,560, transformers' num_parameters() and the model cards' 39M / 74M / 1.55B
    "whisper-tiny.json": ("whisper", 37_184_640),
    "whisper-base.json": ("whisper", 71_825_920),
    "whisper-large-v3.json": ("whisper", 1_541_570_560),
    # UsefulSensors/moonshine-tiny and moonshine-base config.json (Jeffries et al. 2024, table 1:
    # 27.1M, 61.5M); KerasHub's moonshine_tiny_en and moonshine_base_en (transformers keeps no
    # rotary weight: KerasHub's builds hold 22 and 32 non-trainable inverse frequencies more)
    "moonshine-tiny.json": ("moonshine", 27_092_736),
    "moonshine-base.json": ("moonshine", 61_513_920),
}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def mapped() -> list[str]:
    return sorted(a for a, arch in registry.architectures().items() if arch.mapping is not None)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = PUBLISHED[name]
    code, out, err = run(capsys, "count", "--config", str(CONFIGS / name), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["arch"] == arch and data["total"] == total
    assert data["framework"] == "transformers" and data["config"]["file"].endswith(name)


def test_count_config_prints_what_it_read(capsys):
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "bert-base-uncased.json"))
    assert code == 0
    first = out.splitlines()[0]
    assert "(transformers config, BertForMaskedLM) as bert_masked_lm: v=30522, L=12" in first
    assert "counted as transformers builds it: BertForMaskedLM" in out
    assert "pooler" in out and "-590,592  (590,592 → 0): BertForMaskedLM has no pooler" in out
    # The Keras build of the same config keeps KerasHub's pooler.
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "bert-base-uncased.json"),
                       "--framework", "keras", "--json")
    assert json.loads(out)["total"] == 109_514_298 + 590_592


def test_folder_and_set_override(capsys, tmp_path):
    (tmp_path / "config.json").write_text((CONFIGS / "llama-2-7b-hf.json").read_text())
    code, out, _ = run(capsys, "count", "--config", str(tmp_path), "--set", "L=40", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["hparams"]["L"] == 40 and data["config"]["read"]["L"] == 32
    assert data["preset"] == f"{tmp_path}+custom"


def test_arch_named_with_config_reads_with_its_table(capsys):
    # Llama 3 configs say model_type "llama"; naming llama3 reads them as llama3 (same formula).
    code, out, _ = run(capsys, "count", "llama3", "--config", str(CONFIGS / "meta-llama-3-8b.json"),
                       "--json")
    assert code == 0 and json.loads(out)["arch"] == "llama3"
    assert json.loads(out)["total"] == 8_030_261_248
    code, _, err = run(capsys, "count", "gpt2", "--config", str(CONFIGS / "meta-llama-3-8b.json"))
    assert code == 2 and "cannot be read as gpt2" in err


def _write(tmp_path, data, name="config.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(p)


def _vit(**changes):
    data = json.loads((CONFIGS / "vit-base-patch16-224-in21k.json").read_text())
    return {**data, **changes}


def _llama(**changes):
    data = json.loads((CONFIGS / "llama-2-7b-hf.json").read_text())
    for k, v in changes.items():
        if v is None:
            data.pop(k, None)
        else:
            data[k] = v
    return data


def _t5gemma2_bias_on_one_side():
    data = json.loads((CONFIGS / "t5gemma-2-270m-270m.json").read_text())
    data["encoder"]["text_config"]["attention_bias"] = True
    del data["decoder"]["attention_bias"]  # transformers' default: False, on this side only
    return data


@pytest.mark.parametrize("data, message", [
    (_t5gemma2_bias_on_one_side(),
     "decoder.attention_bias is absent (so false) but encoder.text_config.attention_bias = "
     "true; the formula has one zeta"),
    (_llama(model_type="mamba9"), "model_type 'mamba9' is not supported; supported: "),
    (_llama(architectures=["LlamaForMultipleChoice"]),
     "class 'LlamaForMultipleChoice' (architectures[0]) is not supported for model_type "
     "'llama'; supported: LlamaForCausalLM, LlamaModel, LlamaForSequenceClassification, "
     "LlamaForTokenClassification, LlamaForQuestionAnswering"),
    (_llama(attention_bias=True), "attention_bias = true cannot be counted"),
    (_llama(mlp_bias=True), "mlp_bias = true cannot be counted"),
    (_llama(vocab_size=""), 'vocab_size = "": expected a positive integer'),
    (_llama(hidden_size="4096"), 'hidden_size = "4096": expected a positive integer'),
    (_llama(tie_word_embeddings=1), "tie_word_embeddings = 1: expected true or false"),
    (_llama(model_type=None), "no model_type key"),
    ({"model_type": "opt", "architectures": ["OPTForCausalLM"], "vocab_size": 50272,
      "hidden_size": 1024, "word_embed_proj_dim": 512, "num_hidden_layers": 24, "ffn_dim": 4096,
      "num_attention_heads": 16, "max_position_embeddings": 2048},
     "word_embed_proj_dim = 512 differs from hidden_size = 1024"),
    ({"model_type": "opt", "architectures": ["OPTForCausalLM"], "do_layer_norm_before": False},
     "do_layer_norm_before = false cannot be counted: post-LN OPT (OPT-350m)"),
    ({"model_type": "bert", "architectures": ["BertModel"],
      "position_embedding_type": "relative_key"}, "position_embedding_type = \"relative_key\""),
    ({"model_type": "bloom", "architectures": ["BloomForCausalLM"], "n_inner": 2048},
     "n_inner = 2048 cannot be counted: transformers' BloomMLP ignores n_inner"),
    # a transformers config's dense blocks are read (L_moe); malformed options are not
    ({"model_type": "qwen2_moe", "architectures": ["Qwen2MoeForCausalLM"],
      "num_hidden_layers": 4, "mlp_only_layers": "all"},
     'mlp_only_layers = "all": expected a list of block indices'),
    ({"model_type": "qwen2_moe", "num_hidden_layers": 4, "decoder_sparse_step": 0},
     "decoder_sparse_step = 0: expected a positive integer"),
    # KerasHub's backbone applies them to block 0 in every block: refused there
    ({"class_name": "QwenMoeBackbone", "config": {"mlp_only_layers": [0, 5]}},
     "mlp_only_layers = [0, 5] cannot be counted: every block is a mixture of experts in what "
     "a KerasHub config is read as"),
    ({"model_type": "qwen3_5_text", "num_hidden_layers": 2,
      "layer_types": ["full_attention", "mamba"]},
     'layer_types: expected a list of "full_attention" or "linear_attention"'),
    ({"model_type": "qwen3_5_text", "num_hidden_layers": 3,
      "layer_types": ["full_attention", "linear_attention"]},
     "layer_types has 2 entries for 3 blocks"),
    # Qwen2Config's absent num_key_value_heads is 32, not the query heads (taken as its class
    # declares it): 32 key-value heads for 4 query heads, which the formula cannot group
    ({"model_type": "qwen2", "vocab_size": 10, "num_hidden_layers": 1, "num_attention_heads": 4,
      "hidden_size": 16, "intermediate_size": 8}, "M (4) must be divisible by M_kv (32)"),
    ({"model_type": "roberta", "architectures": ["RobertaModel"], "max_position_embeddings": 2},
     "max_position_embeddings = 2: expected an integer above 2 (max_position_embeddings = n + 2)"),
    # token types are read (roberta:token_types, transformers only); a relative position type
    # is refused by that table, the closest, with its own reason (not the token types')
    ({"model_type": "roberta", "architectures": ["RobertaModel"], "type_vocab_size": 2,
      "position_embedding_type": "relative_key"},
     'position_embedding_type = "relative_key" cannot be counted: relative position types'),
    ({"model_type": "t5", "architectures": ["T5ForConditionalGeneration"],
      "feed_forward_proj": "gated-mish"},
     'feed_forward_proj = "gated-mish" cannot be counted: expected one of "gated-gelu"'),
    # a per-block list of one value: read when the entries agree, refused when they differ
    ({"model_type": "gemma3n_text", "num_hidden_layers": 2, "intermediate_size": [8, 16]},
     "intermediate_size holds 8 and 16: cannot be counted: the formula has one d_f for every "
     "block"),
    ({"model_type": "gemma3n_text", "num_hidden_layers": 3, "intermediate_size": [8, 8]},
     "intermediate_size has 2 entries for 3 blocks"),
    # a count that may be zero (no KV-shared block) is read as such; below zero it is refused
    ({"model_type": "gemma3n_text", "num_kv_shared_layers": -1},
     "num_kv_shared_layers = -1: expected a non-negative integer"),
    ({"model_type": "gemma3n_text", "tie_word_embeddings": False},
     "tie_word_embeddings = false cannot be counted"),
    # the whole multimodal Gemma 3n (MobileNetV5 and Conformer encoders) is not formulated by
    # hand, and cannot be derived here: its vision tower needs timm (not installed); the text
    # model the sweep derives in its place is another model, so a config asking for the whole
    # one is refused, not counted as its text part
    ({"model_type": "gemma3n", "architectures": ["Gemma3nForConditionalGeneration"]},
     "Gemma3nForConditionalGeneration does not build here (a library it needs is not installed)"),
    ({"class_name": "Gemma3nBackbone", "config": {"vision_encoder_config": {"stem_size": 64}}},
     "cannot be counted: a Gemma3nBackbone with a vision encoder (MobileNetV5) is not "
     "formulated"),
    # Gemma4TextConfig's absent hidden_size_per_layer_input is 256: per-layer inputs, read as
    # gemma4:per_layer_inputs (tests/test_options.py); KV-shared layers are refused by that
    # table, the closest, with its own reason
    ({"model_type": "gemma4_text", "architectures": ["Gemma4ForCausalLM"],
      "num_kv_shared_layers": 2},
     "num_kv_shared_layers = 2 cannot be counted: key/value-sharing layers are not formulated"),
    ({"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "enable_moe_block": True},
     "enable_moe_block = true cannot be counted: the mixture-of-experts blocks"),
    ({"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"],
      "encoder_layers": 4, "decoder_layers": 2},
     "decoder_layers = 2 differs from encoder_layers = 4; the formula has one L"),
    ({"class_name": "WhisperBackbone", "config": {"max_encoder_sequence_length": 3001}},
     "max_encoder_sequence_length = 3001 is not a multiple of 2"),
    ({"model_type": "moonshine", "hidden_size": 288, "intermediate_size": 1000},
     "intermediate_size = 1000 is not a multiple of hidden_size = 288, as x_f needs "
     "(intermediate_size = x_f·d_e)"),
    ({"model_type": "moonshine", "encoder_num_attention_heads": 8,
      "encoder_num_key_value_heads": 2},
     "encoder_num_key_value_heads = 2 differs from encoder_num_attention_heads = 8"),
    # the absent query heads are MoonshineConfig's 8: grouped-query attention, refused
    ({"model_type": "moonshine", "decoder_num_key_value_heads": 4},
     "decoder_num_key_value_heads = 4 differs from decoder_num_attention_heads = 8; the "
     "formula has one M_dec"),
    ({"class_name": "MoonshineBackbone", "config": {"pad_head_dim_to_multiple_of": 8}},
     "pad_head_dim_to_multiple_of = 8 cannot be counted: KerasHub widens each head"),
    ({"class_name": "MoonshineBackbone", "config": {"partial_rotary_factor": 0.5}},
     "partial_rotary_factor = 0.5 cannot be counted"),
    ({"class_name": "FooBackbone", "config": {}}, "KerasHub class 'FooBackbone' is not supported"),
    # ViT: the fine-tuned checkpoints' classifier class, a non-square patch (the formula has one
    # P), a pooler of another width, a short image_size, a channels-first KerasHub image_shape
    (_vit(architectures=["ViTForImageClassification"]),
     "class 'ViTForImageClassification' (architectures[0]) is not supported for model_type "
     "'vit'; supported: ViTModel"),
    (_vit(patch_size=[16, 8]),
     "patch_size.1 = 8 differs from patch_size.0 = 16; the formula has one P"),
    (_vit(pooler_output_size=512), "pooler_output_size = 512 cannot be counted"),
    (_vit(image_size=[224]), "image_size.1 is absent: [224] is too short"),
    (_vit(image_size=[224, 0]), "image_size.1 = 0: expected a positive integer"),
    ({"class_name": "ViTBackbone", "config": {
        "image_shape": [3, 224, 224], "patch_size": [16, 16], "num_layers": 12, "num_heads": 12,
        "hidden_dim": 768, "mlp_dim": 3072, "data_format": "channels_first"}},
     'data_format = "channels_first" cannot be counted: image_shape is read as (height, width, '
     "channels)"),
    ("{not json", "malformed JSON"),
    ("[1, 2]", "expected a JSON object, got list"),
])
def test_bad_config_is_one_line_naming_file_and_key(capsys, tmp_path, data, message):
    path = _write(tmp_path, data)
    code, out, err = run(capsys, "count", "--config", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and (path in err or "config" in err), err


def test_a_class_whose_library_is_missing_is_refused_without_deriving_its_text_model(
        capsys, tmp_path, monkeypatch):
    """A config naming Gemma 3n's whole class (its vision tower needs timm) is refused from the
    missing library alone: its text model, which the sweep derives in its place and this config
    does not ask for, is not derived first (that took 40 s, to refuse), and says which library."""
    from paramcount.runtime import cache
    from tests._shared import needs_transformers

    needs_transformers()  # found without importing it: this process may hold TensorFlow
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    path = _write(tmp_path, {"model_type": "gemma3n",
                             "architectures": ["Gemma3nForConditionalGeneration"]})
    for command in ("count", "derive"):  # derive --config names the class too
        code, out, err = run(capsys, command, "--config", path)
        assert code == 2 and out == "" and "timm" in err, (command, err)
        derived = tmp_path / "cache" / "derive"
        assert not derived.exists() or not any(derived.iterdir()), command


def test_unknown_model_type_lists_supported(capsys, tmp_path):
    code, _, err = run(capsys, "count", "--config", _write(tmp_path, _llama(model_type="x")))
    assert code == 2
    for mt in ("bert", "gpt2", "llama", "mistral", "opt"):
        assert mt in err


def test_config_option_conflicts(capsys, tmp_path):
    path = str(CONFIGS / "gpt2.json")
    code, _, err = run(capsys, "count", "--config", path, "--preset", "gpt2_base_en")
    assert code == 2 and "--config and --preset are alternatives" in err
    code, _, err = run(capsys, "count", "--config", str(tmp_path / "none.json"))
    assert code == 2 and "cannot read config" in err
    code, _, err = run(capsys, "count")
    assert code == 2 and "required: arch (or --config PATH)" in err


def test_unknown_keys_are_shown_not_dropped(capsys, tmp_path):
    path = _write(tmp_path, _llama(new_fancy_option=3, pretraining_tp=1))
    code, out, _ = run(capsys, "count", "--config", path)
    # the unknown key only: one declared to change no count (pretraining_tp) is not listed
    assert code == 0 and "keys not read (unknown to the llama table): new_fancy_option\n" in out


@pytest.mark.parametrize("arch_id", mapped())
def test_tables_read_back_what_they_write(arch_id):
    """Forward then backward, both frameworks: every preset and example comes back."""
    arch = registry.get(arch_id)
    table = arch.mapping
    from paramcount.model.frameworks import broken_limit

    def carried(hp, framework, table=table) -> bool:
        """Whether the table can write ``hp``: every option it has no key for is at its
        default (Qwen3-MoE's dense blocks, a list of indices, are not carried yet), or at the
        value its class always builds (Gemma 2's post norms: a key-less field's default), or
        read from the options of a stack (Qwen MoE's L_moe, from transformers' keys)."""
        keys = {f.symbol for f in table.fields if f.key(framework) or (
            framework == "hf" and (f.hf_default is not None or f.options))}
        derived = {s.name for s in arch.fixed}  # L_dense = L − L_moe follows the option
        return all(hp[o.name] == arch.resolve({k: x for k, x in hp.items()
                                               if k != o.name and k not in derived})[o.name]
                   for o in arch.optional if o.name not in keys)

    for hs in arch.hparam_sets():
        hp = hs.hparams
        # (a set transformers cannot hold: BLOOM's d_f ≠ 4·d_e, an option its class cannot switch)
        # (the table of the transformers class that builds hp: Gemma 2's, for Gemma 2 sets)
        ref = arch.transformers.pick(hp) if arch.transformers is not None else None
        hf_table = (ref.mapping if ref is not None else None) or table
        refused = ref is not None and any(c.check(arch.values(hp)) for c in ref.constraints)
        if (table.hf_class(arch_id) is not None and broken_limit(arch, hp) is None
                and (ref is None or ref.refusal(hp) is None) and not refused):
            if carried(hp, "hf", hf_table):
                back, ignored = hf_table.from_hf(hf_table.hf_config(hp), where="x",
                                                 fixed=arch.fixed)
                assert arch.resolve(back) == hp, hs.name
                assert not ignored
            else:  # built by transformers (the table writes it) but not read back from a config
                assert not hs.preset.official, hs.name
        if "keras" not in arch.checked_by:  # no KerasHub constructor (Falcon-7B/40B)
            assert table.keras_kwargs(hp) == {} and not table.keras_classes
            continue
        if not carried(hp, "keras"):
            assert not hs.preset.official, hs.name  # every published set is carried
            continue
        back, ignored = table.from_keras(table.keras_kwargs(hp), where="x", fixed=arch.fixed)
        assert arch.resolve(back) == hp, (hs.name, back)
        assert not ignored


def test_vit_shapes_are_read_element_wise(capsys, tmp_path):
    """ViT's shapes are lists: a KerasHub preset's image_shape [H, W, C] and patch_size [P, P]
    (ViTBackbone saves an int patch as a pair), transformers' image_size as an int (square) or
    [H, W] and patch_size as an int or a pair. Both read as the same hyperparameters."""
    keras_cfg = {  # KerasHub's vit_base_patch16_224_imagenet config.json (Kaggle), its values
        "module": "keras_hub.src.models.vit.vit_backbone", "class_name": "ViTBackbone",
        "registered_name": "keras_hub>ViTBackbone",
        "config": {"name": "vi_t_backbone", "trainable": True, "dtype": "float32",
                   "image_shape": [224, 224, 3], "patch_size": [16, 16], "num_layers": 12,
                   "num_heads": 12, "hidden_dim": 768, "mlp_dim": 3072, "dropout_rate": 0.0,
                   "attention_dropout": 0.0, "layer_norm_epsilon": 1e-06, "use_mha_bias": True,
                   "use_mlp_bias": True, "use_class_token": True, "use_patch_bias": True}}
    code, out, err = run(capsys, "count", "--config", _write(tmp_path, keras_cfg, "k.json"),
                         "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["total"] == 85_798_656 and data["config"]["ignored"] == []  # KerasHub's figure
    keras_read = data["config"]["read"]
    assert keras_read | {"H": 224, "W": 224, "C": 3, "P": 16} == keras_read
    # the same model as a transformers config with image_size and patch_size as pairs
    path = _write(tmp_path, _vit(image_size=[224, 224], patch_size=[16, 16]), "h.json")
    code, out, err = run(capsys, "count", "--config", path, "--json", "--framework", "keras")
    assert code == 0, err
    assert json.loads(out)["total"] == 85_798_656
    # a non-square image: H and W apart
    code, out, err = run(capsys, "count", "--config",
                         _write(tmp_path, _vit(image_size=[224, 160]), "r.json"), "--json")
    assert code == 0, err
    read = json.loads(out)["config"]["read"]
    assert (read["H"], read["W"]) == (224, 160)


def test_falcon_configs_pick_the_layout_that_builds_them(capsys, tmp_path):
    """One model_type, two layouts: a Falcon-RW config reads as KerasHub's falcon, Falcon-7B's
    (multi_query, parallel) and Falcon-40B's (new_decoder_architecture) as falcon_parallel, and
    count says that only transformers checks the latter."""
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "falcon-7b.json"))
    assert code == 0 and "as falcon_parallel: " in out and "M_kv=1" in out and "split_ln=0" in out
    assert "checked by transformers only" in out
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "falcon-40b.json"), "--json")
    data = json.loads(out)
    assert data["checked_by"] == ["transformers"]
    assert data["config"]["read"] | {"M_kv": 8, "split_ln": 1, "zeta": 0} == data["config"]["read"]
    rw = json.loads((CONFIGS / "falcon-rw-1b.json").read_text())
    code, out, _ = run(capsys, "count", "--config", _write(tmp_path, rw), "--json")
    assert json.loads(out)["arch"] == "falcon"
    assert json.loads(out)["checked_by"] == ["keras", "transformers"]
    # Read as falcon, a Falcon-7B config is refused with the key that rules it out.
    code, _, err = run(capsys, "count", "falcon", "--config", str(CONFIGS / "falcon-7b.json"))
    assert code == 2 and "parallel_attn = true cannot be counted" in err


def test_count_config_imports_no_framework(tmp_path):
    code = ("import sys; from paramcount.cli.main import main; "
            f"rc = main(['count', '--config', {str(CONFIGS / 'gpt2.json')!r}]); "
            "bad = [m for m in ('torch', 'transformers', 'tensorflow', 'keras') "
            "if m in sys.modules]; print('LOADED', bad); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LOADED []" in out.stdout


# --- KerasHub: its converters and its own serialized configs ---------------------------------
CONVERTERS = {  # architecture id → (KerasHub converter module, a published config here)
    "llama3": ("convert_llama3", "meta-llama-3-8b.json"),
    "mistral": ("convert_mistral", "mistral-7b-v0.1.json"),
    "gpt2": ("convert_gpt2", "gpt2.json"),
    "bert": ("convert_bert", "bert-base-uncased.json"),
    "qwen": ("convert_qwen", "qwen2.5-7b.json"),
    "qwen3": ("convert_qwen3", "qwen3-8b.json"),
    "qwen_moe": ("convert_qwen_moe", "qwen1.5-moe-a2.7b.json"),
    "qwen3_moe": ("convert_qwen3_moe", "qwen3-30b-a3b.json"),
    "mixtral": ("convert_mixtral", "mixtral-8x7b-v0.1.json"),
    "smollm3": ("convert_smollm3", "smollm3-3b.json"),
    "gpt_oss": ("convert_gpt_oss", "gpt-oss-20b.json"),
    "gemma3": ("convert_gemma3", "gemma-3-1b-it.json"),
    "gemma": ("convert_gemma", "gemma-7b.json"),
    "pali_gemma": ("convert_pali_gemma", "paligemma-3b-pt-224.json"),
    "t5gemma": ("convert_t5gemma", "t5gemma-2b-2b-ul2.json"),
    "t5gemma2": ("convert_t5gemma2", "t5gemma-2-270m-270m.json"),
    "roberta": ("convert_roberta", "roberta-base.json"),
    "xlm_roberta": ("convert_xlm_roberta", "xlm-roberta-base.json"),
    "distil_bert": ("convert_distilbert", "distilbert-base-uncased.json"),
    "albert": ("convert_albert", "albert-base-v2.json"),
    "bart": ("convert_bart", "bart-base.json"),
    "esm": ("convert_esm", "esm2_t6_8M_UR50D.json"),
    # (convert_vit writes image_shape = (image_size, image_size, 3): it ignores num_channels and
    # a non-square [H, W] image_size, which the table reads; they agree on published configs)
    "vit": ("convert_vit", "vit-base-patch16-224-in21k.json"),
    "gemma3n": ("convert_gemma3n", "gemma-3n-E2B-text.json"),
    "gemma4": ("convert_gemma4", "gemma-4-31b-text.json"),
    "gemma3_embedding": ("convert_gemma3", "embeddinggemma-300m.json"),
}
# Converters that take the whole multimodal config where the file holds its text part: the file
# goes in as text_config of transformers' default config of this model type (the encoders'
# settings, which the text decoder's reading never looks at).
CONVERTER_TEXT_CONFIG = {"gemma3n": "gemma3n"}
# Constructor arguments the converter always sets that the architecture refuses (the vision and
# audio encoders of a text-only formula): left out before reading the converter's arguments back.
CONVERTER_DROPS = {"gemma3n": {"vision_encoder_config", "audio_encoder_config"}}
# Constructor arguments KerasHub's converter takes from another key than the table does, and
# why: a finding, kept visible (the test checks they still differ).
CONVERTER_DIFFERS = {
    # convert_pali_gemma reads vocabulary_size from image_token_index (257152), not vocab_size
    # (257216): KerasHub's PaliGemma 3B checkpoints hold 64 token rows fewer than transformers'
    # (64·d_e = 131,072 parameters)
    "pali_gemma": {"vocabulary_size"},
    # convert_t5gemma2 attaches a Gemma3VisionEncoder built from vision_config (every released
    # T5Gemma 2 is multimodal); t5gemma2 is the text backbone, read without it
    "t5gemma2": {"vision_encoder"},
}


# more published configs a converter reads (a family's second transformers class: Gemma 2).
# Not PaliGemma 2's: KerasHub 0.32's convert_pali_gemma knows no Gemma 2 text_config and builds
# PaliGemma (1)'s decoder from it (no post norms: 2·L·d_e parameters fewer), a finding.
MORE_CONVERTED = [("gemma", "convert_gemma", "gemma-2-2b.json")]


def _default_config(model_type: str) -> dict:
    """(In a torch worker: this process holds TensorFlow.) transformers' default config."""
    import transformers

    return transformers.AutoConfig.for_model(model_type).to_dict()


@pytest.mark.parametrize("arch_id, module, name", [
    *((a, *CONVERTERS[a]) for a in sorted(CONVERTERS)), *MORE_CONVERTED])
def test_reading_agrees_with_keras_hub_converter(arch_id, module, name):
    """paramcount's reading of a transformers config gives the constructor arguments KerasHub's
    own converter (``convert_backbone_config``) gives, for every argument both name."""
    import importlib

    conv = importlib.import_module(f"keras_hub.src.utils.transformers.{module}")
    data = json.loads((CONFIGS / name).read_text())
    data.setdefault("rope_theta", 10000.0)
    if arch_id in CONVERTER_TEXT_CONFIG:
        whole = on_torch(_default_config, CONVERTER_TEXT_CONFIG[arch_id])
        data = {**whole, "text_config": data}
    from reference_models._build import stateless

    with stateless():  # a converter may build a Keras encoder (T5Gemma 2's 417M SigLIP tower)
        theirs = conv.convert_backbone_config(data)
    from paramcount.analyze.configs import read_config

    arch = registry.get(arch_id)
    reading = read_config(CONFIGS / name, arch_id)
    ours = arch.mapping.keras_kwargs(arch.resolve(reading.hparams))
    # constants the Keras reference passes (SmolLM3's rope_theta) stand in for settings that
    # change no count: they are not read from the file, so not compared
    differs = CONVERTER_DIFFERS.get(arch_id, set())
    shared = sorted(k for k in set(ours) & set(theirs)
                    if theirs[k] is not None and k not in arch.mapping.keras_constants
                    and k not in differs)
    assert len(shared) >= 5
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}
    assert all(ours[k] != theirs[k] for k in differs)
    # and the converter's arguments (None: KerasHub's default) read as the same hyperparameters
    dropped = CONVERTER_DROPS.get(arch_id, set())
    assert all(theirs[k] is not None for k in dropped)  # the converter still sets them
    # (an argument that differs and no field reads, T5Gemma 2's vision encoder, left out)
    fields = {f.keras for f in arch.mapping.fields}
    back, _ = arch.mapping.from_keras({k: x for k, x in theirs.items() if k not in dropped
                                       and (k in fields or k not in differs)},
                                      where=module, fixed=arch.fixed)
    skip = {f.symbol for f in arch.mapping.fields if f.keras in differs}
    assert ({k: v for k, v in arch.resolve(back).items() if k not in skip}
            == {k: v for k, v in arch.resolve(reading.hparams).items() if k not in skip})


ROUND_TRIP = ["llama", "llama3", "mistral", "gpt2", "bert", "opt", "qwen", "qwen3",
              "gpt_neo_x", "bloom", "falcon", "qwen_moe", "qwen3_moe", "qwen3_5", "qwen3_5_moe",
              "mixtral", "smollm3", "gpt_oss", "gemma3", "gemma", "phi3", "pali_gemma",
              "gemma3_vision", "t5gemma", "t5gemma2", "roberta", "xlm_roberta",
              "distil_bert", "electra", "albert", "bart", "t5",
              "deberta_v3", "esm", "f_net", "xlnet", "vit", "gemma3n", "gemma4",
              "gemma3_embedding", "whisper", "moonshine",
              # KerasHub configuration only (transformers has no such model)
              "roformer_v2", "rwkv7", "edrec"]


@pytest.mark.parametrize("arch_id", ROUND_TRIP)
def test_keras_hub_serialized_config_round_trip(capsys, tmp_path, arch_id):
    """The backbone's own serialized config (what a KerasHub preset's config.json holds), read
    back with --config, counts what KerasHub rebuilds from that file."""
    import keras

    from paramcount.analyze.verify import build_reference, keras_weights
    from reference_models._build import stateless

    arch = registry.get(arch_id)
    hs = next(h for h in arch.hparam_sets() if not h.preset.official)
    model = build_reference(arch, hs.hparams)
    blob = keras.saving.serialize_keras_object(model)
    path = _write(tmp_path, json.dumps(blob))
    with stateless():
        rebuilt = keras.saving.deserialize_keras_object(json.loads(Path(path).read_text()))
    rebuilt_count = sum(w.size for w in keras_weights(rebuilt) if w.trainable)
    code, out, err = run(capsys, "count", "--config", path, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["arch"] == arch_id and data["config"]["source"] == "KerasHub config"
    assert data["total"] == rebuilt_count == arch.count(hs.hparams)
    assert data["config"]["ignored"] == []


def test_nested_config_keys_are_read_and_shown_dotted(capsys, tmp_path):
    """A multimodal transformers config nests its towers (text_config, vision_config): the table
    reads dotted keys, and an unknown nested key is shown with its path."""
    data = json.loads((CONFIGS / "paligemma-3b-pt-224.json").read_text())
    data["text_config"]["new_fancy_option"] = 1
    code, out, _ = run(capsys, "count", "--config", _write(tmp_path, data))
    assert code == 0 and "text_config.new_fancy_option" in out
    del data["vision_config"]["patch_size"]
    code, _, err = run(capsys, "count", "--config", _write(tmp_path, data))
    assert code == 2 and "missing key vision_config.patch_size (P)" in err
    data["text_config"]["model_type"] = "gemma3"  # neither PaliGemma's nor PaliGemma 2's
    code, _, err = run(capsys, "count", "--config", _write(tmp_path, data))
    assert code == 2 and 'text_config.model_type = "gemma3" cannot be counted' in err


def test_gemma4_configs_read_as_transformers_and_keras_hub_build_them(capsys, tmp_path):
    """Gemma 4's keys decide each other: transformers forces the last layer global and saves the
    global layers' head width and K = V heads as a per_layer_config; KerasHub derives null
    layer_types from sliding_window_pattern and holds K = V as num_global_key_value_heads set."""
    data = json.loads((CONFIGS / "gemma-4-31b-text.json").read_text())
    full = [i for i, k in enumerate(data["layer_types"]) if k == "full_attention"]
    saved = {k: x for k, x in data.items()
             if k not in ("global_head_dim", "num_global_key_value_heads")}
    saved["per_layer_config"] = {str(i): {"head_dim": 512, "num_key_value_heads": 4}
                                 for i in full}
    code, out, _ = run(capsys, "count", "--config", _write(tmp_path, saved), "--json")
    assert code == 0 and json.loads(out)["total"] == 30_697_345_280
    saved["per_layer_config"][str(full[0])] = {"head_dim": 256}
    code, _, err = run(capsys, "count", "--config", _write(tmp_path, saved))
    assert code == 2 and "per_layer_config = " in err and "cannot be counted" in err
    # no layer_types: every sixth layer global, and the last (layer 7 of 7) forced global
    seven = {k: x for k, x in data.items() if k != "layer_types"} | {"num_hidden_layers": 7}
    code, out, _ = run(capsys, "count", "--config", _write(tmp_path, seven), "--json")
    assert json.loads(out)["config"]["read"]["L_global"] == 2
    keras = {"class_name": "Gemma4Backbone", "config": {
        "vocabulary_size": 100, "image_size": None, "num_layers": 7, "num_query_heads": 4,
        "num_key_value_heads": 2, "hidden_dim": 32, "intermediate_dim": 48, "head_dim": 8,
        "sliding_window_pattern": 3, "layer_types": None, "num_global_key_value_heads": 1}}
    code, out, _ = run(capsys, "count", "--config", _write(tmp_path, keras), "--json")
    read = json.loads(out)["config"]["read"]
    assert code == 0 and read | {"L_global": 2, "keqv": 1, "M_kvg": 1} == read
    keras["config"]["num_global_key_value_heads"] = None
    code, out, _ = run(capsys, "count", "--config", _write(tmp_path, keras), "--json")
    read = json.loads(out)["config"]["read"]
    assert read["keqv"] == 0 and read["M_kvg"] == 2


def test_gemma2_configs_read_as_gemma_with_post_norms(capsys):
    """Gemma 2 (model_type gemma2) is gemma's second transformers class: its configs read as
    gemma with both post norms, alone and as PaliGemma 2's text_config, and count says which
    class builds them."""
    code, out, _ = run(capsys, "count", "gemma", "--config", str(CONFIGS / "gemma-2-2b.json"))
    assert code == 0 and "as gemma: " in out and "post_norm=1" in out
    assert "counted as transformers builds it: Gemma2ForCausalLM" in out
    assert "keys not read" not in out
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "gemma-2b.json"))
    assert code == 0 and "counted as transformers builds it: GemmaForCausalLM" in out
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "paligemma2-3b-pt-224.json"),
                       "--json")
    data = json.loads(out)
    assert data["arch"] == "pali_gemma" and data["config"]["read"]["post_norm"] == 1
    assert data["config"]["ignored"] == []


GPTQ = {"bits": 4, "group_size": 128, "damp_percent": 0.01, "desc_act": False, "sym": True,
        "true_sequential": True, "model_file_base_name": "model", "quant_method": "gptq"}


def test_quantization_config_is_said_with_the_size_it_implies(capsys, tmp_path):
    """A GPTQ 4-bit Llama 2 7B (issue 22 §3): the count is the float model's, and the output
    says what the file declares and the stored size that implies, as an estimate (TheBloke's
    Llama-2-7B-GPTQ, 4 bits, groups of 128, is 3.90 GB on disk)."""
    cfg = json.loads((CONFIGS / "llama-2-7b-hf.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**cfg, "quantization_config": GPTQ}))
    assert main(["count", "--config", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "6,738,415,616" in out
    assert "quantization_config declares gptq, 4 bits per weight, groups of 128" in out
    # 6,476,005,376 block weights / 2 + 50,593,792 groups · 2.5 B + 262,410,240 · 2 B
    assert "stored as declared: 3,889,307,648 B" in out and "an estimate" in out
    assert main(["count", "--config", str(tmp_path), "--json"]) == 0
    q = json.loads(capsys.readouterr().out)["config"]["quantization"]
    assert (q["method"], q["bits"], q["group"], q["stored_bytes"]) == ("gptq", 4, 128, 3889307648)


@pytest.mark.parametrize("qc, says", [
    ({"quant_method": "bitsandbytes", "load_in_4bit": True}, "bitsandbytes, 4 bits per weight"),
    ({"quant_method": "fp8", "weight_block_size": [128, 128]}, "fp8, 8 bits per weight"),
    ({"quant_method": "mystery"}, "not known to paramcount"),
])
def test_other_quantizations_are_said(capsys, tmp_path, qc, says):
    cfg = json.loads((CONFIGS / "llama-2-7b-hf.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**cfg, "quantization_config": qc}))
    assert main(["count", "--config", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "quantization_config declares" in out and says in out and "6,738,415,616" in out


def test_llama_head_dim_apart_is_transformers_only(capsys, tmp_path):
    """head_dim ≠ hidden/heads is LlamaForCausalLM's (issue 22 §3; built and checked in
    test_transformers): counted as transformers builds it, refused for Keras with the reason."""
    path = _write(tmp_path, _llama(head_dim=96))
    code, out, _ = run(capsys, "count", "--config", path, "--json")
    assert code == 0 and json.loads(out)["hparams"]["d_k"] == 96
    code, out, err = run(capsys, "count", "--config", path, "--framework", "keras")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "d_k" in err and "transformers only" in err


def _opens_of(monkeypatch, path: Path) -> list[str]:
    """Every open of ``path`` from now on, by os.open or the built-in open (pathlib's too)."""
    import builtins
    import os

    target, seen = path.resolve(), []
    real_os_open, real_open = os.open, builtins.open

    def note(file) -> None:
        if isinstance(file, (str, os.PathLike)) and Path(file).resolve() == target:
            seen.append(str(file))

    def os_open(file, *a, **k):
        note(file)
        return real_os_open(file, *a, **k)

    def open_(file, *a, **k):
        note(file)
        return real_open(file, *a, **k)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", open_)
    return seen


@pytest.mark.parametrize("argv", [
    ["count", "--config", "{dir}"],  # a folder: its config.json, the architecture picked by it
    ["count", "--config", "{file}", "--json"],
    ["count", "llama", "--config", "{file}"],  # the architecture named
    ["verify", "--config", "{file}", "--framework", "transformers", "--max-build", "1"],
])
def test_count_config_reads_its_file_once(capsys, monkeypatch, tmp_path, argv):
    """Issue 29: the config is read once and what was read is passed down (it was read twice:
    once to ask whether a table reads its model type, once by the table)."""
    path = Path(_write(tmp_path, _llama()))
    argv = [a.format(dir=tmp_path, file=path) for a in argv]
    seen = _opens_of(monkeypatch, path)
    code, out, err = run(capsys, *argv)
    assert len(seen) == 1, seen
    if argv[0] == "count":
        assert code == 0 and ("6,738,415,616" in out or '"total": 6738415616' in out), err


def test_a_keras_hub_config_is_read_once(capsys, monkeypatch, tmp_path):
    path = Path(_write(tmp_path, {
        "module": "keras_hub.src.models.vit.vit_backbone", "class_name": "ViTBackbone",
        "registered_name": "keras_hub>ViTBackbone",
        "config": {"image_shape": [224, 224, 3], "patch_size": [16, 16], "num_layers": 12,
                   "num_heads": 12, "hidden_dim": 768, "mlp_dim": 3072, "use_mha_bias": True,
                   "use_mlp_bias": True, "use_class_token": True, "use_patch_bias": True}},
        "k.json"))
    seen = _opens_of(monkeypatch, path)
    code, out, err = run(capsys, "count", "--config", str(path))
    assert code == 0 and "85,798,656" in out, err
    assert len(seen) == 1, seen


def test_count_config_builds_the_table_list_once(capsys, monkeypatch, tmp_path):
    """The table list (every family's, its other classes' derived) is built once per state of
    the registry, however often count --config asks for it; a newly registered architecture
    makes it anew."""
    import dataclasses

    from paramcount.analyze import configs

    made = []
    build = configs._build_tables
    monkeypatch.setattr(configs, "_built", None)
    monkeypatch.setattr(configs, "_build_tables", lambda: made.append(1) or build())
    path = _write(tmp_path, _llama())
    assert run(capsys, "count", "--config", path)[0] == 0
    assert run(capsys, "count", "--config", path, "--json")[0] == 0
    assert len(made) == 1
    registry.register(dataclasses.replace(registry.get("gpt2"), id="gpt2_for_tables"))
    try:
        configs.tables()
    finally:
        registry.unregister("gpt2_for_tables")
    assert len(made) == 2


def test_absent_keys_take_the_config_class_defaults(capsys, tmp_path):
    """A key the file leaves out is its config class's declared default, as transformers builds
    it, and the reading says which: Llama without vocab_size is LlamaConfig's 32,000 tokens;
    Gemma without num_key_value_heads GemmaConfig's 16 (not the query heads)."""
    data = json.loads((CONFIGS / "llama-2-7b-hf.json").read_text())
    del data["vocab_size"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert main(["count", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "keys the file leaves out, at its config class's defaults (as transformers builds " \
           "it): attention_bias=false, mlp_bias=false, vocab_size=32000" in out
    assert "v=32000" in out
    gemma = {"model_type": "gemma", "architectures": ["GemmaForCausalLM"], "vocab_size": 64,
             "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
             "num_attention_heads": 16, "head_dim": 8}
    path.write_text(json.dumps(gemma))
    assert main(["count", "--config", str(path), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)["config"]
    assert read["read"]["M_kv"] == 16 and read["defaulted"]["num_key_value_heads"] == 16
