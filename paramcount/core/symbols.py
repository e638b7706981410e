"""The hyperparameter vocabulary: every symbol a formula may use, declared once.

The names follow "Anatomy of Neural Language Models" (Saleh & Paquelet, 2024). Each symbol is a
SymPy ``Symbol`` with integer assumptions; a *flag* is an integer restricted to 0 or 1 (zeta, the
"projections carry biases" switch of the paper, is the first of them).

Every built-in symbol is declared here, with its description, so the table is the same whatever
has been imported (``unknown symbol 'tied'`` and ``tied is not a hyperparameter of <id>`` must
not depend on import order). Users' modules declare further symbols with :func:`declare`;
:func:`get` and :func:`all_symbols` read the one table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy

from paramcount.core.errors import UnknownSymbolError, did_you_mean

__all__ = ["LAYER_FAMILIES", "SymbolInfo", "all_symbols", "declare", "get", "info", "layer_symbol"]


@dataclass(frozen=True)
class SymbolInfo:
    """One hyperparameter: its SymPy symbol, what it means, and whether it is a 0/1 flag."""

    symbol: sympy.Symbol
    description: str
    flag: bool = False
    # A count that may be zero: the layers of one kind in a heterogeneous stack (no dense
    # blocks at all is a valid model). Every other non-flag symbol is a positive integer.
    zero_ok: bool = False

    @property
    def name(self) -> str:
        return self.symbol.name


_TABLE: dict[str, SymbolInfo] = {}


def declare(name: str, description: str, *, flag: bool = False,
            zero_ok: bool = False, redeclare: bool = False) -> sympy.Symbol:
    """Declare a hyperparameter symbol (idempotent for identical declarations).

    ``zero_ok`` makes a non-flag symbol a non-negative count rather than a positive one.
    ``redeclare``: a declaration of another kind replaces an earlier one with the same
    description (a derivation's config field, whose kind is that derivation's: a count its base
    config sets to 0 where another type's is positive); else it is an error.
    """
    if flag or zero_ok:
        sym = sympy.Symbol(name, integer=True, nonnegative=True)
    else:
        sym = sympy.Symbol(name, integer=True, positive=True)
    known = _TABLE.get(name)
    if known is not None:
        if known.flag != flag or known.zero_ok != zero_ok:
            if not (redeclare and known.description == description):
                raise ValueError(f"symbol {name!r} declared twice with different kinds")
            _TABLE[name] = SymbolInfo(sym, description, flag, zero_ok)
            return sym
        return known.symbol
    _TABLE[name] = SymbolInfo(sym, description, flag, zero_ok)
    return sym


def get(name: str) -> sympy.Symbol:
    return info(name).symbol


# Per-layer widths of stacks whose layers differ (a stacked recurrent LM's, a stacked RNN
# encoder-decoder's): a family of symbols ``<base><i>`` (i ≥ 1) declared here by their
# pattern, so ``d_h3`` means the same thing, and is known or not the same way, whatever has been
# imported. Description templates take the layer's number.
LAYER_FAMILIES: dict[str, str] = {
    "d_h": "units of recurrent layer {i} of a stack whose layers differ",
    "d_enc": "units of encoder layer {i} (and of the decoder layer it starts)",
    "d_dec": "units of decoder layer {i} (below the encoder's depth: no state passed to it)",
}
_LAYER_NAME = re.compile(r"(" + "|".join(LAYER_FAMILIES) + r")([1-9][0-9]*)")


def layer_symbol(base: str, i: int) -> sympy.Symbol:
    """The width symbol of layer ``i`` (from 1) of the per-layer family ``base``."""
    if base not in LAYER_FAMILIES or i < 1:
        raise ValueError(f"no per-layer symbol {base}{i}")
    return declare(f"{base}{i}", LAYER_FAMILIES[base].format(i=i))


def info(name: str | sympy.Symbol) -> SymbolInfo:
    key = name.name if isinstance(name, sympy.Symbol) else name
    if key not in _TABLE and (m := _LAYER_NAME.fullmatch(key)):
        layer_symbol(m.group(1), int(m.group(2)))
    try:
        return _TABLE[key]
    except KeyError:
        # per-layer symbols are named by their family (``d_f<i>``), not one by one
        known = [*(k for k in _TABLE if not _LAYER_NAME.fullmatch(k)),
                 *(f"{b}<i>" for b in LAYER_FAMILIES)]
        raise UnknownSymbolError(did_you_mean(str(key), known, "symbol")) from None


def all_symbols() -> dict[str, SymbolInfo]:
    return dict(_TABLE)


# --- The paper's notation (DESIGN.md) ----------------------------------------------------------
v = declare("v", "vocabulary size")
n = declare("n", "maximum sequence length (learned positions); context length of an FFNN LM")
d_e = declare("d_e", "embedding / model width")
M = declare("M", "attention (query) heads")
M_kv = declare("M_kv", "key/value heads (grouped-query / multi-query attention)")
d_k = declare("d_k", "key (and query) width per head")
d_v = declare("d_v", "value width per head")
d_f = declare("d_f", "feed-forward inner width")
L = declare("L", "blocks (layers)")
L_enc = declare("L_enc", "encoder blocks")
L_dec = declare("L_dec", "decoder blocks")
d_h = declare("d_h", "hidden width of an RNN or FFNN LM")
E = declare("E", "experts in a mixture-of-experts layer")
zeta = declare("zeta", "1 when the attention projections carry biases, else 0", flag=True)
s = declare("s", "segment (token-type) vocabulary size")


# --- Further built-in symbols, declared here (not beside the code that uses them) so that every
# one exists whatever has been imported: messages and behaviour never depend on import order.
# The comment before each group says what it is for (the models that use it named as their
# authors name them). Family folders import these and declare none of their own: core/ sits below
# the families, and a symbol known only once its family is imported would make the message for
# an unknown name depend on what was imported.
# decoders
post_norm = declare("post_norm", "1 when attention and feed-forward outputs are RMS-normalised "
                                 "again before the residual add (Gemma 2/3 post-norms)", flag=True)
post_attn_norm = declare("post_attn_norm", "1 when the attention output is RMS-normalised again "
                                           "before the residual add (Gemma's use_post_attention_norm; "
                                           "defaults to post_norm)", flag=True)
post_ffw_norm = declare("post_ffw_norm", "1 when the feed-forward output is RMS-normalised again "
                                         "before the residual add (Gemma's use_post_ffw_norm; "
                                         "defaults to post_norm)", flag=True)
qk_norm = declare("qk_norm", "1 when queries and keys are RMS-normalised per head before attention "
                             "(QK norm)", flag=True)
# encoders
d_emb = declare("d_emb", "factorised token-embedding width (ALBERT, ELECTRA), projected to d_e")
L_g = declare("L_g", "ALBERT: groups of distinct blocks (num_groups); L/L_g layers share a group")
L_r = declare("L_r", "ALBERT: distinct blocks inside a group (num_inner_repetitions)")
eta = declare("eta", "1 when the embeddings are projected from d_emb to d_e by a dense layer", flag=True)
k_rel = declare("k_rel", "DeBERTa: relative-distance buckets each side (bucket_size); the shared "
                         "relative position table has 2·k_rel rows")
n_b = declare("n_b", "T5: relative-position buckets of the attention bias (32 in KerasHub)")
gated = declare("gated", "1 when the feed-forward is gated (GeGLU / SwiGLU: three matrices)", flag=True)
tied = declare("tied", "1 when the output head is the token embedding, transposed (tied)", flag=True)
# llama_like
d_fe = declare("d_fe", "feed-forward inner width of each routed expert")
d_fs = declare("d_fs", "feed-forward inner width of the always-active shared expert")
H_lk = declare("H_lk", "key (and query) heads of a linear-attention (gated DeltaNet) layer")
H_lv = declare("H_lv", "value heads of a linear-attention (gated DeltaNet) layer")
d_lk = declare("d_lk", "key (and query) width per head of a linear-attention layer")
d_lv = declare("d_lv", "value width per head of a linear-attention layer")
K_conv = declare("K_conv", "kernel width of the short causal convolution of a linear-attention "
                           "layer")
L_full = declare("L_full", "blocks with full (softmax) attention; the others use linear attention")
# modern
k = declare("k", "experts each token is routed to (top-k)")
# recurrent
bi = declare("bi", "1 when the recurrent layers are bidirectional (forward and backward, outputs "
                   "concatenated), else 0", flag=True)
reset_after = declare("reset_after", "1 when a GRU applies its reset gate after the recurrent "
                                     "product (Keras' default; a second bias per gate), else 0", flag=True)
# positions and embedding norms (ESM)
abs_pos = declare("abs_pos", "1 for a learned absolute position table, 0 for rotary positions (no "
                             "weights)", flag=True)
emb_norm = declare("emb_norm", "1 when the embeddings are layer-normed before the first block", flag=True)
# feed-forward LMs (Bengio et al.)
direct = declare("direct", "1 when an FFNN LM has Bengio's direct input-to-output connections (an "
                           "n·d_e × v matrix), else 0", flag=True)
# embedding models' pooling heads (EmbeddingGemma)
d_pool = declare("d_pool", "hidden width of an embedding model's pooling head (EmbeddingGemma)")
d_sent = declare("d_sent", "width of the sentence embedding an embedding model outputs")
# stacks (heterogeneous stacks: a count of one kind may be zero)
L_moe = declare("L_moe", "blocks whose feed-forward is the mixture of experts (the other L − "
                "L_moe are dense)", zero_ok=True)
L_dense = declare("L_dense", "blocks with a dense feed-forward in a mixture-of-experts stack "
                  "(L − L_moe)", zero_ok=True)
L_linear = declare("L_linear", "blocks with linear (gated DeltaNet) attention (L − L_full)",
                   zero_ok=True)
# stacks of global and sliding-window attention (Gemma 4)
L_global = declare("L_global", "blocks with global attention (the others attend in a sliding "
                   "window)", zero_ok=True)
L_local = declare("L_local", "blocks with sliding-window attention (L − L_global)", zero_ok=True)
d_kg = declare("d_kg", "key/query width per head of the global-attention layers")
M_kvg = declare("M_kvg", "key/value heads of the global-attention layers (with K = V)")
keqv = declare("keqv", "1 when global layers' keys double as values (attention_k_eq_v, with "
               "their own M_kvg heads), else 0", flag=True)
# audio (Whisper, Moonshine)
n_mels = declare("n_mels", "mel-filterbank channels of a speech model's spectrogram input")
n_audio = declare("n_audio", "audio positions the encoder's position table holds (Whisper: "
                  "max_encoder_sequence_length / 2, after the stride-2 convolution)")
# Moonshine
x_f = declare("x_f", "feed-forward expansion factor: d_f = x_f·d_e")
glu_enc = declare("glu_enc", "1 when the encoder's feed-forward is SwiGLU, 0 for GELU", flag=True)
glu_dec = declare("glu_dec", "1 when the decoder's feed-forward is SwiGLU, 0 for GELU", flag=True)
f_rot = declare("f_rot", "rotary inverse frequencies of the encoder's heads (⌊p·d_k⌋/2 for a "
                "partial rotary factor p)")
f_rot_dec = declare("f_rot_dec", "rotary inverse frequencies of the decoder's heads")
# nanoGPT
bias = declare("bias", "1 when every linear layer and layer norm carries a bias (nanoGPT's "
                       "GPTConfig.bias), else 0", flag=True)
# recurrent LMs and encoder-decoders
v_out = declare("v_out", "width of the output layer: the (target) vocabulary unless the head "
                         "predicts something else (classes, a shortlist)")
# vision (Gemma 3's and PaliGemma's image encoders; H and P below, with ViT's)
d_vis = declare("d_vis", "width of a vision-language model's image encoder (ViT hidden size)")
M_vis = declare("M_vis", "attention heads of the image encoder")
d_fvis = declare("d_fvis", "MLP inner width of the image encoder")
L_vis = declare("L_vis", "blocks of the image encoder")
# RWKV-7
r_w = declare("r_w", "rank of RWKV-7's low-rank decay map (decay_lora)")
r_a = declare("r_a", "rank of RWKV-7's low-rank in-context learning-rate map (aaa_lora)")
r_v = declare("r_v", "rank of RWKV-7's low-rank value-residual map (mv_lora)")
r_g = declare("r_g", "rank of RWKV-7's low-rank output-gate map (gate_lora)")
# RNN encoder-decoders (Sutskever et al., Bahdanau et al.)
v_src = declare("v_src", "source vocabulary size")
v_tgt = declare("v_tgt", "target vocabulary size")
d_a = declare("d_a", "width of additive (Bahdanau) attention: its alignment layer's units")
# bias switches (SmolLM3)
b_qkv = declare("b_qkv", "1 when the query, key and value projections carry biases, else 0", flag=True)
b_ffn = declare("b_ffn", "1 when the feed-forward projections carry biases, else 0", flag=True)
# encoder-decoders whose sides differ (T5Gemma)
d_e_dec = declare("d_e_dec", "decoder width, where an encoder-decoder's sides differ")
d_f_dec = declare("d_f_dec", "decoder feed-forward inner width")
M_dec = declare("M_dec", "decoder attention (query) heads")
M_kv_dec = declare("M_kv_dec", "decoder key/value heads")
d_k_dec = declare("d_k_dec", "decoder key/query/value width per head")
# encoder-decoders with one embedding table for both sides
shared = declare("shared", "1 when source and target share one embedding table, else 0", flag=True)
# time series (TST)
d_x = declare("d_x", "input features (variables) per time step of a multivariate series")
d_y = declare("d_y", "outputs of a supervised head: classes, or values to regress")
bn = declare("bn", "1 when the encoder blocks use batch normalization (TST), 0 for layer norm", flag=True)
pretrain = declare("pretrain", "1 for TST's pretraining head (reconstruct the d_x inputs at each "
                               "step), 0 for the supervised head (n·d_e → d_y)", flag=True)
# images (ViT)
H = declare("H", "image height in pixels")
W = declare("W", "image width in pixels")
P = declare("P", "patch side in pixels (P × P patches)")
C = declare("C", "image channels")
cls = declare("cls", "1 when a learned class token is prepended to the patches, else 0", flag=True)
# KerasHub's use_patch_bias (use_mlp_bias is b_ffn, above)
b_patch = declare("b_patch", "1 when the patch-embedding convolution carries a bias, else 0",
                  flag=True)
# Gemma 3n (KV sharing makes a heterogeneous stack: either kind may be absent)
L_kvs = declare("L_kvs", "blocks that reuse an earlier block's keys and values (KV sharing: "
                "the last num_kv_shared_layers)", zero_ok=True)
L_kvo = declare("L_kvo", "blocks that compute their own keys and values (L − L_kvs)",
                zero_ok=True)
v_p = declare("v_p", "rows of the per-layer input table (vocab_size_per_layer_input)")
d_p = declare("d_p", "width of each block's per-layer input (hidden_size_per_layer_input)")
A = declare("A", "copies of the hidden state AltUp carries (altup_num_inputs)")
r_l = declare("r_l", "rank of the LAuReL low-rank residual (laurel_rank)")
b_att = declare("b_att", "1 when the attention projections carry biases (attention_bias), else 0",
                flag=True)
altup_cs = declare("altup_cs", "1 when AltUp scales its corrected output by a learned d_e-wide "
                   "vector (altup_correct_scale), else 0", flag=True)
# parallel blocks (Falcon-7B/40B/180B)
split_ln = declare("split_ln", "1 when a parallel block has a layer norm for attention and one "
                   "for the MLP (Falcon-40B/180B), 0 when one norm feeds both (Falcon-7B)",
                   flag=True)
kv_bcast = declare("kv_bcast", "1 when the attention caches its M_kv key/value heads broadcast to "
                   "every one of the M query heads (Falcon's general layout, "
                   "new_decoder_architecture), 0 when it caches them as they are (Falcon-7B's "
                   "original multi-query layout: one head, cached as one)", flag=True)
# multi-head latent attention, shared experts, multi-token prediction (DeepSeek-V2/V3)
q_lora = declare("q_lora", "1 when queries pass through a low-rank bottleneck of rank r_q "
                 "(q_lora_rank set), 0 for a plain d_e → M·(d_nope + d_rope) projection",
                 flag=True)
r_q = declare("r_q", "rank of the low-rank query compression (q_lora_rank)")
r_kv = declare("r_kv", "rank of the compressed key-value latent (kv_lora_rank)")
d_nope = declare("d_nope", "query/key width per head without rotary positions (qk_nope_head_dim)")
d_rope = declare("d_rope", "decoupled rotary query/key width per head, the key's shared by all "
                 "heads (qk_rope_head_dim)")
E_s = declare("E_s", "always-active shared experts, each d_fe wide (n_shared_experts)")
E_sh = declare("E_sh", "always-active shared experts, each d_fe wide, possibly none (ERNIE 4.5's "
               "moe_num_shared_experts)", zero_ok=True)
n_mtp = declare("n_mtp", "multi-token-prediction modules stored beside the model "
                "(num_nextn_predict_layers)", zero_ok=True)
moe_lat = declare("moe_lat", "1 when routed experts work on a latent projection of width d_lat "
                  "(Nemotron-H's moe_latent_size set), else 0 (on d_e)", flag=True)
d_lat = declare("d_lat", "width of the latent the routed experts work on (moe_latent_size)")
mtp_tab = declare("mtp_tab", "1 when each stored multi-token-prediction module holds its own "
                  "copy of the token table and output head (DeepSeek-V3, GLM-4.5), 0 when it "
                  "shares the main model's (GLM-4.6)", flag=True)
# selective state-space models (Mamba, Mamba-2)
x_in = declare("x_in", "expansion of a state-space (Mamba) mixer: its inner width is x_in·d_e "
               "(expand)")
d_state = declare("d_state", "state size N per channel of a state-space mixer (state_size)")
r_dt = declare("r_dt", "rank of Mamba's time-step projection (time_step_rank)")
b_conv = declare("b_conv", "1 when the mixer's causal convolution carries a bias, else 0",
                 flag=True)
b_proj = declare("b_proj", "1 when the mixer's in/out projections carry biases, else 0",
                 flag=True)
H_ssm = declare("H_ssm", "heads of a Mamba-2 mixer (num_heads)")
G_ssm = declare("G_ssm", "groups sharing B and C in a Mamba-2 mixer (n_groups)")
d_ssm = declare("d_ssm", "head width of a Mamba-2 mixer (head_dim: x_in·d_e / H_ssm)")
# DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2)
H_idx = declare("H_idx", "heads of DeepSeek-V3.2's lightning indexer (index_n_heads)")
d_idx = declare("d_idx", "head width of DeepSeek-V3.2's lightning indexer (index_head_dim)")
# a biased LM head (PhiMoE)
b_head = declare("b_head", "1 when the LM head carries a bias (lm_head_bias), else 0", flag=True)
# hybrids (Jamba, Nemotron-H, Granite 4, Falcon-H1, Zamba 2): state-space among attention blocks
L_att = declare("L_att", "blocks whose mixer is attention in a hybrid state-space stack (the "
                "others are state-space)", zero_ok=True)
L_ssm = declare("L_ssm", "blocks whose mixer is a state-space (Mamba) mixer in a hybrid stack "
                "(L − L_att)", zero_ok=True)
L_mlp = declare("L_mlp", "blocks that are a feed-forward alone in a hybrid stack (Nemotron-H's "
                "MLP blocks)", zero_ok=True)
moe = declare("moe", "1 when every block holds the routed experts beside its shared MLP "
              "(Granite 4: num_local_experts > 0), else 0", flag=True)
ssm_norm = declare("ssm_norm", "1 when the Mamba-2 mixer RMS-normalises its gated output "
                   "(Falcon-H1's mamba_rms_norm), else 0", flag=True)
b_out = declare("b_out", "1 when the Mamba mixer's output projection carries a bias (Falcon-H1's "
                "projectors_bias), else 0", flag=True)
L_hyb = declare("L_hyb", "layers that also run a shared attention block (Zamba 2's hybrid layers)",
                zero_ok=True)
B_mem = declare("B_mem", "distinct shared attention blocks (Zamba 2's num_mem_blocks), reused in "
                "turn by the hybrid layers")
r_ad = declare("r_ad", "rank of the per-layer low-rank adapters of a shared block (adapter_rank)")
att_ad = declare("att_ad", "1 when the shared attention's q, k, v carry per-layer adapters "
                 "(use_shared_attention_adapter), else 0", flag=True)
# memory and compute (paramcount.model.cost): what a forward or a cache costs beside the weights
T = declare("T", "context: tokens per sequence (a forward over T tokens; a cache after T)")
B = declare("B", "batch: sequences run together")
w = declare("w", "sliding window of the windowed attention layers (transformers' sliding_window)")
Q_ssd = declare("Q_ssd", "chunk length of a Mamba-2 mixer's chunked SSD scan (transformers' "
                "chunk_size or mamba_chunk_size): a cost, no weight")
