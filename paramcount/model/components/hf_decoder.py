"""The shape every transformers causal LM shares, under transformers' own names, for the families
only transformers builds (OLMo 2, OLMoE, Granite, Cohere, Phi, GPT-J): a token table, L blocks,
a final norm and an LM head (tied or not, with or without a bias). The family gives its block's
parts; :func:`attention` is grouped-query attention with the options these families switch
(biases, QK norms of either width); :func:`routed_experts` and :func:`stacked_expert` the
mixture-of-experts layer as their MoE classes hold it; :func:`lm_head` the head of a tree built
otherwise (hybrids, interleaved stacks)."""

from __future__ import annotations

from paramcount.core.formula import Term, group, leaf, zero
from paramcount.core.symbols import E, L, M, M_kv, d_e, d_f, d_k, tied, v
from paramcount.model.components.basic import dense, embedding, layer_norm
from paramcount.model.components.modern import k_act, mixture_of_experts, rms_norm, rotary_positions

__all__ = [
    "TIED_TO_TOKENS",
    "attention",
    "causal_lm",
    "lm_head",
    "plain_mlp",
    "qk_norms",
    "routed_experts",
    "stacked_expert",
    "tied_head",
]


# the head's note where it reads as the token embedding's transpose when tied
TIED_TO_TOKENS = "output projection (none when tied to the token embedding)"


def qk_norms(width: str, *, kind: str = "rms", key_dim=d_k,
             names: tuple[str, str] = ("q_norm", "k_norm"), on=1,
             beta=1) -> tuple[Term, Term]:
    """Query and key norms: per head (``width="head"``: d_k each, shared by the heads), or over
    all heads' outputs (``"full"``: M·d_k and M_kv·d_k, OLMo 2's), or one per head (``"heads"``:
    Cohere's M × d_k and M_kv × d_k). ``kind`` "rms" (scale) or "layer" (scale and, with
    ``beta``, shift).
    ``on``: a 0/1 symbol when the norms are optional."""
    q, k = {"head": (key_dim, key_dim), "full": (M * key_dim, M_kv * key_dim),
            "heads": (M * key_dim, M_kv * key_dim)}[width]
    if kind == "rms":
        return (rms_norm("query_norm", on * q, match=names[0]),
                rms_norm("key_norm", on * k, match=names[1]))
    return (layer_norm("query_norm", on * q, beta=beta, match=names[0]),
            layer_norm("key_norm", on * k, beta=beta, match=names[1]))


def attention(*, qkv_bias=0, o_bias=0, norms: tuple[Term, ...] = (), key_dim=d_k,
              names: tuple[str, str, str, str] = ("q_proj", "k_proj", "v_proj", "o_proj"),
              match: str = "self_attn") -> Term:
    """Grouped-query attention: M query and M_kv key/value heads of width ``key_dim``."""
    q, k, val, o = names
    return group(
        "attention",
        dense("query", d_e, M * key_dim, bias=qkv_bias, match=q),
        dense("key", d_e, M_kv * key_dim, bias=qkv_bias, match=k),
        dense("value", d_e, M_kv * key_dim, bias=qkv_bias, match=val),
        dense("output", M * key_dim, d_e, bias=o_bias, match=o),
        *norms,
        match=match,
        kind="attention",
    )


def causal_lm(name: str, *, block: tuple[Term, ...], final_norm: Term, head_bias=0,
              embed: str = "model/embed_tokens", layers: str = r"model/layers/\d+",
              positions: Term | None = None, note: str = "") -> Term:
    """Token table, L blocks of ``block``, ``final_norm`` and the LM head ``lm_head``: its
    weight d_e × v unless tied, its bias v when ``head_bias``."""
    return group(
        name,
        group("embeddings", embedding("token", v, match=embed),
              positions if positions is not None else rotary_positions()),
        group("blocks", *block, times=L, match=layers, note=note),
        final_norm,
        group("head",
              leaf("weight", (1 - tied) * d_e * v, match="weight", kind="head",
                   note=TIED_TO_TOKENS, macs=d_e * v),
              leaf("bias", head_bias * v, match="bias", kind="head", note="output bias", macs=0)
              if head_bias != 0 else None,
              match="lm_head", kind="head"),
    )


def tied_head(note: str = "tied: the output projection is the token embedding, transposed "
                           "(no weights of its own; it still multiplies, d_e·v per token)") -> Term:
    """An LM head tied to the token table: no parameters of its own, d_e·v multiply-accumulates
    per token (what a backbone formula adds where transformers' class carries the head)."""
    return zero("head", note, kind="head", macs=d_e * v)


def lm_head(note: str = "untied output projection (none when tied)") -> Term:
    """transformers' LM head ``lm_head``, a d_e × v projection without a bias, none when tied to
    the token embedding (for a tree that is not :func:`causal_lm`'s)."""
    return leaf("head", (1 - tied) * d_e * v, match="lm_head", kind="head", note=note,
                macs=d_e * v)


def routed_experts(expert: Term, *, match: str, router: str = "router", shared: Term | None = None) -> Term:
    """A transformers MoE layer ``match``: E copies of ``expert``, k per token, chosen by a
    bias-free router d_e → E (named ``router``), and an always-active ``shared`` expert if any."""
    return mixture_of_experts("moe", experts=E, top_k=k_act, expert=expert,
                              router=dense("router", d_e, E, bias=0, match=router), shared=shared, match=match)


def stacked_expert(inner, *, names: tuple[str, str] = ("gate_up_proj", "down_proj"),
                   match: str = "experts", per_expert: bool = False) -> Term:
    """One SwiGLU expert of width ``inner`` as transformers' MoE classes stack E of them: the
    gate and up projections in one E × 2·inner × d_e tensor, the down projection in one
    E × d_e × inner (no biases). For :func:`paramcount.model.components.modern.mixture_of_experts`,
    which multiplies it by E. ``per_expert``: the hybrids' notes (Jamba, Granite MoE hybrid),
    which say so, and call the down projection a feed-forward without a bias."""
    gate_up, down = names
    each = " per expert" if per_expert else ""
    return group(
        "expert",
        leaf("gate_up", 2 * d_e * inner, match=gate_up, kind="feed-forward",
             note=f"gate and up projections stored as one 2·{inner} × d_e tensor{each}",
             macs=2 * d_e * inner),
        leaf("down", inner * d_e, match=down, kind="feed-forward", note="no bias",
             macs=inner * d_e) if per_expert else
        dense("down", inner, d_e, bias=0, match=down),
        match=match,
    )


def plain_mlp(*, bias=1, inner=d_f, names: tuple[str, str] = ("c_fc", "c_proj"),
              match: str = "mlp") -> Term:
    """An ungated MLP d_e → ``inner`` → d_e (GELU between), its two projections with biases
    when ``bias`` (GPT-Neo's ``c_fc`` / ``c_proj``, StarCoder2's, GPT-J's ``fc_in`` /
    ``fc_out``)."""
    up, down = names
    return group("ffn", dense("up", d_e, inner, bias=bias, match=up),
                 dense("down", inner, d_e, bias=bias, match=down), match=match,
                 kind="feed-forward")
