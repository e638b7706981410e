"""The third name table: GGUF tensor names (llama.cpp's ``convert_hf_to_gguf.py``) → the
transformers names the families already declare, per GGUF architecture, and the transformers
config its metadata gives. A GGUF tensor is then attributed exactly as a safetensors one.

The names are not retyped here: llama.cpp's own ``gguf`` package declares, per architecture,
the tensors it stores (``gguf.MODEL_TENSORS`` → ``gguf.TENSOR_NAMES``: ``blk.{bid}.attn_q``) and
the transformers names each one is converted from (``gguf.TensorNameMap``:
``model.layers.{bid}.self_attn.q_proj``, ``transformer.h.{bid}.attn.c_attn``, ...).
:mod:`paramcount.analyze.checkpoints.gguf_io` inverts that map: every transformers name a GGUF tensor
may come from is a candidate, and :mod:`paramcount.analyze.checkpoints.check` keeps the one the family's
formula tree claims (the first, each transformers name taken once). A table here declares only
what that map does not say (data, keyed by ``general.architecture``):

- ``model_type`` and ``hf_class``: the transformers config the metadata stand for (``moe``: the
  pair when the metadata has an ``expert_count``: Mixtral converts as ``llama``);
- ``names``: (GGUF regex, transformers template) overrides, tried before gguf's map (a name the
  converter rewrites first: DeepSeek's ``e_score_correction_bias``);
- ``fuse``: two GGUF pieces of one block (names after ``blk.N.``) that transformers holds as
  one tensor (an MoE layer's
  ``ffn_gate_exps`` and ``ffn_up_exps``: ``gate_up_proj``, concatenated along axis 1; MLA's
  ``attn_k_b`` and ``attn_v_b``, which llama.cpp splits out of ``kv_b_proj`` and transposes:
  axis None, the counts summed);
- ``config``: (declared in :mod:`paramcount.analyze.checkpoints.gguf_config`) the metadata keys
  (under the architecture's prefix) → transformers config keys
  (dotted: nested); ``derive``: the rest, computed from the metadata and the tensors' shapes (a
  key no one metadata key holds, the model type a layout says); ``present``: config flags a
  tensor's presence says (Granite's biases). A ``config.json`` beside the file overrides them;
  None where the metadata do not give the family's config (then that file, or ``--config``,
  must);
- ``dropped``: what llama.cpp's converter does not write of the transformers model (BERT's
  pooler and MLM head) or writes cut short (RoBERTa's first position rows), each a named term
  with its reason (:class:`Dropped`): the stored count differs from the formula by these only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from paramcount.analyze.checkpoints.gguf_config import (
    BLOOM,
    COMMON,
    DBRX,
    DEEPSEEK,
    ERNIE_MOE,
    FALCON,
    FALCON_H1,
    GEMMA3N,
    GEMMA4,
    GLM4_MOE,
    GPT2,
    GPTJ,
    GRANITE_HYBRID,
    JAMBA,
    LLAMA4,
    MAMBA,
    MAMBA2,
    NEMOTRON_H,
    NO_KV,
    OLMOE,
    QWEN35,
    QWEN_MOE,
    QWEN_NEXT,
    T5,
    bert,
    deepseek,
    expand,
    falcon,
    gated_delta,
    gemma3n,
    gemma4,
    granite_hybrid,
    heads,
    jamba,
    nemotron_h,
    t5,
)

__all__ = ["TABLES", "Dropped", "GGUFTable"]

_EXPERTS = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
             "model.layers.{bid}.mlp.experts.gate_up_proj", 1),)
# Llama 4 holds its experts under feed_forward
_EXPERTS_FF = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
                "model.layers.{bid}.feed_forward.experts.gate_up_proj", 1),)
# gpt-oss's experts have biases, stored (and fused) as their weights are
_EXPERTS_BIAS = (*_EXPERTS, ("ffn_gate_exps.bias", "ffn_up_exps.bias",
                             "model.layers.{bid}.mlp.experts.gate_up_proj_bias", 1))
# Granite MoE's under block_sparse_moe, named as transformers 5 names them (gguf's map knows
# its router as router.layer, its experts as input_linear / output_linear)
_EXPERTS_SPARSE = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
                    "model.layers.{bid}.block_sparse_moe.experts.gate_up_proj", 1),)
_GRANITE_MOE = (
    (r"^blk\.(\d+)\.ffn_gate_inp\.weight$", r"model.layers.\1.block_sparse_moe.router.weight"),
    (r"^blk\.(\d+)\.ffn_down_exps(\.weight)?$",
     r"model.layers.\1.block_sparse_moe.experts.down_proj"))
# Granite 4.0-H's shared MLP (input_linear: gate and up along axis 0), which llama.cpp stores
# as ffn_*_shexp beside experts and as ffn_* in a dense model
_SHARED_MLP = tuple((f"ffn_gate{s}.weight", f"ffn_up{s}.weight",
                     "model.layers.{bid}.shared_mlp.input_linear.weight", 0) for s in ("_shexp", ""))
_SHARED_MLP_DENSE = ((r"^blk\.(\d+)\.ffn_down\.weight$",
                      r"model.layers.\1.shared_mlp.output_linear.weight"),)
_NEMOTRON_MOE = (
    (r"^blk\.(\d+)\.ffn_(up|down)_exps(\.weight)?$", r"model.layers.\1.mixer.experts.\2_proj"),
    (r"^blk\.(\d+)\.exp_probs_b\.bias$", r"model.layers.\1.mixer.gate.e_score_correction_bias"))
_GPT_OSS = ((r"^blk\.(\d+)\.ffn_down_exps\.bias$", r"model.layers.\1.mlp.experts.down_proj_bias"),)
_MLA = (("attn_k_b.weight", "attn_v_b.weight", "model.layers.{bid}.self_attn.kv_b_proj.weight",
         None),)
# llama.cpp's converter renames DeepSeek's router bias before its map sees it
# (e_score_correction_bias → e_score_correction.bias): exp_probs_b.bias
_EXP_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
               r"model.layers.\1.mlp.gate.e_score_correction_bias"),)
# ERNIE 4.5's sits under the router (gate.moe_statics), MiniMax-M2's beside it
_ERNIE_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
                 r"model.layers.\1.mlp.gate.moe_statics.e_score_correction_bias"),)
_MINIMAX_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
                   r"model.layers.\1.mlp.e_score_correction_bias"),)

_ALTUP = ((r"^altup_proj\.weight$", "model.altup_projections.0.weight"),
          (r"^altup_unembd_proj\.weight$", "model.altup_unembed_projections.0.weight"))

# and Mamba-2's dt_bias (→ dt_proj.bias: ssm_dt.bias)
_DT_BIAS = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"backbone.layers.\1.mixer.dt_bias"),)
_DT_BIAS_H1 = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"model.layers.\1.mamba.dt_bias"),)
# Qwen3-Next's gated delta net (linear_attn) holds one too
_DT_BIAS_NEXT = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"model.layers.\1.linear_attn.dt_bias"),)


@dataclass(frozen=True)
class Dropped:
    """Transformers tensors llama.cpp's converter leaves out of the GGUF file: a term of the
    stored-versus-built difference (:mod:`paramcount.analyze.checkpoints.converted`), with its reason.

    ``names``: the transformers names (after the prefix the converter strips: ``bert.``) whose
    formula leaves then hold no tensor; ``rows``: instead, the tensor is written without its
    first ``config[key] + add`` rows; ``model_types``: the config's model types the converter
    does this for (all, when empty)."""

    term: str
    reason: str
    names: tuple[str, ...]
    rows: tuple[str, int] | None = None
    model_types: tuple[str, ...] = ()


# llama.cpp's BertModel converter (its filter_tensors), which RoBERTa, XLM-RoBERTa and
# DistilBERT convert through: "we are only using BERT for embeddings"
_BERT_DROPS = (
    Dropped("pooler dropped by the converter", "llama.cpp's converter skips BertModel's pooler "
            "(pooler.dense): it writes BERT for embeddings only", ("pooler.dense.weight",
                                                                   "pooler.dense.bias")),
    Dropped("MLM head dropped by the converter", "llama.cpp's converter skips the masked-LM "
            "head (BERT's cls.predictions, DistilBERT's vocab_*): it writes the encoder only",
            tuple(f"cls.predictions.{n}" for n in (
                "transform.dense.weight", "transform.dense.bias", "transform.LayerNorm.weight",
                "transform.LayerNorm.bias", "bias", "decoder.weight", "decoder.bias"))
            + tuple(f"vocab_{n}" for n in (
                "transform.weight", "transform.bias", "layer_norm.weight", "layer_norm.bias",
                "projector.weight", "projector.bias"))),
    Dropped("padding position rows trimmed by the converter", "position ids start at "
            "pad_token_id + 1 (fairseq's offset): llama.cpp's RoBERTa and XLM-RoBERTa converters "
            "cut the rows before it from position_embd", ("embeddings.position_embeddings.weight",),
            rows=("pad_token_id", 1), model_types=("roberta", "xlm-roberta")),
)


@dataclass(frozen=True)
class GGUFTable:
    """What gguf's own name map does not say of one GGUF architecture (see the module)."""

    model_type: str
    hf_class: str
    names: tuple[tuple[str, str], ...] = ()
    fuse: tuple[tuple[str, str, str, int | None], ...] = ()
    config: Mapping[str, str] | None = field(default_factory=lambda: COMMON)
    # model_type and class when the metadata has an expert_count (Mixtral converts as "llama")
    moe: tuple[str, str] | None = None
    # config flags no metadata key holds, read from a tensor's presence: (GGUF name, key)
    present: tuple[tuple[str, str], ...] = ()
    # (hub prefix, transformers prefix): names transformers 5 renames from the hub checkpoint's,
    # which gguf's map knows (Nemotron-H's backbone. → model.)
    prefix: tuple[tuple[str, str], ...] = ()
    # what the converter does not write (or writes cut short): named terms
    dropped: tuple[Dropped, ...] = ()
    # config keys no one metadata key holds, from the metadata (arch prefix stripped) and the
    # tensors' shapes: a key computed, or the model type and class a layout says
    derive: Callable[[Mapping[str, object], Mapping[str, tuple[int, ...]]], dict] | None = None


TABLES: dict[str, GGUFTable] = {
    "llama": GGUFTable("llama", "LlamaForCausalLM", fuse=_EXPERTS,
                       moe=("mixtral", "MixtralForCausalLM")),
    "gemma": GGUFTable("gemma", "GemmaForCausalLM"),
    "gemma2": GGUFTable("gemma2", "Gemma2ForCausalLM"),
    "gemma3": GGUFTable("gemma3_text", "Gemma3ForCausalLM"),
    "phi3": GGUFTable("phi3", "Phi3ForCausalLM"),
    "phi2": GGUFTable("phi", "PhiForCausalLM", config=NO_KV),
    "qwen2": GGUFTable("qwen2", "Qwen2ForCausalLM"),
    "qwen3": GGUFTable("qwen3", "Qwen3ForCausalLM"),
    "qwen2moe": GGUFTable("qwen2_moe", "Qwen2MoeForCausalLM", fuse=_EXPERTS, config=QWEN_MOE),
    "qwen3moe": GGUFTable("qwen3_moe", "Qwen3MoeForCausalLM", fuse=_EXPERTS, config=QWEN_MOE),
    "olmo2": GGUFTable("olmo2", "Olmo2ForCausalLM"),
    "olmoe": GGUFTable("olmoe", "OlmoeForCausalLM", fuse=_EXPERTS, config=OLMOE),
    "granite": GGUFTable("granite", "GraniteForCausalLM", present=(
        ("blk.0.attn_q.bias", "attention_bias"), ("blk.0.ffn_up.bias", "mlp_bias"))),
    "command-r": GGUFTable("cohere", "CohereForCausalLM", present=(
        ("blk.0.attn_q.bias", "attention_bias"), ("blk.0.attn_q_norm.weight", "use_qk_norm"))),
    "gpt2": GGUFTable("gpt2", "GPT2LMHeadModel", config=GPT2),
    "gptj": GGUFTable("gptj", "GPTJForCausalLM", config=GPTJ),
    "gptneox": GGUFTable("gpt_neox", "GPTNeoXForCausalLM", config=NO_KV),
    "bloom": GGUFTable("bloom", "BloomForCausalLM", config=BLOOM),
    # Falcon's layout (parallel attention, one or two norms, multi-query): from its tensors
    "falcon": GGUFTable("falcon", "FalconForCausalLM", config=FALCON, derive=falcon),
    # DeepSeek's MLA ranks and its dense leading blocks, and Mamba's state sizes, are spelled
    # otherwise in the metadata than in the config: declared key by key
    "deepseek2": GGUFTable("deepseek_v3", "DeepseekV3ForCausalLM", _EXP_PROBS,
                           _EXPERTS + _MLA, config=DEEPSEEK, derive=deepseek),
    "mamba": GGUFTable("mamba", "MambaForCausalLM", config=MAMBA, derive=expand, present=(
        ("blk.0.ssm_conv1d.bias", "use_conv_bias"), ("blk.0.ssm_in.bias", "use_bias"))),
    "smollm3": GGUFTable("smollm3", "SmolLM3ForCausalLM"),
    "gpt-oss": GGUFTable("gpt_oss", "GptOssForCausalLM", _GPT_OSS, _EXPERTS_BIAS),
    "glm4moe": GGUFTable("glm4_moe", "Glm4MoeForCausalLM", _EXP_PROBS, _EXPERTS, config=GLM4_MOE,
                         present=(("blk.0.attn_q.bias", "attention_bias"),
                                  ("blk.0.attn_q_norm.weight", "use_qk_norm"))),
    "phimoe": GGUFTable("phimoe", "PhimoeForCausalLM", fuse=_EXPERTS,
                        present=(("output.bias", "lm_head_bias"),
                                 ("blk.0.attn_q.bias", "attention_bias"))),
    "llama4": GGUFTable("llama4_text", "Llama4ForCausalLM", fuse=_EXPERTS_FF, config=LLAMA4),

    "mamba2": GGUFTable("mamba2", "Mamba2ForCausalLM", _DT_BIAS, config=MAMBA2, derive=heads,
                        present=(("blk.0.ssm_conv1d.bias", "use_conv_bias"),
                                 ("blk.0.ssm_in.bias", "use_bias"))),
    # StarCoder2's biases from its tensors (OLMo 3 converts as olmo2)
    "starcoder2": GGUFTable("starcoder2", "Starcoder2ForCausalLM",
                            present=(("blk.0.attn_q.bias", "use_bias"),)),
    "cohere2": GGUFTable("cohere2", "Cohere2ForCausalLM"),
    "ernie4_5": GGUFTable("ernie4_5", "Ernie4_5ForCausalLM"),
    "ernie4_5-moe": GGUFTable("ernie4_5_moe", "Ernie4_5_MoeForCausalLM", _ERNIE_PROBS, _EXPERTS,
                              config=ERNIE_MOE),
    "minimax-m2": GGUFTable("minimax_m2", "MiniMaxM2ForCausalLM", _MINIMAX_PROBS, _EXPERTS),
    "dbrx": GGUFTable("dbrx", "DbrxForCausalLM", config=DBRX),
    "granitemoe": GGUFTable("granitemoe", "GraniteMoeForCausalLM", _GRANITE_MOE, _EXPERTS_SPARSE,
                            present=(("blk.0.attn_q.bias", "attention_bias"),)),
    "jamba": GGUFTable("jamba", "JambaForCausalLM", fuse=_EXPERTS_FF, config=JAMBA, derive=jamba,
                       present=(("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                ("blk.0.ssm_in.bias", "mamba_proj_bias"))),
    "falcon-h1": GGUFTable("falcon_h1", "FalconH1ForCausalLM", _DT_BIAS_H1, config=FALCON_H1,
                           present=(("blk.0.attn_q.bias", "attention_bias"),
                                    ("blk.0.ffn_up.bias", "mlp_bias"),
                                    ("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                    ("blk.0.ssm_in.bias", "mamba_proj_bias"),
                                    ("blk.0.ssm_out.bias", "projectors_bias"),
                                    ("blk.0.ssm_norm.weight", "mamba_rms_norm"))),
    "nemotron_h": GGUFTable("nemotron_h", "NemotronHForCausalLM", _DT_BIAS, config=NEMOTRON_H,
                            derive=nemotron_h,
                            prefix=(("backbone.", "model."),)),
    # Nemotron-H with routed experts (llama.cpp stacks them itself: gguf's map names none)
    "nemotron_h_moe": GGUFTable("nemotron_h", "NemotronHForCausalLM", (*_DT_BIAS, *_NEMOTRON_MOE),
                                config=NEMOTRON_H, derive=nemotron_h,
                                prefix=(("backbone.", "model."),)),
    "granitehybrid": GGUFTable("granitemoehybrid", "GraniteMoeHybridForCausalLM",
                               (*_GRANITE_MOE, *_DT_BIAS_H1, *_SHARED_MLP_DENSE),
                               _EXPERTS_SPARSE + _SHARED_MLP, config=GRANITE_HYBRID,
                               derive=granite_hybrid, present=(
                                   ("blk.0.attn_q.bias", "attention_bias"),
                                   ("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                   ("blk.0.ssm_in.bias", "mamba_proj_bias"))),
    # its linear-attention layout: the ssm keys, and each block's kind from its tensors
    "qwen3next": GGUFTable("qwen3_next", "Qwen3NextForCausalLM", _DT_BIAS_NEXT, _EXPERTS,
                           config=QWEN_NEXT, derive=gated_delta),
    # Qwen 3.5's text model: the same gated delta net, its projections split (gguf's map
    # names them: attn_qkv, attn_gate, ssm_beta, ssm_alpha)
    "qwen35": GGUFTable("qwen3_5_text", "Qwen3_5ForCausalLM", _DT_BIAS_NEXT, config=QWEN35,
                        derive=gated_delta),
    "qwen35moe": GGUFTable("qwen3_5_moe_text", "Qwen3_5MoeForCausalLM", _DT_BIAS_NEXT, _EXPERTS,
                           config=QWEN_NEXT, derive=gated_delta),
    # EmbeddingGemma: Gemma 3's text stack without a head (Gemma3TextModel)
    "gemma-embedding": GGUFTable("gemma3_text", "Gemma3TextModel"),
    # BERT, RoBERTa, XLM-RoBERTa and DistilBERT all convert as bert, without the pooler and
    # MLM heads (and RoBERTa's padding position rows): the layout and vocabulary say which
    "bert": GGUFTable("bert", "BertModel", config={}, dropped=_BERT_DROPS, derive=bert),
    # encoder and decoder stacks (enc.blk.N, dec.blk.N)
    "t5": GGUFTable("t5", "T5ForConditionalGeneration", config=T5, derive=t5),
    # Gemma 3n's AltUp projections, which llama.cpp stacks into one tensor each: named as the
    # first, so the stack lands on the leaf that claims them all (the per-layer inputs, LAuReL
    # and AltUp blocks gguf's map names); the widths from their shapes
    "gemma3n": GGUFTable("gemma3n_text", "Gemma3nForCausalLM", _ALTUP, config=GEMMA3N,
                         derive=gemma3n),
    # Gemma 4's sliding/global layout and shared K=V: from the blocks' attention tensors
    "gemma4": GGUFTable("gemma4_text", "Gemma4ForCausalLM", config=GEMMA4, derive=gemma4),
}
