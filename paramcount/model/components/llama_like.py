"""Pieces shared by the Llama lineage of KerasHub decoders (Llama, Llama 3, Mistral, Mixtral,
Qwen 2/2.5, Qwen MoE, Qwen 3, Qwen 3 MoE).

All of them hold the same skeleton, and name its weights the same way:

- ``token_embedding`` — a ``ReversibleEmbedding``: the token table ``embeddings`` (v × d_e) and,
  unless the head is tied, a separate output projection ``reverse_embeddings`` (d_e × v);
- ``transformer_layer_i`` — pre-norm blocks: RMS norm ``self_attention_layernorm``, grouped-query
  attention ``self_attention`` (``query``/``key``/``value``/``attention_output`` EinsumDense
  layers, rotary positions), RMS norm ``feedforward_layernorm``, then a SwiGLU feed-forward or a
  mixture of SwiGLU experts;
- ``sequence_output_layernorm`` — the final RMS norm.

RMS norms here hold a scale and no shift; there is no learned position table (RoPE).
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

from paramcount.core.formula import Term, group, leaf, zero
from paramcount.core.symbols import (
    B,
    E,
    H_lk,
    H_lv,
    K_conv,
    L,
    L_full,
    L_linear,
    M,
    M_kv,
    T,
    d_e,
    d_f,
    d_fe,
    d_fs,
    d_k,
    d_lk,
    d_lv,
    tied,
    v,
)
from paramcount.model.components.basic import attention, dense, embedding
from paramcount.model.components.modern import (
    gated_feed_forward,
    k_act,
    mixture_of_experts,
    rms_norm,
    rotary_positions,
)
from paramcount.model.components.ssm import conv_flops
from paramcount.model.components.stacks import LayerKinds

__all__ = [
    "HF_GEMMA2_NORMS",
    "backbone",
    "d_fe",
    "d_fs",
    "decoder_blocks",
    "delta_rule_flops",
    "embeddings",
    "final_norm",
    "gqa_attention",
    "hf_decoder_names",
    "moe_swiglu",
    "output_head",
    "swiglu",
    "tied",
]


BLOCK = r"transformer_layer_\d+"


def embeddings(match: str = "token_embedding/embeddings") -> Term:
    """The token table (its weights under ``match``: KerasHub's ``ReversibleEmbedding`` by
    default, transformers' ``model/embed_tokens`` in the transformers-only families); positions
    are rotary, computed and not learned."""
    return group(
        "embeddings",
        embedding("token", v, match=match),
        rotary_positions(),
    )


def output_head(tie=tied) -> Term:
    """The LM head KerasHub keeps inside the backbone: ``reverse_embeddings`` (d_e × v), absent
    when the head is the token embedding transposed (``tie`` = 1)."""
    if tie == 1:
        return zero("head", "tied: the output projection is the token embedding, transposed",
                    kind="head", macs=d_e * v)
    note = ("untied output projection (ReversibleEmbedding.reverse_embeddings)" if tie == 0 else
            "output projection: d_e × v when untied, nothing when tied to the token embedding")
    return leaf("head", (1 - tie) * d_e * v, match="token_embedding/reverse_embeddings",
                note=note, kind="head", macs=d_e * v)


def gqa_attention(*, bias=0, key_dim=d_k, qk_norm: bool = False) -> Term:
    """Grouped-query self-attention: M query heads and M_kv key/value heads of width ``key_dim``.

    ``bias`` is a (q, k, v, o) tuple or one value for all four (Qwen 2: ``(1, 1, 1, 0)``).
    ``qk_norm`` adds the per-head RMS norms Qwen 3 applies to queries and keys (``key_dim`` each).
    """
    att = attention(
        "attention", match="self_attention", heads=M, kv_heads=M_kv, key_dim=key_dim,
        value_dim=key_dim, bias=bias,
    )
    if not qk_norm:
        return att
    return group(
        "attention",
        *att.children,
        rms_norm("query_norm", key_dim, match="query_dense_layernorm"),
        rms_norm("key_norm", key_dim, match="key_dense_layernorm"),
        match="self_attention",
        kind="attention",
    )


def swiglu(name: str = "ffn", inner=d_f, *, match: str | None = None) -> Term:
    """SwiGLU feed-forward, no biases: gate and up ``d_e → inner``, down ``inner → d_e``."""
    return gated_feed_forward(name, inner=inner, bias=0, match=match)


def moe_swiglu(
    *,
    block: str,
    inner=d_f,
    fused_gate_up: bool = False,
    experts=E,
    top_k=k_act,
    shared: Term | None = None,
) -> Term:
    """A mixture of SwiGLU experts as KerasHub holds it: a bias-free router ``d_e → E``
    (``sparse_feedforward_gate_dense``) and the experts' weights stacked along a leading E axis
    (``experts/expert_feedforward_*``), optionally with an always-active shared expert.

    ``block`` is the regex of the MoE layer's own (auto-generated) name. With ``fused_gate_up``
    the gate and up projections are one (E, d_e, 2·inner) tensor, as Qwen's MoE layers keep them.
    """
    if fused_gate_up:
        expert = group(
            "expert",
            leaf("gate_up", 2 * d_e * inner, match="expert_feedforward_gate_dense", macs=2 * d_e * inner,
                 note="gate and up projections stored as one d_e × 2·inner tensor"),
            dense("down", inner, d_e, bias=0, match="expert_feedforward_output_dense"),
            match="experts",
        )
    else:
        expert = gated_feed_forward(
            "expert", inner=inner, bias=0, match="experts",
            names=("expert_feedforward_gate_dense", "expert_feedforward_intermediate_dense",
                   "expert_feedforward_output_dense"),
        )
    return mixture_of_experts(
        "moe",
        experts=experts,
        top_k=top_k,
        expert=expert,
        router=dense("router", d_e, experts, bias=0, match="sparse_feedforward_gate_dense"),
        shared=shared,
        match=block,
    )


def decoder_blocks(ffn: Term, *, attention_term: Term | None = None, times=L,
                   norm: Callable[..., Term] = rms_norm) -> Term:
    """``times`` pre-norm decoder blocks: norm, attention, norm, ``ffn``. ``norm`` builds each
    norm from its name and ``match`` (RMS norm, the lineage's; a family with another norm passes
    its own, e.g. ``layer_norm``, instead of copying the group)."""
    return group(
        "blocks",
        norm("attention_norm", match="self_attention_layernorm"),
        attention_term if attention_term is not None else gqa_attention(),
        norm("ffn_norm", match="feedforward_layernorm"),
        ffn,
        times=times,
        match=BLOCK,
    )


def final_norm() -> Term:
    return rms_norm("final_norm", match="sequence_output_layernorm")


def backbone(name: str, blocks: Term, *, tie=tied) -> Term:
    """The whole backbone: embeddings, blocks, final norm and (KerasHub keeps it here) the head."""
    return group(name, embeddings(), blocks, final_norm(), output_head(tie))


def closed_form_dense(*, tie=tied, bias_qkv=0, qk_norm=0, key_dim=d_k) -> sympy.Expr:
    """The dense Llama-lineage count written out by hand, for cross-checking the tree:

    v·d_e·(2 − tied) + d_e + L·(d_e·d_k·(2M + 2M_kv) + bias·d_k·(M + 2M_kv)
                               + 2·qk_norm·d_k + 3·d_e·d_f + 2·d_e)
    """
    per_block = (d_e * key_dim * (2 * M + 2 * M_kv) + bias_qkv * key_dim * (M + 2 * M_kv)
                 + 2 * qk_norm * key_dim + 3 * d_e * d_f + 2 * d_e)
    return v * d_e * (2 - tie) + d_e + L * per_block


# --- Qwen 3.5: hybrid blocks, gated DeltaNet linear attention and gated full attention ----------


def gated_delta_net(name: str = "linear_attention", *, match: str = "linear_attn") -> Term:
    """Gated DeltaNet (Yang et al. 2025) as KerasHub's Qwen 3.5 holds it, no biases anywhere:
    one projection to queries, keys and values (2·H_lk·d_lk + H_lv·d_lv wide), a depthwise causal
    convolution of width K_conv over those channels, an output gate z (H_lv·d_lv), per-head
    β and decay inputs b and a (H_lv each), a per-head decay A (log) and time-step bias, a gated
    RMS norm of width d_lv shared by the heads, and the output projection."""
    conv_dim = 2 * H_lk * d_lk + H_lv * d_lv
    return group(
        name,
        dense("qkv", d_e, conv_dim, bias=0, match="in_proj_qkv"),
        leaf("conv", conv_dim * K_conv, match="conv1d_kernel", flops=0,  # the layer's own
             note="depthwise causal convolution over the q, k, v channels (no bias)"),
        dense("z_gate", d_e, H_lv * d_lv, bias=0, match="in_proj_z"),
        dense("beta", d_e, H_lv, bias=0, match="in_proj_b"),
        dense("decay", d_e, H_lv, bias=0, match="in_proj_a"),
        leaf("A_log", H_lv, match="A_log", note="per-head decay rate (log)", flops=0),
        leaf("dt_bias", H_lv, match="dt_bias", note="per-head time-step bias", flops=0),
        rms_norm("norm", d_lv, match="norm"),
        dense("output", H_lv * d_lv, d_e, bias=0, match="out_proj"),
        leaf("scan", 0, match="scan", flops=conv_flops(conv_dim) + delta_rule_flops(),
             state=conv_dim * K_conv + H_lv * d_lk * d_lv,
             note="no parameters; the layer's own products (transformers' torch path): the "
                  "causal convolution and the chunked gated delta rule; it caches the "
                  "convolution's last K_conv inputs and a d_lk × d_lv state per value head"),
        match=match,
        kind="attention",
    )


def delta_rule_flops(chunk: int = 64) -> sympy.Expr:
    """FLOPs of transformers' chunked gated delta rule (``torch_chunk_gated_delta_rule``, chunks
    of Q = ``chunk``, c = ⌈T/Q⌉, keys repeated to the H_lv value heads) as torch counts them: per
    head and chunk, two Q × Q products of keys (β-scaled keys and queries against the keys, d_lk
    wide), the read and the write of the d_lk × d_lv state (three Q·d_lk·d_lv products) and the
    chunk's scores times the new values (Q²·d_lv); its two triangular solves torch counts none."""
    c = sympy.ceiling(T / chunk)
    q = sympy.Integer(chunk)
    return 2 * B * H_lv * c * (2 * q**2 * d_lk + 3 * q * d_lk * d_lv + q**2 * d_lv)


def gated_attention(name: str = "full_attention", *, key_dim=d_k) -> Term:
    """Qwen 3.5's full attention: grouped-query with QK norm and an output gate, the query
    projection producing queries and the sigmoid gate together (M·2·d_k wide)."""
    return group(
        name,
        dense("query", d_e, M * 2 * key_dim, bias=0, match="query",
              note="queries and their output gate: M·2·d_k").with_cost(scores=M * key_dim),
        dense("key", d_e, M_kv * key_dim, bias=0, match="key"),
        dense("value", d_e, M_kv * key_dim, bias=0, match="value"),
        dense("output", M * key_dim, d_e, bias=0, match="attention_output"),
        rms_norm("query_norm", key_dim, match="query_norm"),
        rms_norm("key_norm", key_dim, match="key_norm"),
        match="self_attention",
        kind="attention",
    )


def _full_or_linear(i: int, *, layer_types: list[str] | None = None,
                    full_attention_interval: int = 4) -> str:
    """Qwen 3.5's rule: ``layer_types[i]``, else every ``full_attention_interval``-th layer
    (the last of each group) uses full attention."""
    if layer_types is not None:
        return "full" if layer_types[i] == "full_attention" else "linear"
    return "full" if (i + 1) % full_attention_interval == 0 else "linear"


FULL_AND_LINEAR = LayerKinds((("full", L_full), ("linear", L_linear)), _full_or_linear)


def hybrid_blocks(ffn: Term) -> Term:
    """Qwen 3.5's L blocks, a heterogeneous stack (:data:`FULL_AND_LINEAR`): each an RMS norm, a
    token mixer (full attention in L_full of them, gated DeltaNet in the other L_linear), an RMS
    norm and ``ffn``."""
    return FULL_AND_LINEAR.stack(
        "blocks",
        common=(rms_norm("mixer_norm", match="input_layernorm"),
                rms_norm("ffn_norm", match="post_attention_layernorm"), ffn),
        per_kind={"full": (gated_attention(),), "linear": (gated_delta_net(),)},
        match=BLOCK,
        note="L blocks: full attention in L_full of them, gated DeltaNet in the other L_linear",
    )


def hf_decoder_names(*, prefix: str = "model", layers: str = r"layers/\d+",
                     norms: tuple[str, str] = ("norm_1", "norm_2"),
                     ffn: bool = True) -> dict[str, str]:
    """transformers' names of a Llama-lineage decoder (LlamaForCausalLM, GemmaForCausalLM,
    GptOssForCausalLM, PaliGemma's language model) on the tree's component paths, for a
    :class:`paramcount.model.frameworks.Transformers`' ``weights``: ``prefix/embed_tokens``, blocks
    ``layers`` with ``input_layernorm``, ``self_attn`` (q/k/v/o_proj), ``post_attention_layernorm``
    and, with ``ffn``, the gated ``mlp`` (gate/up/down_proj), then ``prefix/norm``. ``norms``
    names the tree's two block norms (Llama's ``attention_norm`` / ``ffn_norm``)."""
    names = {
        "embeddings.token": f"{prefix}/embed_tokens",
        "blocks": layers,
        f"blocks.{norms[0]}": "input_layernorm",
        "blocks.attention": "self_attn",
        "blocks.attention.query": "q_proj",
        "blocks.attention.key": "k_proj",
        "blocks.attention.value": "v_proj",
        "blocks.attention.output": "o_proj",
        f"blocks.{norms[1]}": "post_attention_layernorm",
        "final_norm": f"{prefix}/norm",
    }
    if ffn:
        names |= {"blocks.ffn": "mlp", "blocks.ffn.gate": "gate_proj",
                  "blocks.ffn.up": "up_proj", "blocks.ffn.down": "down_proj"}
    return names


# Gemma 2's (and Gemma 3's) block norms in transformers: post_attention_layernorm *after*
# attention, pre_feedforward_layernorm before the feed-forward, post_feedforward_layernorm after.
HF_GEMMA2_NORMS = {
    "blocks.post_attention_norm": "post_attention_layernorm",
    "blocks.norm_2": "pre_feedforward_layernorm",
    "blocks.post_ffw_norm": "post_feedforward_layernorm",
}
