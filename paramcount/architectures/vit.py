"""The Vision Transformer (Dosovitskiy et al. 2021) as KerasHub builds it: ViTBackbone.

An H × W × C image is cut into (H/P)·(W/P) patches of P × P pixels; a strided convolution (one
P·P·C → d_e linear map per patch, with bias) embeds them; a learned class token is prepended and
learned positions added (one per patch, plus one for the class token); L pre-LN encoder blocks
(layer norm, multi-head attention, layer norm, GELU MLP) and a final layer norm follow.
KerasHub switches the biases of the attention (``use_mha_bias``: ζ), of the MLP (``use_mlp_bias``:
b_ffn) and of the patch convolution (``use_patch_bias``: b_patch) apart; all are on by default.
"""

from __future__ import annotations

from paramcount.components import attention, feed_forward, layer_norm
from paramcount.components.basic import EVEN_HEADS, HEADS_FIT
from paramcount.formula import group, leaf
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import C, H, L, M, P, W, b_ffn, b_patch, cls, d_e, d_f, zeta

# KerasHub's use_patch_bias and use_mlp_bias (b_ffn as SmolLM3 declares it)

n_patches = (H / P) * (W / P)

register(Architecture(
    id="vit",
    title="ViT backbone (keras_hub.models.ViTBackbone): patch embedding, class token, positions",
    source="Dosovitskiy et al. 2021, section 3.1; keras_hub/src/models/vit/vit_backbone.py",
    formula=group(
        "vit",
        group(
            "embeddings",
            leaf("patch", P * P * C * d_e + b_patch * d_e, match="patch_embedding", kind="embedding",
                 note="Conv2D, kernel P × P × C → d_e, stride P, with bias unless b_patch = 0: "
                      "one linear map per patch"),
            leaf("class_token", cls * d_e, match="class_token", kind="embedding",
                 note="a learned d_e vector prepended to the patches"),
            leaf("position", (n_patches + cls) * d_e, match="position_embedding", kind="position",
                 note="learned: one per patch, (H/P)·(W/P), plus one for the class token"),
            match="vit_patching_and_embedding",
        ),
        group(
            "blocks",
            layer_norm("norm_1", match="ln_1"),
            attention(match="mha", bias=zeta),
            layer_norm("norm_2", match="ln_2"),
            feed_forward(match="mlp", names=("dense_1", "dense_2"), bias=b_ffn),
            times=L,
            match=r"transformer_block_\d+",
        ),
        layer_norm("final_norm", match="ln"),
    ),
    required=(H, P, d_e, M, d_f, L),
    optional={W: H, C: 3, cls: 1, zeta: 1, b_ffn: 1, b_patch: 1},
    fixed=EVEN_HEADS,
    constraints=(HEADS_FIT, Divisible(H, P), Divisible(W, P)),
    reference="reference_models.vit:backbone",
    counting="trainable weights of the backbone: patch embedding, class token, positions, L "
             "encoder blocks, final norm; no classification head",
    presets="vit",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(H=32, P=8, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(H=21, W=14, P=7, C=5, d_e=15, M=5, d_f=13, L=3),
        "grayscale_no_class_token": dict(H=28, P=4, C=1, d_e=16, M=2, d_f=24, L=2, cls=0),
        "no_attention_bias": dict(H=16, W=24, P=8, d_e=12, M=3, d_f=20, L=1, zeta=0),
        "no_mlp_or_patch_bias": dict(H=16, P=4, d_e=20, M=3, d_f=24, L=2, b_ffn=0, b_patch=0),
    },
    family="keras_hub",
))
