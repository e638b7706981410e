"""DeepSeek's pieces (DeepSeek-AI 2024, "DeepSeek-V2"; 2024, "DeepSeek-V3 Technical Report"):
multi-head latent attention, the mixture of routed plus shared experts, and the
multi-token-prediction module, named as transformers' DeepseekV2/V3ForCausalLM names them.

Multi-head latent attention (MLA) caches one compressed latent per token instead of keys and
values per head:

- queries: ``q_a_proj`` d_e → r_q, an RMS norm of r_q, ``q_b_proj`` r_q → M·(d_nope + d_rope)
  (q_lora = 1); or one plain ``q_proj`` d_e → M·(d_nope + d_rope) when ``q_lora_rank`` is null
  (DeepSeek-V2-Lite, q_lora = 0);
- keys and values: ``kv_a_proj_with_mqa`` d_e → r_kv + d_rope (the latent c_KV and the decoupled
  rotary key, one for all heads), an RMS norm of r_kv, ``kv_b_proj`` r_kv → M·(d_nope + d_v)
  (each head's non-rotary key and its value);
- ``o_proj`` M·d_v → d_e. No biases (``attention_bias`` false in every released model).
"""

from __future__ import annotations

from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import (
    E,
    E_s,
    H_idx,
    M,
    d_e,
    d_fe,
    d_idx,
    d_nope,
    d_rope,
    d_v,
    q_lora,
    r_kv,
    r_q,
    v,
)
from paramcount.model.components.basic import dense, embedding, layer_norm
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.modern import gated_feed_forward, k_act, mixture_of_experts, rms_norm

__all__ = ["deepseek_moe", "dsa_indexer", "latent_attention", "mtp_module", "swiglu_hf"]


def dsa_indexer(name: str = "indexer", *, match: str = "indexer") -> Term:
    """DeepSeek-V3.2's lightning indexer (DeepSeek Sparse Attention), which picks the keys each
    query attends to: H_idx small heads of width d_idx, their queries from the low-rank query
    latent (``wq_b`` r_q → H_idx·d_idx), one key from the hidden state (``wk`` d_e → d_idx) with a
    layer norm (γ and β), and per-head weights (``weights_proj`` d_e → H_idx)."""
    return group(
        name,
        dense("query", r_q, H_idx * d_idx, bias=0, match="wq_b"),
        dense("key", d_e, d_idx, bias=0, match="wk"),
        layer_norm("key_norm", d_idx, match="k_norm"),
        dense("head_weights", d_e, H_idx, bias=0, match="weights_proj"),
        match=match,
        kind="attention",
    )


def latent_attention(name: str = "attention", *, match: str = "self_attn",
                     indexer: Term | None = None) -> Term:
    """Multi-head latent attention (see the module docstring), in q_lora, r_q, r_kv, d_nope,
    d_rope and d_v; M query heads (MLA has no separate key/value heads). ``indexer``: V3.2's.

    What it costs beside its projections: each query's scores and weighted values over every
    head's decompressed key (d_nope + d_rope) and value (d_v), 2·B·T·T·M·(d_nope + d_rope + d_v);
    its cache holds what ``kv_a_proj_with_mqa`` makes, the latent and the rotary key, r_kv +
    d_rope a token (transformers caches them compressed: keys (B, 1, T, r_kv), values (B, 1, T,
    d_rope)). An indexer below it (:func:`dsa_indexer`) adds its own scores, 2·B·T·T·H_idx·(d_idx
    + 1) (H_idx heads' products with every cached key, then their weighted sum), and its cached
    key, d_idx a token, in the same layer of the cache: one claim covers both, the attention's
    (its scores and cache are measured below it, at ``indexer/``)."""
    qk = d_nope + d_rope
    attends, caches = M * (qk + d_v), r_kv + d_rope
    if indexer is not None:
        attends, caches = attends + H_idx * (d_idx + 1), caches + d_idx
    return group(
        name,
        dense("query_down", d_e, q_lora * r_q, bias=0, match="q_a_proj",
              note="low-rank query compression d_e → r_q (when q_lora = 1)"),
        rms_norm("query_norm", q_lora * r_q, match="q_a_layernorm"),
        dense("query_up", q_lora * r_q, M * qk, bias=0, match="q_b_proj",
              note="r_q → M·(d_nope + d_rope): each head's query, non-rotary and rotary parts"),
        leaf("query", (1 - q_lora) * d_e * M * qk, match="q_proj", kind="attention",
             note="plain query projection d_e → M·(d_nope + d_rope) (when q_lora = 0)",
             macs=(1 - q_lora) * d_e * M * qk),
        dense("kv_down", d_e, r_kv + d_rope, bias=0, match="kv_a_proj_with_mqa",
              note="the compressed key-value latent (r_kv) and the decoupled rotary key "
                   "(d_rope), one for all heads").with_cost(attends=attends, caches=caches),
        rms_norm("kv_norm", r_kv, match="kv_a_layernorm"),
        dense("kv_up", r_kv, M * (d_nope + d_v), bias=0, match="kv_b_proj",
              note="r_kv → each head's non-rotary key (d_nope) and value (d_v)"),
        dense("output", M * d_v, d_e, bias=0, match="o_proj"),
        indexer,
        match=match,
        kind="attention",
    )


def swiglu_hf(name: str, inner, *, match: str | None = None) -> Term:
    """A bias-free SwiGLU under transformers' names (``gate_proj``, ``up_proj``, ``down_proj``)."""
    return gated_feed_forward(name, inner=inner, bias=0, match=match,
                              names=("gate_proj", "up_proj", "down_proj"))


def deepseek_moe(*, score_bias: bool, match: str = "mlp") -> Term:
    """DeepSeekMoE: a bias-free router d_e → E (``gate``), E routed SwiGLU experts of width d_fe
    stacked as ``gate_up_proj`` (E × 2·d_fe × d_e) and ``down_proj``, and E_s shared experts held
    as one SwiGLU of width E_s·d_fe (``shared_experts``), which every token uses.

    ``score_bias``: DeepSeek-V3's router adds a per-expert bias to the affinity scores when it
    picks the top k (auxiliary-loss-free load balancing). It is adjusted by a rule between
    steps, not by gradients: transformers holds it as a persistent buffer
    (``e_score_correction_bias``), saved with the weights and not trainable."""
    router = group(
        "router",
        leaf("weight", E * d_e, match="weight", kind="router",
             note="expert affinities d_e → E, no bias", d_in=d_e, d_out=E),
        leaf("score_bias", E, match="e_score_correction_bias", trainable=False, kind="router",
             note="per-expert score-correction bias for top-k selection (a buffer: updated by "
                  "the load-balancing rule, not trained)", macs=0) if score_bias else None,
        match="gate",
        kind="router",
    )
    shared = swiglu_hf("shared", E_s * d_fe, match="shared_experts")
    return mixture_of_experts("moe", experts=E, top_k=k_act, expert=stacked_expert(d_fe), router=router,
                              shared=shared, match=match)


def mtp_module(block_parts: tuple[Term, ...], *, times, tables=1) -> Term:
    """DeepSeek-V3's multi-token-prediction module (technical report, section 2.2), ``times``
    of them: RMS norms of the next token's embedding and of the main model's hidden state
    (``enorm``, ``hnorm``), their concatenation projected 2·d_e → d_e (``eh_proj``), one decoder
    block like the model's sparse ones, a final RMS norm, and an embedding and output head. The
    paper shares the embedding and head with the main model; the released checkpoint stores
    them again inside the module (its "14B of MTP weights" count them); ``tables`` (1, or a flag
    such as mtp_tab) says whether the module stores those copies."""
    return group(
        "mtp",
        rms_norm("embedding_norm", match="enorm"),
        rms_norm("hidden_norm", match="hnorm"),
        dense("projection", 2 * d_e, d_e, bias=0, match="eh_proj", kind="projection",
              note="the normed embedding and hidden state, concatenated, 2·d_e → d_e"),
        group("block", *block_parts, kind=None),
        rms_norm("final_norm", match="shared_head/norm"),
        embedding("token", tables * v, match="embed_tokens",
                  note="a copy of the token table, stored in the checkpoint's module"),
        leaf("head", tables * d_e * v, match="shared_head/head", kind="head",
             note="a copy of the output head, stored in the checkpoint's module"),
        times=times,
        note="multi-token prediction: stored in the checkpoint, not built by transformers",
    )
