"""Components of KerasHub's encoder and encoder-decoder text models (seed 003 and issue 4):
BERT-style embedding stacks, factorised embeddings (ALBERT, ELECTRA), cross-layer sharing
(ALBERT), DeBERTa's relative position table, FNet's Fourier mixing, T5's relative position bias
and its bias-free, β-free blocks.

The symbols these families add are declared here, once, with what they mean.
"""

from __future__ import annotations

from paramcount.core.formula import Term, group, leaf, zero
from paramcount.core.symbols import L_g, L_r, M, d_e, d_emb, d_f, eta, gated, k_rel, n, n_b, s, tied, v, zeta
from paramcount.model.components.basic import (
    attention,
    dense,
    embedding,
    feed_forward,
    layer_norm,
    position_embedding,
)
from paramcount.model.frameworks import Delta

__all__ = [
    "L_g",
    "L_r",
    "d_emb",
    "encoder_decoder_embeddings",
    "encoder_decoder_outputs",
    "encoder_stack",
    "eta",
    "factorised_embeddings",
    "fourier_mixing",
    "full_width_attention_output",
    "gated",
    "k_rel",
    "n_b",
    "relative_bias",
    "relative_position_table",
    "t5_attention",
    "t5_feed_forward",
    "t5_norms",
    "tied",
    "token_position_embeddings",
]

# --- symbols -------------------------------------------------------------------------------------


# --- embeddings ---------------------------------------------------------------------------------
def token_position_embeddings(
    *,
    width=d_e,
    positions=n,
    segments=None,
    norm: str | None = "embeddings_layer_norm",
    token_match: str = "token_embedding",
    position_match: str = "position_embedding",
    segment_match: str = "segment_embedding",
    name: str = "embeddings",
    match: str | None = None,
) -> Term:
    """Token, learned-position and (optionally) segment tables of ``width``, and a layer norm
    (``norm`` None: none; the group's own weights under ``match``, where a layer holds them)."""
    return group(
        name,
        embedding("token", v, width, match=token_match),
        position_embedding(positions, width, match=position_match),
        None if segments is None else embedding("segment", segments, width, match=segment_match),
        None if norm is None else layer_norm("norm", width, match=norm),
        match=match,
    )


def factorised_embeddings(*, projection=1, projection_match: str = "embedding_projection",
                          segments=s) -> Term:
    """ALBERT's and ELECTRA's embeddings: tables of width d_emb (not d_e), a layer norm at d_emb,
    then a dense projection d_emb → d_e (present when ``projection`` is 1; a flag may gate it)."""
    base = token_position_embeddings(width=d_emb, segments=segments)
    proj = dense("projection", d_emb, d_e, match=projection_match,
                 note="factorised embedding: V×d_emb table then d_emb×d_e projection",
                 kind="projection")
    if projection != 1:
        proj = leaf("projection", projection * (d_emb * d_e + d_e), match=projection_match,
                    note="d_emb×d_e projection with bias; absent (η = 0) when d_emb = d_e",
                    kind="projection", macs=projection * d_emb * d_e)
    return group("embeddings", *base.children, proj)


def encoder_stack(times, *, match: str = r"transformer_layer_\d+", name: str = "blocks",
                  note: str = "") -> Term:
    """L post-LN ``keras_hub.layers.TransformerEncoder`` blocks (biases everywhere)."""
    return group(
        name,
        attention(match="self_attention_layer", bias=zeta),
        layer_norm("norm_1", match="self_attention_layer_norm"),
        feed_forward(),
        layer_norm("norm_2", match="feedforward_layer_norm"),
        times=times,
        match=match,
        note=note,
    )


# --- FNet -----------------------------------------------------------------------------------------
def fourier_mixing(name: str = "mixing") -> Term:
    return zero(name, "Fourier mixing: a 2-D DFT over sequence and hidden axes (real part), "
                      "no learned weights in place of self-attention", kind="other")


# --- DeBERTa --------------------------------------------------------------------------------------
def relative_position_table(name: str = "relative_positions") -> Term:
    """DeBERTa-v3's shared relative position embeddings: 2·k_rel rows of width d_e and their
    layer norm, used by every layer's disentangled attention (projected by the layer's own query
    and key projections, so no further weights)."""
    return group(
        name,
        embedding("table", 2 * k_rel, d_e, match="rel_embedding$",
                  note="2·k_rel relative-distance buckets, shared by all layers",
                  kind="attention"),  # an input of every layer's attention, not a token's vector
        layer_norm("norm", match="rel_embeddings_layer_norm"),
        match="rel_embedding",
    )


# --- T5 -------------------------------------------------------------------------------------------
def t5_attention(name: str, match: str, *, kind: str = "attention") -> Term:
    """T5 attention: four bias-free projections through M·d_k inner width."""
    return attention(name, match=match, bias=0, kind=kind,
                     names=("query_projector", "key_projector", "value_projector",
                            "output_projector"))


def t5_feed_forward() -> Term:
    """T5 feed-forward without biases; v1.1 (``gated`` = 1) adds a gate matrix (GeGLU)."""
    return group(
        "ffn",
        dense("up", d_e, d_f, bias=0, match="input_projector"),
        leaf("gate", gated * d_e * d_f, match="gate_projector",
             note="gated feed-forward (T5 v1.1 GeGLU) only: absent when gated = 0",
             macs=gated * d_e * d_f),
        dense("down", d_f, d_e, bias=0, match="output_projector"),
        kind="feed-forward",
    )


def t5_norms(count: int) -> Term:
    """The ``count`` T5 layer norms of a block: RMS norms with a scale and no β."""
    return leaf(
        "norms", count * d_e, match=r"t5_layer_norm(_\d+)?", kind="norm",
        note=f"{count} T5 layer norms (RMS, scale only, no β) of d_e; KerasHub leaves them "
             "unnamed, so they are one term",
    )


def relative_bias(times=2) -> Term:
    return leaf(
        "relative_position_bias", n_b * M, times=times, match="self_attention/embeddings",
        kind="attention",
        note="T5 relative position bias: an n_b × M table in the first self-attention layer of "
             "the encoder and of the decoder, reused by the layers above (first layer only)",
        macs=0,  # a lookup of a bucket's M biases: it multiplies nothing
    )



def mlm_head() -> Term:
    """KerasHub's MaskedLMHead as BertMaskedLM, RobertaMaskedLM, XLMRobertaMaskedLM and
    DistilBertMaskedLM build it: a d_e→d_e dense, a layer norm, and the output bias; the output
    projection is the token embedding (tied)."""
    return group(
        "mlm_head",
        dense("transform", d_e, d_e, match="intermediate_dense"),
        layer_norm("norm", match="intermediate_layer_norm"),
        leaf("output_bias", v, match="output_bias",
             note="the output projection is the token embedding (tied); only its bias is new",
             macs=0),
        match="mlm_head",
        kind="head",
    )


def full_width_attention_output(cls: str) -> Delta:
    """transformers' ALBERT and ELECTRA attention (``cls`` names the class): the query, key and
    value are M·⌊d_e/M⌋ wide, as KerasHub's, but the output projection is
    ``nn.Linear(hidden_size, hidden_size)``, d_e → d_e whatever the heads concatenate to.
    Neither class refuses d_e not divisible by M (its check is skipped when the config has
    ``embedding_size``, which these configs always have), so such a set builds; the delta is 0
    when M divides d_e (every published model)."""
    return Delta(
        "blocks.attention.output",
        dense("output", d_e, d_e,
              note=f"{cls}: nn.Linear(hidden_size, hidden_size), d_e inputs although the heads "
                   "give M·⌊d_e/M⌋ (a forward pass of such a model fails on the shapes; the "
                   "count is of what is built)"),
        f"{cls}'s attention output projection is d_e → d_e, KerasHub's M·⌊d_e/M⌋ → d_e (the "
        "heads' concatenated width): they differ when M does not divide d_e, which neither "
        "refuses")


def encoder_decoder_embeddings(decoder_width) -> tuple[Term, Term]:
    """An encoder-decoder backbone's token tables as KerasHub's T5Gemma (and T5Gemma 2) hold them:
    the encoder's, v × d_e, and the decoder's, v × ``decoder_width``, which is also the tied LM
    head (a ReversibleEmbedding's ``embeddings``)."""
    return (
        embedding("encoder_token_embedding", v, d_e, match="encoder_token_embedding", note="v × d_e encoder table"),
        leaf("decoder_token_embedding", v * decoder_width, match="decoder_token_embedding/embeddings",
             kind="embedding", note=f"v × {decoder_width} decoder table (the tied LM head)"),
    )


def encoder_decoder_outputs(norms, *, head_width, whose: str) -> tuple[Term, Term]:
    """An encoder-decoder backbone's ends as KerasHub's T5Gemma (and T5Gemma 2) hold them: the
    encoder's and the decoder's output RMS norms, which it leaves unnamed (one term of ``norms``
    weights; ``whose`` says whose), and the decoder's LM head, ``head_width`` × v, kept in the
    backbone and zero when tied."""
    return (
        leaf("final_norms", norms, match=r"rms_normalization(_\d+)?", kind="norm",
             note=f"{whose} output RMS norms; KerasHub leaves them unnamed, so they are one term"),
        leaf("head", (1 - tied) * head_width * v, match="decoder_token_embedding/reverse_embeddings",
             kind="head",
             note=f"untied {head_width} × v LM head; zero when tied (every released checkpoint)",
             macs=head_width * v),  # tied or not, it multiplies
    )


def mlm_decoder(width=d_e) -> Delta:
    """transformers' MLM output projection, a module of its own (``decoder``) whose weight is the
    token table (tied, counted there): a zero-parameter term whose compute, ``width`` → v per
    token, the FLOPs tree reads (its pattern the family's ``mlm_head.decoder``)."""
    return Delta("mlm_head.decoder",
                 zero("decoder", "the output projection is the token table (tied): no weights "
                      "of its own", kind="head", macs=width * v),
                 "transformers' output projection is a module of its own, its weight the token "
                 "table's (tied): no parameters, its compute d_e → v per token")
