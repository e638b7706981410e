"""Pieces shared by the decoder-only KerasHub families (OPT, GPT-NeoX, BLOOM, Falcon, Phi-3, Gemma,
Gemma 3, SmolLM3, GPT-OSS): their option flags and the few layer shapes the generic components
do not cover (a fused query-key-value projection, per-head QK norms, Gemma's post-norms).
"""

from __future__ import annotations

from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import (
    L,
    M,
    M_kv,
    d_e,
    d_k,
    post_attn_norm,
    post_ffw_norm,
    post_norm,
    qk_norm,
    v,
    zeta,
)
from paramcount.model.components.basic import attention, dense, embedding, feed_forward, layer_norm
from paramcount.model.components.modern import alibi

__all__ = [
    "alibi_decoder",
    "alibi_decoder_names",
    "fused_qkv",
    "gemma_attention",
    "post_attn_norm",
    "post_ffw_norm",
    "post_norm",
    "post_norms",
    "qk_norm",
    "qk_norms",
]


def alibi_decoder(name: str, *, embedding_norm: str | None, attention_match: str,
                  norm_names: tuple[str, str], ffn_names: tuple[str, str]) -> Term:
    """BLOOM's and Falcon-RW's backbone: a token embedding (BLOOM adds a layer norm after it),
    ALiBi (no parameters), L sequential pre-LN blocks with full multi-head attention and biases on
    every projection, a final layer norm. The families differ only in their layers' names."""
    return group(
        name,
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            None if embedding_norm is None else layer_norm("norm", match=embedding_norm),
            alibi(),
        ),
        group(
            "blocks",
            layer_norm("norm_1", match=norm_names[0]),
            attention("attention", match=attention_match, bias=zeta,
                      names=("query_dense", "key_dense", "value_dense", "output_dense")),
            layer_norm("norm_2", match=norm_names[1]),
            feed_forward(names=ffn_names),
            times=L,
            match=r"transformer_layer_\d+",
        ),
        layer_norm("final_norm", match="final_layernorm"),
    )



def alibi_decoder_names(prefix: str = "", *,
                        embedding_norm: str | None = None) -> dict[str, str | tuple[str, tuple]]:
    """transformers' names of :func:`alibi_decoder`'s tree (BloomForCausalLM's, and
    FalconForCausalLM's in the Falcon-RW layout), under ``prefix`` (Falcon's ``transformer/``),
    with BLOOM's ``embedding_norm``. Query, key and value are one fused ``query_key_value`` of
    3·d_e outputs, interleaved per head; each third holds a projection's d_e² weights and d_e
    biases, which the slices claim."""
    return {
        "embeddings.token": f"{prefix}word_embeddings",
        **({"embeddings.norm": embedding_norm} if embedding_norm else {}),
        "blocks": rf"{prefix}h/\d+",
        "blocks.norm_1": "input_layernorm",
        "blocks.attention": "self_attention",
        "blocks.attention.query": ("query_key_value", (0, 3)),
        "blocks.attention.key": ("query_key_value", (1, 3)),
        "blocks.attention.value": ("query_key_value", (2, 3)),
        "blocks.attention.output": "dense",
        "blocks.norm_2": "post_attention_layernorm",
        "blocks.ffn": "mlp",
        "blocks.ffn.up": "dense_h_to_4h",
        "blocks.ffn.down": "dense_4h_to_h",
        "final_norm": f"{prefix}ln_f",
    }


def fused_qkv(name: str = "query_key_value", *, width=d_e, heads=M, key_dim=d_k, bias=1,
              match: str = "query_key_value") -> Term:
    """One projection producing queries, keys and values for every head (GPT-NeoX).

    Same count as three separate projections: ``3·M·d_k`` outputs of ``width`` inputs, plus biases.
    """
    return leaf(name, width * 3 * heads * key_dim + bias * 3 * heads * key_dim, match=match,
                note="queries, keys and values from one fused projection", kind="attention",
                macs=width * 3 * heads * key_dim, attends=2 * heads * key_dim,
                caches=2 * heads * key_dim)


def qk_norms(flag=qk_norm, key_dim=d_k) -> tuple[Term, Term]:
    """RMS norms over each head's query and key vectors: one scale of ``d_k``, shared by heads."""
    return (
        leaf("query_norm", flag * key_dim, match="query_norm",
             note="RMS norm over each query head (scale of d_k shared by the heads)", kind="norm"),
        leaf("key_norm", flag * key_dim, match="key_norm",
             note="RMS norm over each key head (scale of d_k shared by the heads)", kind="norm"),
    )


def gemma_attention(*, with_qk_norm=None) -> Term:
    """Gemma's attention: M query heads, M_kv key/value heads of width d_k, no biases anywhere.

    ``d_k`` is free (Gemma 7B: 16·256 = 4096 ≠ d_e = 3072); M_kv = 1 is multi-query attention.
    """
    parts = [
        dense("query", d_e, M * d_k, bias=0, match="query"),
        dense("key", d_e, M_kv * d_k, bias=0, match="key"),
        dense("value", d_e, M_kv * d_k, bias=0, match="value"),
    ]
    if with_qk_norm is not None:
        parts += list(qk_norms(with_qk_norm))
    parts.append(dense("output", M * d_k, d_e, bias=0, match="attention_output"))
    return group("attention", *parts, match="attention", kind="attention")


def post_norms(flag=post_norm, ffw_flag=None) -> tuple[Term, Term]:
    """Gemma 2/3's extra RMS norms on the attention output (when ``flag``) and the feed-forward
    output (when ``ffw_flag``, by default the same ``flag``): KerasHub switches them apart
    (``use_post_attention_norm``, ``use_post_ffw_norm``)."""
    ffw_flag = flag if ffw_flag is None else ffw_flag
    return (
        leaf("post_attention_norm", flag * d_e, match="post_attention_norm",
             note=f"RMS norm (scale only) on the attention output; none when {flag} = 0",
             kind="norm"),
        leaf("post_ffw_norm", ffw_flag * d_e, match="post_ffw_norm",
             note=f"RMS norm (scale only) on the feed-forward output; none when {ffw_flag} = 0",
             kind="norm"),
    )
