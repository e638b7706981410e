"""Gemma 3n (Google DeepMind 2025), the text decoder, as KerasHub builds it:
keras_hub.models.Gemma3nBackbone without vision or audio encoders.

Each of the L blocks has Gemma 3's four RMS norms around attention and feed-forward, QK norm (one
d_k-wide scale each) and a scale-free value norm, a GeGLU feed-forward (no biases) and three
pieces of its own:

- **AltUp** (Baykal et al. 2023, alternating updates): the model carries A copies of the hidden
  state; each block predicts them from a router d_e → A (after an RMS norm), with A·A² prediction
  and A·A correction coefficients, and (``altup_correct_scale``, flag ``altup_cs``) a d_e-wide
  scale on the corrected output. Before the blocks, A − 1 bias-free d_e × d_e projections make the
  extra copies; after them, A − 1 more fold them back.
- **LAuReL** (learned augmented residual, low rank r_l): d_e → r_l → d_e and an RMS norm.
- **Per-layer inputs**: each block gates a d_p-wide input of its own (d_e → d_p gate, d_p → d_e
  projection, RMS norm). Those inputs come from a second token table of v_p rows, L·d_p wide (one
  d_p slice per layer; counted under ``embeddings``, like the token table: the part Gemma 3n's
  "effective" sizes leave out), added to a projection of the token embedding d_e → L·d_p with one
  d_p-wide RMS norm.

Grouped-query attention has M query and M_kv ≤ M key/value heads of width d_k (KerasHub builds
any such pair; only running the model needs M_kv to divide M). Attention weights are the same for
sliding-window and global layers (``layer_types`` changes the mask and rotary wavelength only),
and every layer's feed-forward has width d_f.

**KV sharing** makes the stack heterogeneous (:mod:`paramcount.model.components.stacks`): the last L_kvs
blocks (``num_kv_shared_layers``) reuse the keys and values of the last earlier block of their
attention type instead of computing their own. KerasHub still builds their key and value
projections and key norm, which are never used; transformers 5.23's Gemma3nTextAttention does not
build them (the released checkpoints hold them; transformers skips them on load). So the stack is
L_kvs shared blocks and L_kvo = L − L_kvs computing ones, each kind with its key/value part named
apart, and the breakdown shows the unused weights. KerasHub shares no block at all when L_kvs = L
(its rule ``i ≥ L − L_kvs > 0``), and a shared block needs an earlier computing one: L_kvs < L.

Configs: ``MAPPING`` reads transformers' Gemma3nTextConfig (model_type ``gemma3n_text``,
Gemma3nForCausalLM: the text decoder alone, as ``Gemma3nForCausalLM.from_pretrained`` loads it from
a multimodal checkpoint) and a KerasHub Gemma3nBackbone config without encoders. The feed-forward
width is a per-layer list in both (``intermediate_size``); every released configuration has one
width for all layers, which is d_f, and a list whose entries differ is refused. The whole
multimodal Gemma3nConfig (model_type ``gemma3n``, Gemma3nForConditionalGeneration: MobileNetV5
vision and Conformer audio towers) is not read.

transformers (``TRANSFORMERS``, Gemma3nForCausalLM) differs by two declared deltas: it builds no
key/value projections or key norm in the KV-shared blocks, and builds AltUp's d_e-wide
``correct_output_scale`` in every block whether or not ``altup_correct_scale`` applies it.

Not expressible here: blocks of different feed-forward widths. The released presets
(``gemma3n_e2b``, ``gemma3n_e4b`` and their instruct twins) carry a MobileNetV5 vision encoder
and a Conformer audio encoder, not formulated yet: they are not listed
(``unlisted.py``, beside this file), and the example ``e4b_text`` is transformers' default text
configuration (documented as google/gemma-3n-E4B's).
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import A
from paramcount.core.symbols import L
from paramcount.core.symbols import L_kvo
from paramcount.core.symbols import L_kvs
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import altup_cs
from paramcount.core.symbols import b_att
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_p
from paramcount.core.symbols import r_l
from paramcount.core.symbols import v
from paramcount.core.symbols import v_p
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._defaults import not_formulated
from paramcount.families._lineages import ATTENTION_HEADS
from paramcount.families._lineages import EVEN_HEAD_DIM_VALIDATED
from paramcount.families._lineages import HEAD_DIM
from paramcount.families._lineages import KV_HEADS
from paramcount.families._lineages import released_values
from paramcount.model.components import dense
from paramcount.model.components import embedding
from paramcount.model.components import gated_feed_forward
from paramcount.model.components import rms_norm
from paramcount.model.components.modern import rotary_positions
from paramcount.model.components.stacks import LayerKinds
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gemma3n",)  # the ids this folder registers


def _shared_or_own(i: int, *, num_hidden_layers: int, num_kv_shared_layers: int = 0) -> str:
    """Gemma3nTextModel's rule: block i reuses keys and values when
    ``i ≥ num_hidden_layers − num_kv_shared_layers > 0``."""
    first = num_hidden_layers - num_kv_shared_layers
    return "kv_shared" if i >= first > 0 else "own_kv"


KV_SHARED_AND_OWN = LayerKinds((("kv_shared", L_kvs), ("own_kv", L_kvo)), _shared_or_own)


def _key_value(note: str):
    """Key and value projections (biases with b_att) and the key norm."""
    return (
        dense("key", d_e, M_kv * d_k, bias=b_att, match="k_proj", note=note),
        dense("value", d_e, M_kv * d_k, bias=b_att, match="v_proj", note=note),
        leaf("key_norm", d_k, match="k_norm", note=note if note else "RMS norm over each key head"),
    )


_ALTUP_NOTE = "AltUp: each of A − 1 extra copies of the hidden state, d_e × d_e, no bias"

BLOCKS = KV_SHARED_AND_OWN.stack(
    "blocks",
    common=(
        rms_norm("pre_attention_norm", match="input_layernorm"),
        group(
            "attention",
            dense("query", d_e, M * d_k, bias=b_att, match="q_proj"),
            leaf("query_norm", d_k, match="q_norm", note="RMS norm over each query head",
                 kind="norm"),
            zero("value_norm", "value RMS norm without a learned scale", kind="norm"),
            dense("output", M * d_k, d_e, bias=b_att, match="o_proj"),
            rotary_positions(),
            match="attention",
            kind="attention",
        ),
        rms_norm("post_attention_norm", match="post_attention_layernorm"),
        rms_norm("pre_ffw_norm", match="pre_feedforward_layernorm"),
        gated_feed_forward("ffw", bias=0, names=("gate_proj", "up_proj", "down_proj"),
                           match="mlp"),
        rms_norm("post_ffw_norm", match="post_feedforward_layernorm"),
        group(
            "altup",
            rms_norm("router_norm", match="router_norm"),
            dense("router", d_e, A, bias=0, match="modality_router"),
            dense("prediction_coefs", A, A * A, bias=0, match="prediction_coefs"),
            dense("correction_coefs", A, A, bias=0, match="correction_coefs"),
            leaf("correct_output_scale", altup_cs * d_e, match="correct_output_scale",
                 note="a d_e-wide scale on the corrected output (altup_correct_scale)"),
            match="altup",
            # AltUp mixes the copies of the hidden state: neither attention nor feed-forward
            kind="other",
        ),
        group(
            "laurel",
            dense("down", d_e, r_l, bias=0, match="linear_left"),
            dense("up", r_l, d_e, bias=0, match="linear_right"),
            rms_norm("norm", match="post_laurel_norm"),
            match="laurel",
            kind="other",  # a low-rank residual branch
        ),
        group(
            "per_layer_input",
            dense("gate", d_e, d_p, bias=0, match="per_layer_input_gate"),
            dense("projection", d_p, d_e, bias=0, match="per_layer_projection"),
            rms_norm("norm", match="post_per_layer_input_norm"),
            kind="other",
        ),
    ),
    per_kind={
        "kv_shared": (group(
            "unused_key_value", *_key_value("built, never used"),
            match=r"decoder_block_\d+_kv_shared/attention", kind="attention",
            note="built by KerasHub but never used: a KV-shared block reads the keys and values "
                 "of the last earlier block of its attention type (transformers does not build "
                 "these)"),),
        "own_kv": (group("key_value", *_key_value(""),
                         match=r"decoder_block_\d+/attention", kind="attention"),),
    },
    # The reference names KV-shared blocks ``decoder_block_i_kv_shared`` (KerasHub names every
    # block ``decoder_block_i``), so the two kinds' key/value weights can be told apart.
    match=r"decoder_block_\d+(?:_kv_shared)?",
    note="L blocks: attention's query/output, norms, feed-forward, AltUp, LAuReL and per-layer "
         "input in each; keys and values computed in L_kvo of them, built but unused in the "
         "L_kvs KV-shared ones",
)


def _layer_types(hp) -> list[str]:
    """Gemma 3n's own pattern, every fifth block global, where transformers takes it; else every
    block sliding-window. Which blocks are global changes no weight, but transformers' config
    (``kv_sharing_modes``) refuses KV-shared blocks of a kind no computing block has (seven
    blocks, three shared: block 4, global, would have no global block to read from)."""
    n, shared = hp["L"], hp.get("L_kvs", 0)
    kinds = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]
    if set(kinds[n - shared:]) <= set(kinds[:n - shared]):
        return kinds
    return ["sliding_attention"] * n


# symbol ↔ Gemma3nBackbone argument ↔ Gemma3nTextConfig key (model_type gemma3n_text: the text
# decoder, Gemma3nForCausalLM). KerasHub's intermediate_size is a per-block list; transformers
# takes one value or a list; both read as the one d_f when the entries agree (refused when they
# differ). layer_types and activation_sparsity_pattern are per-block lists that change no
# weight (mask, rotary wavelength, a top-k of the gate's activations): free. A full Gemma3nConfig
# (model_type gemma3n, Gemma3nForConditionalGeneration) adds a MobileNetV5 vision tower and a
# Conformer audio tower, not formulated: not read.
MAPPING = family_table(
    "gemma3n", hf="Gemma3nForCausalLM", keras="Gemma3nBackbone", model_type="gemma3n_text",
    fields=(
        Field("v", keras="text_vocab_size", hf="vocab_size"),
        Field("d_e", keras="text_hidden_size", hf="hidden_size"),
        Field("L", keras="num_hidden_layers", hf="num_hidden_layers"),
        ATTENTION_HEADS,
        KV_HEADS,
        HEAD_DIM,
        Field("d_f", keras="intermediate_size", hf="intermediate_size", listed=("keras",)),
        Field("v_p", keras="vocab_size_per_layer_input", hf="vocab_size_per_layer_input"),
        Field("d_p", keras="hidden_size_per_layer_input", hf="hidden_size_per_layer_input"),
        Field("A", keras="altup_num_inputs", hf="altup_num_inputs"),
        Field("r_l", keras="laurel_rank", hf="laurel_rank"),
        # Gemma3nTextConfig's default is 15 shared blocks (E4B's), KerasHub's 0
        Field("L_kvs", keras="num_kv_shared_layers", hf="num_kv_shared_layers",
              keras_default=0, hf_default=15),
        Field("b_att", keras="attention_bias", hf="attention_bias", flag=True, keras_default=0,
              hf_default=0),
        Field("altup_cs", keras="altup_correct_scale", hf="altup_correct_scale", flag=True,
              keras_default=1, hf_default=1),
    ),
    restrictions=(
        Sets("tie_word_embeddings", True, why="Gemma 3n's head is the token embedding (tied)"),
        Sets("layer_types", _layer_types,
            why="transformers refuses KV-shared blocks of a kind no computing block has: Gemma 3n's own pattern, "
                "where it fits (no weights)"),
        *released_values(
            "Gemma3nBackbone", "models'",
            pad_token_id=0,
            hidden_activation="gelu_approximate",
            layer_types=_layer_types,
            sliding_window=512,
            rope_theta=1_000_000.0,
            max_position_embeddings=32_768,
        ),
        Requires("tie_word_embeddings", (True,), why="Gemma 3n's head is the token embedding (tied)"),
        Requires("vision_encoder_config", (None,), binds="keras",
                 why="a Gemma3nBackbone with a vision encoder (MobileNetV5) is not formulated: "
                     "only the text decoder is"),
        Requires("audio_encoder_config", (None,), binds="keras",
                 why="a Gemma3nBackbone with an audio encoder (Conformer) is not formulated: "
                     "only the text decoder is"),
    ),
)

# Gemma3nForCausalLM (transformers 5.23, modeling_gemma3n.py): the KerasHub port kept the
# PyTorch names inside a block; the model's own are model/embed_tokens, model/layers/i,
# model/altup_projections/j, model/norm. The head is tied (lm_head is embed_tokens, listed
# once); embed_scale, router_input_scale and the rotary frequencies are non-persistent buffers.
TRANSFORMERS = Transformers(
    restrictions=(
        Holds(Divisible(d_e, M), binds="transformers",
            why="transformers' validate_architecture wants hidden_size a multiple of num_attention_heads, even "
                "with head_dim"),
        EVEN_HEAD_DIM_VALIDATED,
    ),
    deltas=(
        Delta("blocks.unused_key_value", None,
              "transformers' Gemma3nTextAttention builds no key/value projections or key norm in "
              "a KV-shared block, which reads an earlier block's keys and values (it skips the "
              "checkpoints' copies on load); KerasHub builds them, unused"),
        Delta("blocks.altup.correct_output_scale",
              leaf("correct_output_scale", d_e, kind="other",
                   note="a d_e-wide scale, built whether or not altup_correct_scale applies it"),
              "transformers' Gemma3nTextAltUp always builds correct_output_scale and applies it "
              "only with altup_correct_scale; KerasHub builds it only then"),
    ),
    weights={
        "embeddings.token": "model/embed_tokens",
        "embeddings.per_layer_token": "model/embed_tokens_per_layer",
        "per_layer_inputs.projection": "model/per_layer_model_projection",
        "per_layer_inputs.norm": "model/per_layer_projection_norm",
        "altup_in": r"model/altup_projections/\d+",
        "altup_in.projection": "weight",
        "blocks": r"model/layers/\d+",
        "blocks.pre_attention_norm": "input_layernorm",
        "blocks.post_attention_norm": "post_attention_layernorm",
        "blocks.pre_ffw_norm": "pre_feedforward_layernorm",
        "blocks.post_ffw_norm": "post_feedforward_layernorm",
        "blocks.attention": "self_attn",
        "blocks.attention.query": "q_proj",
        "blocks.attention.query_norm": "q_norm",
        "blocks.attention.output": "o_proj",
        "blocks.ffw": "mlp",
        "blocks.ffw.gate": "gate_proj",
        "blocks.ffw.up": "up_proj",
        "blocks.ffw.down": "down_proj",
        "blocks.altup": "altup",
        "blocks.altup.router_norm": "router_norm",
        "blocks.altup.router": "modality_router",
        "blocks.altup.prediction_coefs": "prediction_coefs",
        "blocks.altup.correction_coefs": "correction_coefs",
        "blocks.altup.correct_output_scale": "correct_output_scale",
        "blocks.laurel": "laurel",
        "blocks.laurel.down": "linear_left",
        "blocks.laurel.up": "linear_right",
        "blocks.laurel.norm": "post_laurel_norm",
        "blocks.per_layer_input.gate": "per_layer_input_gate",
        "blocks.per_layer_input.projection": "per_layer_projection",
        "blocks.per_layer_input.norm": "post_per_layer_input_norm",
        "blocks.key_value": "self_attn",
        "blocks.key_value.key": "k_proj",
        "blocks.key_value.value": "v_proj",
        "blocks.key_value.key_norm": "k_norm",
        "altup_out": r"model/altup_unembed_projections/\d+",
        "altup_out.projection": "weight",
        "final_norm": "model/norm",
    },
)

register(keras_hub_backbone(
    "gemma3n",
    formula=group(
        "gemma3n",
        group(
            "embeddings",
            embedding("token", v, match="embed_tokens"),
            embedding("per_layer_token", v_p, L * d_p, match="embed_tokens_per_layer",
                      note="per-layer inputs: v_p × (L·d_p), one d_p slice per block"),
        ),
        group(
            "per_layer_inputs",
            dense("projection", d_e, L * d_p, bias=0, match="per_layer_model_projection",
                  note="the token embedding's share of every block's input, d_e → L·d_p"),
            rms_norm("norm", d_p, match="per_layer_projection_norm"),
            kind="projection",
        ),
        group("altup_in", dense("projection", d_e, d_e, bias=0, match="kernel"), times=A - 1,
              match=r"altup_projection_\d+", note=_ALTUP_NOTE, kind="projection"),
        BLOCKS,
        group("altup_out", dense("projection", d_e, d_e, bias=0, match="kernel"), times=A - 1,
              match=r"altup_unembed_projection_\d+", note=_ALTUP_NOTE + ", folded back",
              kind="projection"),
        rms_norm("final_norm", match="norm"),
        zero("head", "tied: the output projection is the token embedding, transposed", kind="head"),
    ),
    reference="reference_models.gemma3n:backbone",
    required=(v, d_e, M, M_kv, d_k, d_f, L, v_p, d_p, A, r_l),
    optional={L_kvs: 0, b_att: 0, altup_cs: 1},
    restrictions=(
        *Fixed.each(KV_SHARED_AND_OWN.fixed(),
            why="the blocks that compute their own keys and values are those not KV-shared (L_kvo = L − L_kvs)"),
        Holds(
            Relation(M_kv, "<=", M, reason="grouped-query attention: at most one key/value head "
            "per query head"),
        ),
        Holds(
            Relation(L_kvs + 1, "<=", L, reason="KV-shared blocks reuse an earlier block's keys and "
            "values: at least one block computes its own"),
        ),
    ),
    presets=None,
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))

# memory and compute: not formulated yet (frameworks.unformulated)
_WHY = "AltUp, Laurel, per-layer inputs and shared KV layers: not written as cost leaves yet"
register(not_formulated("gemma3n", flops=_WHY, kv=_WHY), replace=True)
