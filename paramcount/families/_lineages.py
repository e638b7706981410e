"""The rows that families of one lineage share, declared once (issue 18 §2).

A family's table (:class:`paramcount.model.mapping.Table`) lists its rows; a row two families spell
alike is named here and imported, never retyped (``tests/test_registry.py`` fails on a
``Field(...)`` or restriction row written the same way in two family folders). A Llama-like
family then writes only what differs. Restriction rows (:mod:`paramcount.core.restrictions`)
likewise: a shared row, or a group of them, is declared here with its why and composed,
``restrictions=(*GROUP, ROW, ...)``.

What a lineage shares beyond rows (its free keys, counting sentence, transformers' names, the
defaults of a whole declaration) is in :mod:`paramcount.families._decoders` (the Llama lineage,
the transformers-only causal LMs) and :mod:`paramcount.families._defaults` (every KerasHub family,
every table), issue 29 §3.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping

import sympy

from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import M
from paramcount.core.symbols import M_dec
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import M_kv_dec
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_k_dec
from paramcount.core.symbols import d_v
from paramcount.core.symbols import k
from paramcount.core.symbols import post_attn_norm
from paramcount.core.symbols import post_ffw_norm
from paramcount.core.symbols import zeta
from paramcount.model.components.basic import EVEN_HEADS
from paramcount.model.components.basic import HEADS_FIT
from paramcount.model.components.stacks import DENSE_FIRST
from paramcount.model.components.stacks import MOE_AND_DENSE
from paramcount.model.components.vision import VISION_CONSTRAINTS
from paramcount.model.mapping import Field

# --- state-space mixers: Mamba's own keys, and the hybrids' mamba_-prefixed ones
SSM_GROUPS = Field("G_ssm", hf="n_groups")
SSM_CONV = Field("K_conv", hf="conv_kernel")
SSM_CONV_BIAS = Field("b_conv", hf="use_conv_bias", flag=True, hf_default=1)
SSM_PROJ_BIAS = Field("b_proj", hf="use_bias", flag=True, hf_default=0)
MAMBA_GROUPS = Field("G_ssm", hf="mamba_n_groups")
MAMBA_HEADS = Field("H_ssm", hf="mamba_n_heads")
MAMBA_CONV = Field("K_conv", hf="mamba_d_conv")
MAMBA_CONV_BIAS = Field("b_conv", hf="mamba_conv_bias", flag=True, hf_default=1)
MAMBA_PROJ_BIAS = Field("b_proj", hf="mamba_proj_bias", flag=True, hf_default=0)
MAMBA_STATE = Field("d_state", hf="mamba_d_state")
MAMBA_EXPAND = Field("x_in", hf="mamba_expand")

# --- Llama lineage: KerasHub's decoder backbones and transformers' LlamaConfig spell these alike
VOCAB = Field("v", keras="vocabulary_size", hf="vocab_size")
WIDTH = Field("d_e", keras="hidden_dim", hf="hidden_size")
LAYERS = Field("L", keras="num_layers", hf="num_hidden_layers")
FFN = Field("d_f", keras="intermediate_dim", hf="intermediate_size")
QUERY_HEADS = Field("M", keras="num_query_heads", hf="num_attention_heads")
KV_HEADS = Field("M_kv", keras="num_key_value_heads", hf="num_key_value_heads")
KV_HEADS_OR_M = Field("M_kv", keras="num_key_value_heads", hf="num_key_value_heads", hf_default=M)
ATTENTION_HEADS = Field("M", keras="num_attention_heads", hf="num_attention_heads")
HEAD_DIM = Field("d_k", keras="head_dim", hf="head_dim")


def decoder_fields(kv_heads: Field = KV_HEADS) -> tuple[Field, ...]:
    """A decoder's first rows, in this order, with the family's own ``kv_heads`` row where its
    config defaults num_key_value_heads apart (Mistral's absent key is 8)."""
    return (VOCAB, LAYERS, QUERY_HEADS, kv_heads, WIDTH)


# a decoder's first rows, in this order (a family's table writes *DECODER_FIELDS, then its own)
DECODER_FIELDS = decoder_fields()
TIED_NO = Field(
    "tied", keras="tie_word_embeddings", hf="tie_word_embeddings", flag=True, hf_default=0,
    keras_default=0)
TIED_KERAS_YES = Field(
    "tied", keras="tie_word_embeddings", hf="tie_word_embeddings", flag=True, hf_default=0,
    keras_default=1)
TIED_YES = Field(
    "tied", keras="tie_word_embeddings", hf="tie_word_embeddings", flag=True, hf_default=1,
    keras_default=1)

# --- BERT lineage: the encoders' rows
HEADS = Field("M", keras="num_heads", hf="num_attention_heads")
POSITIONS_512 = Field(
    "n", keras="max_sequence_length", hf="max_position_embeddings", keras_default=512)
SEGMENTS = Field("s", keras="num_segments", hf="type_vocab_size", keras_default=2, hf_default=2)
EMBEDDING_WIDTH_128 = Field("d_emb", keras="embedding_dim", hf="embedding_size", hf_default=128)

# a BERT-like encoder's first rows, in this order (GPT-NeoX's and ESM's too)
ENCODER_FIELDS = (VOCAB, LAYERS, HEADS, WIDTH, FFN)

# --- GPT-2 lineage (n_layer, n_head) and d_model configs
LAYERS_N_LAYER = Field("L", keras="num_layers", hf="n_layer")
HEADS_N_HEAD = Field("M", keras="num_heads", hf="n_head")
WIDTH_D_MODEL = Field("d_e", keras="hidden_dim", hf="d_model")

# --- mixtures of experts (Qwen MoE lineage, Mixtral, gpt-oss)
EXPERTS = Field("E", keras="num_experts", hf="num_experts")
TOP_K = Field("k", keras="top_k", hf="num_experts_per_tok")
EXPERT_FFN = Field("d_fe", keras="moe_intermediate_dim", hf="moe_intermediate_size")
LOCAL_EXPERTS = Field("E", keras="num_experts", hf="num_local_experts")
# the Qwen MoE lineage's experts, k per token, and each expert's width
QWEN_MOE_FIELDS = (EXPERTS, TOP_K, EXPERT_FFN)


def released_values(backbone: str, released: str = "model's", **values) -> tuple[Sets, ...]:
    """Rows setting ``backbone``'s constructor arguments that have no default and hold no weight
    to the released model's values (KerasHub builds only): one why for them all."""
    why = (f"a {backbone} constructor argument without a default that holds no weight: the "
           f"released {released} value")
    return tuple(Sets(name, value, binds="keras", why=why) for name, value in values.items())


def dense_block_rows(dense_blocks) -> tuple[Sets, ...]:
    """The Qwen MoE lineage's dense blocks as both frameworks' configs take them:
    ``mlp_only_layers`` (from ``dense_blocks(hp)``) with the sparse step written as 1 beside it."""
    step = "mlp_only_layers lists the dense blocks itself; the step is written as 1 beside it"
    which = ("the dense blocks as both frameworks take them: the first L − L_moe (which ones "
             "changes no count)")
    return tuple(row for binds in ("transformers", "keras") for row in (
        Sets("decoder_sparse_step", 1, binds=binds, why=step),
        Sets("mlp_only_layers", dense_blocks, binds=binds, why=which)))

# Qwen MoE lineage: transformers' names of a sparse block's ``mlp`` (the router ``gate``, the routed
# experts as two stacked tensors), of its shared SwiGLU expert and one-output gate, and of a dense
# block's ``mlp`` (the lookahead keeps the shared expert's projections out of it)
QWEN_MOE_NAMES = {
    "blocks.moe": "mlp",
    "blocks.moe.router": "gate",
    "blocks.moe.experts": "experts",
    "blocks.moe.experts.expert": "experts",
    "blocks.moe.experts.expert.gate_up": "gate_up_proj",
    "blocks.moe.experts.expert.down": "down_proj",
}
QWEN_SHARED_EXPERT_NAMES = {
    "blocks.moe.shared.expert": "shared_expert",
    "blocks.moe.shared.expert.gate": "gate_proj",
    "blocks.moe.shared.expert.up": "up_proj",
    "blocks.moe.shared.expert.down": "down_proj",
    "blocks.moe.shared.gate": "shared_expert_gate",
}
QWEN_DENSE_FFN_NAMES = {
    "blocks.dense_ffn": r"mlp(?=/(?:gate|up|down)_proj)",
    "blocks.dense_ffn.gate": "gate_proj",
    "blocks.dense_ffn.up": "up_proj",
    "blocks.dense_ffn.down": "down_proj",
}


def without_ffn(weights: Mapping) -> dict:
    """A decoder's transformers names without its dense feed-forward (``blocks.ffn``), for the
    mixture-of-experts model built on it."""
    return {p: m for p, m in weights.items() if p != "blocks.ffn" and not p.startswith("blocks.ffn.")}

# --- Gemma lineage (Gemma, Gemma 3, PaliGemma, T5Gemma, T5Gemma 2)
POST_ATTENTION_NORM = Field(
    "post_attn_norm", keras="use_post_attention_norm", flag=True, keras_default=0)
POST_FFW_NORM = Field("post_ffw_norm", keras="use_post_ffw_norm", flag=True, keras_default=0)
POST_NORM_ALWAYS = Field("post_norm", hf=None, hf_default=1)
QK_NORM_KERAS = Field("qk_norm", keras="use_query_key_norm", flag=True, keras_default=1)
IMAGE_SIZE_224 = Field("H", keras="image_size", hf="vision_config.image_size", hf_default=224)
T5GEMMA_VOCAB = Field("v", keras="vocabulary_size", hf="decoder.vocab_size")
T5GEMMA_ATTENTION_BIAS = Field(
    "zeta", keras="attention_bias", hf="decoder.attention_bias", flag=True, hf_default=0,
    keras_default=0)

# --- transformers-only families (no KerasHub class): the same keys, without a Keras argument
HF_VOCAB = Field("v", hf="vocab_size")
HF_WIDTH = Field("d_e", hf="hidden_size")
HF_LAYERS = Field("L", hf="num_hidden_layers")
HF_FFN = Field("d_f", hf="intermediate_size")
HF_HEADS = Field("M", hf="num_attention_heads")
HF_KV_HEADS = Field("M_kv", hf="num_key_value_heads")
HF_KV_HEADS_OR_M = Field("M_kv", hf="num_key_value_heads", hf_default=M)
HF_HEAD_DIM = Field("d_k", hf="head_dim")
# a config class whose head_dim stays unset when absent (MixtralConfig's None; Qwen2Config and
# Qwen2MoeConfig have none): the model takes hidden_size // num_attention_heads, so the reference
# writes head_dim only where it differs, as published configs do (validate_rope reads it when set)
HF_HEAD_DIM_IMPLIED = Field("d_k", hf="head_dim", hf_default=sympy.floor(d_e / M), hf_omit_default=True)
HF_DECODER_FIELDS = (HF_VOCAB, HF_LAYERS, HF_HEADS, HF_KV_HEADS_OR_M, HF_WIDTH)  # M_kv defaults to M
HF_GQA_FIELDS = (HF_VOCAB, HF_LAYERS, HF_HEADS, HF_KV_HEADS, HF_WIDTH)  # num_key_value_heads given
# a transformers causal LM's first rows (Granite's, Cohere's, StarCoder2's, Phi's): then its own
HF_CAUSAL_LM_FIELDS = (*HF_DECODER_FIELDS, HF_FFN)
# absent: hidden_size // num_attention_heads, floored as every class taking it so floors it
HF_HEAD_DIM_OR_SPLIT = Field("d_k", hf="head_dim", hf_default=sympy.floor(d_e / M))
# a decoder whose head_dim, when absent, is d_e/M (Falcon-H1, Llama 4): its first rows, in this order
HF_HEAD_DIM_DECODER_FIELDS = (HF_VOCAB, HF_LAYERS, HF_HEADS, HF_KV_HEADS_OR_M, HF_HEAD_DIM_OR_SPLIT, HF_WIDTH)
HF_TIED_NO = Field("tied", hf="tie_word_embeddings", flag=True, hf_default=0)
HF_TIED_YES = Field("tied", hf="tie_word_embeddings", flag=True, hf_default=1)
HF_ATTENTION_BIAS = Field("b_att", hf="attention_bias", flag=True, hf_default=0)
HF_QK_NORM = Field("qk_norm", hf="use_qk_norm", flag=True, hf_default=0)
HF_TOP_K = Field("k", hf="num_experts_per_tok")
HF_LOCAL_EXPERTS = Field("E", hf="num_local_experts")
HF_EXPERT_FFN = Field("d_fe", hf="moe_intermediate_size")
HF_EXPERT_FFN_AS_FFN = Field("d_fe", hf="intermediate_size")
HF_ROUTED_EXPERTS = Field("E", hf="n_routed_experts")
HF_SHARED_EXPERTS = Field("E_s", hf="n_shared_experts")
HF_FIRST_DENSE = Field("L_dense", hf="first_k_dense_replace")
HF_EXPERTS = Field("E", hf="num_experts")
HF_MLP_BIAS = Field("b_ffn", hf="mlp_bias", flag=True, hf_default=0)
HF_FFN_OR_4D = Field("d_f", hf="intermediate_size", hf_default=4 * d_e)
HF_HEAD_DIM_OR_128 = Field("d_k", hf="head_dim", hf_default=128)
# a mixture's routing as transformers' Mixtral-lineage configs name it: the experts, k per token
HF_LOCAL_ROUTING = (HF_LOCAL_EXPERTS, HF_TOP_K)
# a mixture whose first L_dense blocks are dense, with routed and shared experts (DeepSeek's
# layout, GLM-4.5's): its rows, in this order
HF_DENSE_FIRST_MOE_FIELDS = (HF_FFN, HF_EXPERT_FFN, HF_ROUTED_EXPERTS, HF_SHARED_EXPERTS, HF_TOP_K, HF_FIRST_DENSE)


def dense_first_at_most_all(config: Mapping) -> Mapping:
    """A config read for L_dense (``first_k_dense_replace``, the table's ``hf_normalize``): the
    classes (DeepSeek's, GLM-4.5's) make block i sparse only where i >= first_k_dense_replace,
    so a value above num_hidden_layers builds every block dense: L_dense is read as L (the
    formula's L_dense <= L is then the build's)."""
    first, layers = config.get("first_k_dense_replace"), config.get("num_hidden_layers")
    if isinstance(first, int) and isinstance(layers, int) and not isinstance(first, bool) \
            and first > layers >= 0:
        return {**config, "first_k_dense_replace": layers}
    return config


# LlamaConfig's rows (Phi-3's too): M_kv defaults to M, and head_dim a key transformers alone has
LLAMA_FIELDS = (VOCAB, LAYERS, QUERY_HEADS, KV_HEADS_OR_M, WIDTH, FFN, HF_HEAD_DIM)

# --- KerasHub-only families (no transformers class)
KERAS_VOCAB = Field("v", keras="vocabulary_size")
KERAS_WIDTH = Field("d_e", keras="hidden_dim")
KERAS_LAYERS = Field("L", keras="num_layers")
KERAS_FFN = Field("d_f", keras="intermediate_dim")
KERAS_HEADS = Field("M", keras="num_heads")
KERAS_HEAD_SIZE = Field("d_k", keras="head_size")


# --- example sets that families share (each family may add its own after them)
# a tiny model, and one of odd sizes (heads not splitting the width evenly, a prime vocabulary):
# with learned positions (n), and without
TINY_AND_ODD_N = {
    "tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2),
    "odd_sizes": dict(v=997, n=7, d_e=45, M=5, d_f=13, L=3),
}
TINY_AND_ODD = {
    "tiny": dict(v=100, d_e=32, M=4, d_f=64, L=2),
    "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3),
}


# --- restriction rows (paramcount.core.restrictions) that families share, each with its why
GQA = Holds(Divisible(M, M_kv),
            why="grouped-query attention shares each key/value head by a whole group of query heads")
GQA_DECODER = Holds(Divisible(M_dec, M_kv_dec),
                    why="the decoder's grouped-query attention shares each key/value head by a whole "
                        "group of query heads")
HEADS_SPLIT_WIDTH = Holds(Divisible(d_e, M), why="the heads split the width exactly (d_k = d_e/M)")
HEADS_FIT_WIDTH = Holds(HEADS_FIT)  # fewer heads than the width (its reason is the why)


def biased_floored_heads(model: str) -> tuple[Fixed | Holds, ...]:
    """The head rows of a ``model`` whose KerasHub attention floors each head's width and gives all
    four projections biases (BERT's lineage, GPT-2's): ζ = 1, fewer heads than the width."""
    return (*KERAS_FLOORED_HEADS,
            Fixed(zeta, 1, why=f"{model}'s query, key, value and output projections carry biases"),
            HEADS_FIT_WIDTH)


def pinned(*keys: tuple) -> tuple[Sets | Requires, ...]:
    """The table rows of config keys a class always builds one way, each ``(key, value, why)`` or
    ``(key, value, why, refused)``: written ``value`` (``why``), then, after all of them, required
    to be ``value`` (``refused``, else ``why``): a config that sets another describes no model the
    class builds. ``refused`` may be a dict of the Requires row's fields (``classes``, ``why``)."""
    def required(key, value, why, refused=None) -> Requires:
        fields = refused if isinstance(refused, dict) else {"why": refused or why}
        return Requires(key, (value,), **fields)

    return (*(Sets(key, value, why=why) for key, value, why, *_ in keys), *(required(*row) for row in keys))


# mixtures of experts whose first L_dense blocks are dense (DeepSeek's layout), or whose dense
# blocks are any not sparse (Qwen MoE's)
DENSE_THEN_SPARSE = Fixed.each(
    DENSE_FIRST.fixed(), why="the sparse blocks are those after the first L_dense dense ones (L_moe = L − L_dense)")
SPARSE_AND_DENSE = Fixed.each(MOE_AND_DENSE.fixed(), why="the dense blocks are those not sparse (L_dense = L − L_moe)")
# a vision tower of square patches (PaliGemma's, Gemma 3's)
VISION_SPLIT = Holds.each(
    VISION_CONSTRAINTS, why="the vision heads split the vision width and the patches tile the image")
# KerasHub's attention layers floor each head's width (d_k = d_v = d_e // M): the rows of every
# family whose KerasHub layers do
KERAS_FLOORED_HEADS = Fixed.each(
    EVEN_HEADS, why="KerasHub's attention layers make each head d_e // M wide (floored), keys and values alike")
ROUTED_TO_AT_MOST_ALL = Holds(Relation(k, "<=", E, reason="a token is routed to at most all experts"))
# Rotary positions rotate pairs of a head's channels: a forward pass needs an even rotary width,
# but no build refuses an odd one for want of it. What refuses one is transformers' validate_rope
# (modeling_rope_utils: a config's head_dim above 4, odd and fully rotated), and only where the
# config holds a head_dim. So the rows are notes where the formula needs nothing (``forward``:
# count gives the count with a note), and where only transformers' validator refuses, a range
# ``prove`` samples within (``proof``): verify builds every set and says what transformers says
# of one it refuses. tests/test_constraints_built.py builds a set breaking each.
ROTARY_PAIRS = Holds(Divisible(d_e, 2 * M), binds="forward",
                     why="rotary positions rotate pairs of a head's channels: a forward pass needs an even "
                         "head width d_e/M (transformers' validate_rope refuses an odd head_dim above 4)")
ROTARY_PAIRS_VALIDATED = Holds(Divisible(d_e, 2 * M), binds="proof",
                               why="transformers' validate_rope refuses an odd rotary width d_k = d_e/M "
                                   "above 4: prove samples even ones")
EVEN_HEAD_DIM = Holds(Divisible(d_k, 2), binds="forward",
                      why="rotary positions rotate pairs of a head's channels: a forward pass needs an even "
                          "head_dim (transformers' validate_rope refuses an odd one above 4)")
EVEN_HEAD_DIM_VALIDATED = Holds(Divisible(d_k, 2), binds="proof",
                                why="transformers' validate_rope refuses an odd rotary width (head_dim) "
                                    "above 4: prove samples even ones")
HEADS_DIVIDE_WIDTH_VALIDATED = Holds(
    Divisible(d_e, M), binds="transformers",
    why="transformers validates a hidden size the heads divide, even with head_dim set")


def full_heads(model: str) -> Fixed:
    """A ``model`` with no grouped-query attention: M_kv = M."""
    return Fixed(M_kv, M, why=f"{model} has full multi-head attention (a key/value head per query head)")


def split_heads(owner: str, width: str = "hidden_size", heads: str = "the heads") -> Fixed:
    """``d_k = d_e/M`` for a config (or backbone) ``owner`` with no head-width key."""
    return Fixed(d_k, d_e / M, why=f"{owner} has no head_dim: each head is {width} over {heads}")


def rotary_heads(owner: str) -> tuple[Holds | Fixed, ...]:
    """The rows of a rotary decoder whose ``owner`` config has no head_dim: the heads split the
    width, rotary pairs need an even head width, whole groups share each key/value head."""
    return (split_heads(owner), ROTARY_PAIRS, GQA)


# BERT lineage: the formula counts an absolute position table
ABSOLUTE_POSITIONS = Requires(
    "position_embedding_type", ("absolute",),
    why="relative position types add a distance table the formula does not have")


def absolute_positions(model: str) -> Sets:
    """Configs of a BERT-lineage ``model`` are written with its absolute learned position table."""
    return Sets("position_embedding_type", "absolute",
                why=f"the formula counts {model}'s absolute learned position table")


def encoder_only(backbone: str) -> tuple[Sets, Sets]:
    """Configs of an encoder (KerasHub's ``backbone``) are written without cross-attention and
    not as a decoder."""
    return (Sets("add_cross_attention", False, why=f"{backbone} is an encoder: it has no cross-attention weights"),
            Sets("is_decoder", False, why=f"{backbone} is an encoder, not a decoder (no cross-attention)"))


def no_cross_attention(model: str) -> Requires:
    """A config giving the encoder ``model`` cross-attention describes no model the formula counts."""
    return Requires("add_cross_attention", (False,), why=f"{model} here is an encoder without cross-attention")



def mlm_names(match: str, transform: str, norm: str, bias: str = "predictions/bias",
              decoder: str | None = "decoder/weight") -> dict[str, str]:
    """transformers' names of a BERT-lineage masked-LM head (the tree's ``mlm_head``: its group
    ``match``, the ``transform`` dense, its ``norm``, the output ``bias``) and of its output
    projection, the ``decoder`` (None: named apart)."""
    names = {"mlm_head": match, "mlm_head.transform": transform, "mlm_head.norm": norm,
             "mlm_head.output_bias": bias}
    return {**names, "mlm_head.decoder": decoder} if decoder else names


# Gemma lineage: what transformers validates of every Gemma decoder, and the classes' post norms
GEMMA_VALIDATED = (EVEN_HEAD_DIM_VALIDATED, HEADS_DIVIDE_WIDTH_VALIDATED)


def post_norms_always(cls: str) -> tuple[Fixed, ...]:
    """A transformers class ``cls`` (Gemma 2's, Gemma 3's) that always has both post norms."""
    return (Fixed(post_attn_norm, 1, binds="transformers", why=f"{cls} always has a post-attention norm"),
            Fixed(post_ffw_norm, 1, binds="transformers", why=f"{cls} always has a post-feed-forward norm"))


NO_IMAGE_SIZE = Sets("image_size", None, binds="keras",
                     why="the text backbone has no vision encoder, so no image size")
GEMMA3_TIED = Sets("tie_word_embeddings", True, why="Gemma 3's head is the token embedding (tied)")
# T5Gemma and T5Gemma 2: what transformers validates of the encoder and the decoder's head width
# (each family adds its decoder's width rule)
T5GEMMA_VALIDATED = (
    EVEN_HEAD_DIM_VALIDATED,
    Holds(Divisible(d_k_dec, 2), binds="proof",
          why="transformers' validate_rope refuses an odd rotary width (the decoder's head_dim) above 4: "
              "prove samples even ones"),
    Holds(Divisible(d_e, M), binds="transformers",
          why="transformers validates each side's width divisible by its heads, even with head_dim set"),
)



def layer_types(types: Callable[[str], object], why: str) -> tuple[Sets, ...]:
    """The KerasHub T5Gemma backbones' ``encoder_layer_types`` and ``decoder_layer_types``: each
    side's layer kinds, ``types("L_enc")`` and ``types("L_dec")`` (a function of the
    hyperparameters; the kinds hold no weights), with one ``why``."""
    return tuple(Sets(f"{side}_layer_types", types(layers), binds="keras", why=why)
                 for side, layers in (("encoder", "L_enc"), ("decoder", "L_dec")))


def t5gemma_heads(model: str) -> tuple[Fixed | Holds, ...]:
    """T5Gemma's and T5Gemma 2's head rows: keys and values of one width, whole groups sharing each
    key/value head on both sides."""
    return (Fixed(d_v, d_k, why=f"{model}'s attention gives keys and values one head width (head_dim)"),
            GQA, GQA_DECODER)


# Qwen 3.5 lineage
QWEN3_5_NO_ATTENTION_BIAS = Sets("attention_bias", False, why="Qwen 3.5's attention has no biases")
