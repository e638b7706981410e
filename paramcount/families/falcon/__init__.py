"""Falcon as KerasHub builds it: keras_hub.models.FalconBackbone.

KerasHub implements the Falcon-RW layout (Penedo et al. 2023, the RefinedWeb models): a token
embedding, ALiBi (no parameters), L *sequential* pre-LN blocks with full multi-head attention and
biases on every projection, a final layer norm. The larger Falcon models' parallel attention+MLP
and multi-query attention are not in KerasHub's FalconBackbone (its constructor has no option for
either), so they are not formulated here.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import kv_bcast
from paramcount.core.symbols import split_ln
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import ATTENTION_HEADS
from paramcount.families._lineages import HF_HEADS
from paramcount.families._lineages import HF_LAYERS
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import HF_WIDTH
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import TINY_AND_ODD
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.families._lineages import rotary_heads
from paramcount.model.components import dense
from paramcount.model.components import embedding
from paramcount.model.components import layer_norm
from paramcount.model.components.decoders import alibi_decoder
from paramcount.model.components.decoders import alibi_decoder_names
from paramcount.model.components.hf_decoder import tied_head
from paramcount.model.components.modern import rotary_positions
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("falcon", "falcon_parallel")  # the ids this folder registers


# Keys of FalconConfig that hold no weights, in either layout.
_HF_FREE = frozenset({
    "alibi", "apply_residual_connection_post_layernorm", "attention_dropout", "hidden_dropout",
    "layer_norm_epsilon", "max_position_embeddings", "rope_theta", "rope_scaling",
    "rope_parameters", "activation", "num_ln_in_parallel_attn", "num_kv_heads",
    "new_decoder_architecture",
})

# symbol ↔ FalconBackbone argument ↔ FalconConfig key, for KerasHub's Falcon-RW layout: a
# transformers config is read here only when it asks for that layout (sequential blocks, full
# multi-head attention, biases); Falcon-7B/40B configs are read by FALCON_PARALLEL below.
MAPPING = family_table(
    "falcon", hf="FalconForCausalLM", keras="FalconBackbone",
    fields=(
        VOCAB,
        LAYERS,
        ATTENTION_HEADS,
        WIDTH,
        Field("d_f", keras="intermediate_dim", hf="ffn_hidden_size", hf_default=4 * d_e),
    ),
    restrictions=(
        Sets("parallel_attn", False, why="KerasHub's Falcon is Falcon-RW's sequential block"),
        Sets("multi_query", False, why="KerasHub's Falcon has full multi-head attention"),
        Sets("new_decoder_architecture", False,
            why="KerasHub's Falcon has full multi-head attention (no grouped new decoder)"),
        Sets("bias", True, why="KerasHub's Falcon projections all have biases"),
        Sets("alibi", True, why="KerasHub's Falcon uses ALiBi, which has no parameters (no rotary)"),
        Sets("tie_word_embeddings", True,
            why="Falcon's LM head is the token embedding (tied), as in KerasHub's FalconCausalLM"),
        Requires("parallel_attn", (False,), absent_ok=False, why="KerasHub's Falcon blocks are sequential (Falcon-RW)"),
        Requires("multi_query", (False,), absent_ok=False, why="KerasHub's Falcon has full multi-head attention"),
        Requires("new_decoder_architecture", (False,), why="KerasHub's Falcon has full multi-head attention"),
        Requires("bias", (True,), absent_ok=False, why="KerasHub's Falcon projections all have biases"),
        Requires(
            "tie_word_embeddings",
            (True,),
            why="Falcon's LM head is the token embedding (tied), as in KerasHub's FalconCausalLM",
        ),
    ),
    free=_HF_FREE | {"layer_norm_epsilon", "attention_dropout_rate", "feedforward_dropout_rate"},
)

# FalconForCausalLM's names (under ``transformer.``). Query, key and value are one fused
# query_key_value of 3·d_e outputs (interleaved per head); each third holds a projection's d_e²
# weights and d_e biases, which the slices claim. The LM head is the token embedding, once.
TRANSFORMERS = Transformers(restrictions=(
    Holds(Divisible(d_e, 2 * M), binds="proof",
        why="transformers' validate_rope refuses an odd rotary width d_e/M above 4, even where ALiBi replaces "
            "RoPE: prove samples even ones"),
), weights={**alibi_decoder_names("transformer/"), "head": "lm_head"},
    deltas=(Delta("head", tied_head(), "FalconForCausalLM carries the LM head the backbone leaves "
                  "out: the token table, tied (no weights; it multiplies)"),))

register(keras_hub_backbone(
    "falcon",
    formula=alibi_decoder(
        "falcon", embedding_norm=None, attention_match="attention",
        norm_names=("input_layernorm", "post_attention_layernorm"),
        ffn_names=("dense_h_to_4h", "dense_4h_to_h")),
    required=(v, d_e, M, d_f, L),
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Fixed(zeta, 1, why="KerasHub's Falcon projections all have biases"),
        Holds(Divisible(d_e, M),
            why="transformers' FalconAttention refuses a hidden size that the heads do not divide"),
    ),
    # Falcon's attention output is d_e → d_e whatever the heads (prove refutes a floor there).
    reference="reference_models.falcon:backbone",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples=TINY_AND_ODD,
))


# --- Falcon-7B / 40B / 180B: the layout KerasHub's constructor cannot express ----------------

def _parallel_keys(config: Mapping) -> Mapping:
    """A Falcon config of the original layout (no ``new_decoder_architecture``) in the keys of
    the table, which builds the same weights: its parallel block has one norm, and ``multi_query``
    (Falcon-7B, FalconConfig's default) is one key/value head, cached as it is (kv_bcast = 0);
    without it every head has its own keys and values, the general layout's weights and cache."""
    c = dict(config)
    if not c.get("new_decoder_architecture"):
        multi = c.pop("multi_query", True)
        c["num_kv_heads"] = 1 if multi else c.get("num_attention_heads")
        # two norms are built in that layout too, though its forward reads an input_layernorm
        # it then lacks: the general layout's weights
        two = c.get("num_ln_in_parallel_attn") == 2
        c["num_ln_in_parallel_attn"] = 2 if two else 1
        c["new_decoder_architecture"] = two or not multi
    return c


def _norms(hp: Mapping[str, int]) -> int:
    """num_ln_in_parallel_attn as written: 2 (split_ln) in the general layout only; the original
    layout's forward reads its one input_layernorm."""
    return 2 if hp.get("split_ln") and hp.get("kv_bcast", 1) else 1


# symbol ↔ FalconConfig key (no KerasHub argument: KerasHub cannot build these models).
FALCON_PARALLEL_MAPPING = family_table(
    "falcon_parallel", hf="FalconForCausalLM", model_type="falcon",
    fields=(
        HF_VOCAB,
        HF_LAYERS,
        HF_HEADS,
        Field("M_kv", hf="num_kv_heads", hf_default=M),
        HF_WIDTH,
        Field("d_f", hf="ffn_hidden_size", hf_default=4 * d_e),
        # 1 or 2 norms per block; transformers' default with new_decoder_architecture is 2
        Field("split_ln", hf="num_ln_in_parallel_attn", hf_values={1: 0, 2: 1}, hf_default=1),
        Field("zeta", hf="bias", flag=True, hf_default=0),
        # the general layout, or the original one (FalconConfig's default multi_query: one
        # key/value head, which _parallel_keys reads such a file as)
        Field("kv_bcast", hf="new_decoder_architecture", hf_values={True: 1, False: 0},
              hf_default=0),
    ),
    restrictions=(
        Sets("num_ln_in_parallel_attn", _norms,
            why="the original layout's parallel block has one norm (kv_bcast = 0: split_ln adds none)"),
        Sets("parallel_attn", True, why="this formula is Falcon-7B/40B's parallel attention and MLP block"),
        Sets("tie_word_embeddings", True, why="Falcon-7B/40B's LM head is the token embedding (tied)"),
        Sets("alibi", False, why="Falcon-7B/40B use rotary positions, not ALiBi (neither holds a weight)"),
        Requires(
            "parallel_attn",
            (True,),
            why="this formula is of Falcon's parallel block (a "
                "sequential one is KerasHub's Falcon-RW layout: falcon)",
        ),
        Requires("tie_word_embeddings", (True,), why="Falcon's LM head is the token embedding (tied)"),
    ),
    hf_normalize=_parallel_keys,
    free=_HF_FREE - {"num_ln_in_parallel_attn", "num_kv_heads", "new_decoder_architecture"},
)

# FalconForCausalLM's names; the formula's own patterns are these (no Keras build exists).
_PARALLEL_WEIGHTS = {
    "embeddings.token": "transformer/word_embeddings",
    "blocks": r"transformer/h/\d+",
    "blocks.norm_attention": "input_layernorm|ln_attn",
    "blocks.norm_ffn": "ln_mlp",
    "blocks.attention": "self_attention",
    "blocks.attention.query_key_value": "query_key_value",
    "blocks.attention.output": "dense",
    "blocks.ffn": "mlp",
    "blocks.ffn.up": "dense_h_to_4h",
    "blocks.ffn.down": "dense_4h_to_h",
    "final_norm": "transformer/ln_f",
    "head": "lm_head",
}
_W = _PARALLEL_WEIGHTS

register(hf_causal_lm(
    "falcon_parallel",
    formula=group(
        "falcon_parallel",
        group("embeddings", embedding("token", v, match=_W["embeddings.token"]),
              rotary_positions()),
        group(
            "blocks",
            layer_norm("norm_attention", match=_W["blocks.norm_attention"]),
            # (the original layout's parallel block has one norm, whatever split_ln says)
            leaf("norm_ffn", 2 * d_e * split_ln * kv_bcast, match=_W["blocks.norm_ffn"],
                 note="layer norm of the MLP input, apart from the attention's (split_ln = 1, "
                      "in the general layout)",
                 kind="norm"),
            group(
                "attention",
                leaf("query_key_value", (M + 2 * M_kv) * d_k * (d_e + zeta),
                     match=_W["blocks.attention.query_key_value"],
                     note="M query heads and M_kv key and value heads, fused",
                     # each query's scores over M heads of d_k and the values they weigh; the
                     # general layout's cache keeps keys and values for all M heads:
                     # FalconAttention broadcasts the M_kv key and value heads to the M query
                     # heads before it caches them (num_kv_heads = num_heads under the new
                     # decoder architecture), M/M_kv times what the M_kv heads alone take,
                     # which the original layout caches
                     macs=(M + 2 * M_kv) * d_k * d_e, attends=2 * M * d_k,
                     caches=2 * d_k * (M_kv + kv_bcast * (M - M_kv))),
                dense("output", d_e, d_e, bias=zeta, match=_W["blocks.attention.output"]),
                match=_W["blocks.attention"],
                kind="attention",
            ),
            group(
                "ffn",
                dense("up", d_e, d_f, bias=zeta, match=_W["blocks.ffn.up"]),
                dense("down", d_f, d_e, bias=zeta, match=_W["blocks.ffn.down"]),
                match=_W["blocks.ffn"],
                kind="feed-forward",
            ),
            times=L,
            match=_W["blocks"],
            note="parallel residual: attention and MLP both read the block input",
        ),
        layer_norm("final_norm", match=_W["final_norm"]),
        zero("head", "tied: the output projection is the token embedding, transposed "
                     "(counted once)", kind="head", macs=d_e * v),
    ),
    required=(v, d_e, M, L),
    optional={M_kv: 1, d_f: 4 * d_e, split_ln: 0, zeta: 0, kv_bcast: 1},
    restrictions=(
        *rotary_heads("FalconConfig"),
        Holds(Relation(M_kv, "==", 1, when=1 - kv_bcast,
                       reason="the original layout's multi_query has one key/value head")),
    ),
    mapping=FALCON_PARALLEL_MAPPING,
    transformers=Transformers(weights=_PARALLEL_WEIGHTS),
))
