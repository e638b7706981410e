"""The Vision Transformer (Dosovitskiy et al. 2021) as KerasHub builds it: ViTBackbone.

An H × W × C image is cut into (H/P)·(W/P) patches of P × P pixels; a strided convolution (one
P·P·C → d_e linear map per patch, with bias) embeds them; a learned class token is prepended and
learned positions added (one per patch, plus one for the class token); L pre-LN encoder blocks
(layer norm, multi-head attention, layer norm, GELU MLP) and a final layer norm follow.
KerasHub switches the biases of the attention (``use_mha_bias``: ζ), of the MLP (``use_mlp_bias``:
b_ffn) and of the patch convolution (``use_patch_bias``: b_patch) apart; all are on by default.

transformers' ViTModel builds the same encoder with three conventions of its own, each declared
below: its pooler (a tanh dense layer on the class token, ``add_pooling_layer=True`` by
default), an output projection whose bias ``qkv_bias`` does not switch (KerasHub's
``use_mha_bias`` removes all four attention biases), and no switch for the class token, the patch
bias or the MLP biases (always there).
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import C
from paramcount.core.symbols import H
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import P
from paramcount.core.symbols import W
from paramcount.core.symbols import b_ffn
from paramcount.core.symbols import b_patch
from paramcount.core.symbols import cls
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import HEADS
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import WIDTH
from paramcount.model.components import attention
from paramcount.model.components import dense
from paramcount.model.components import feed_forward
from paramcount.model.components import layer_norm
from paramcount.model.components.audio import on_positions
from paramcount.model.components.audio import over_keys
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("vit",)  # the ids this folder registers


# KerasHub's use_patch_bias and use_mlp_bias (b_ffn as SmolLM3 declares it)

n_patches = (H / P) * (W / P)
# the positions the encoder runs on, whatever T: the patches and the class token. Its forward
# costs are of B images at the image size H × W (paramcount.analyze.costs); it caches nothing.
positions = n_patches + cls


def _pooler_width(config: Mapping) -> Mapping:
    """transformers 5 writes ``pooler_output_size`` (None: hidden_size) into every ViT config it
    saves; the same width as hidden_size is the pooler the delta counts, so the key is dropped
    then, and any other width stays to be refused by name."""
    if config.get("pooler_output_size") in (None, config.get("hidden_size")):
        return {k: x for k, x in config.items() if k != "pooler_output_size"}
    return config


# symbol ↔ ViTBackbone argument ↔ ViTConfig key. KerasHub holds the image as one shape,
# image_shape = (H, W, C) (channels last: see data_format), and the patch as (P, P) (it turns an
# int into a pair before saving its config); transformers holds image_size (an int for a square
# image, or [H, W]) and patch_size (an int or a pair). A key ending in a number reads that
# element of the list (a plain number stands for each). Non-square patches are refused: the
# formula has one P (the two fields of P must agree).
MAPPING = family_table(
    # ViTForImageClassification (google/vit-base-patch16-224 and the other fine-tuned
    # checkpoints) adds a classifier paramcount's ViT backbone does not count: refused by name.
    "vit", hf="ViTModel", keras="ViTBackbone",
    fields=(
        Field("H", keras="image_shape.0", hf="image_size.0"),
        Field("W", keras="image_shape.1", hf="image_size.1"),
        Field("C", keras="image_shape.2", hf="num_channels", hf_default=3),
        Field("P", keras="patch_size.0", hf="patch_size.0"),
        Field("P", keras="patch_size.1", hf="patch_size.1"),
        LAYERS,
        HEADS,
        WIDTH,
        Field("d_f", keras="mlp_dim", hf="intermediate_size"),
        # ViTSelfAttention reads head_dim (getattr, d_e // M when absent; issue 32): refused
        # unless that
        HF_HEAD_DIM,
        # transformers' qkv_bias is KerasHub's use_mha_bias on q, k and v; the output bias
        # differs (a delta below)
        Field("zeta", keras="use_mha_bias", hf="qkv_bias", flag=True, keras_default=1,
              hf_default=1),
        Field("b_ffn", keras="use_mlp_bias", flag=True, keras_default=1),
        Field("cls", keras="use_class_token", flag=True, keras_default=1),
        Field("b_patch", keras="use_patch_bias", flag=True, keras_default=1),
    ),
    restrictions=(
        Sets("data_format", "channels_last", binds="keras",
            why="KerasHub's get_config does not save data_format: its presets are channels last, the default, and the "
                "reference builds them so; image_shape's order depends on it"),
        Requires(
            "data_format",
            ("channels_last",),
            binds="keras",
            why="image_shape is read as (height, width, channels)",
        ),
        Requires(
            "pooler_output_size",
            (),
            why="the pooler counted is hidden_size → hidden_size; another width is not in the "
                "formula",
        ),
    ),
    hf_normalize=_pooler_width,
)

# PyTorch names of ViTModel (transformers 5: layers.<i>, q_proj ... o_proj, mlp.fc1 / fc2).
TRANSFORMERS = Transformers(
    weights={
        "embeddings": "embeddings",
        "embeddings.patch": "patch_embeddings/projection",
        "embeddings.class_token": "cls_token",
        "embeddings.position": "position_embeddings",
        "blocks": r"layers/\d+",
        "blocks.norm_1": "layernorm_before",
        "blocks.attention": "attention",
        "blocks.attention.query": "q_proj",
        "blocks.attention.key": "k_proj",
        "blocks.attention.value": "v_proj",
        "blocks.attention.output": "o_proj",
        "blocks.attention.scores": "scores",
        "blocks.norm_2": "layernorm_after",
        "blocks.ffn": "mlp",
        "blocks.ffn.up": "fc1",
        "blocks.ffn.down": "fc2",
        "final_norm": "layernorm",
        "pooler": "pooler/dense",
    },
    deltas=(
        Delta("blocks.attention.output",
              dense("output", M * d_v, d_e, kind="attention",
                    note="o_proj: its bias is always there (qkv_bias switches q, k and v only)",
                    ).with_cost(tokens=positions),
              "transformers' ViT attention always biases its output projection; KerasHub's "
              "use_mha_bias = False drops all four biases (its converter maps qkv_bias to it)"),
        Delta("pooler",
              dense("pooler", d_e, d_e, kind="head",
                    note="ViTPooler: a tanh dense layer on the class token's final state",
                    ).with_cost(tokens=1),
              "transformers' ViTModel builds a pooler (add_pooling_layer=True, as from_pretrained "
              "loads the in21k checkpoints); KerasHub's ViTBackbone none"),
    ),
    # ViTModel's default, said here: the base model as transformers builds it for a config
    # naming ViTModel (ViTForImageClassification builds it without)
    kwargs={"add_pooling_layer": True},
    caches=False,  # an image encoder: its positions attend both ways, nothing is kept
    restrictions=(
        Fixed(cls, 1, binds="transformers", why="ViTModel always prepends a class token (and keeps its position row)"),
        Fixed(b_patch, 1, binds="transformers", why="ViTModel's patch convolution always has a bias"),
        Fixed(b_ffn, 1, binds="transformers", why="ViTModel's MLP layers always have biases"),
    ),
)

register(keras_hub_backbone(
    "vit",
    formula=group(
        "vit",
        group(
            "embeddings",
            leaf("patch", P * P * C * d_e + b_patch * d_e, match="patch_embedding", kind="embedding",
                 note="Conv2D, kernel P × P × C → d_e, stride P, with bias unless b_patch = 0: "
                      "one linear map per patch",
                 macs=P * P * C * d_e, tokens=n_patches),
            leaf("class_token", cls * d_e, match="class_token", kind="embedding",
                 note="a learned d_e vector prepended to the patches"),
            leaf("position", (n_patches + cls) * d_e, match="position_embedding", kind="position",
                 note="learned: one per patch, (H/P)·(W/P), plus one for the class token"),
            match="vit_patching_and_embedding",
        ),
        on_positions(group(  # the patches and the class token, attending both ways
            "blocks",
            layer_norm("norm_1", match="ln_1"),
            over_keys(attention(match="mha", bias=zeta), positions, positions, cached=False),
            layer_norm("norm_2", match="ln_2"),
            feed_forward(match="mlp", names=("dense_1", "dense_2"), bias=b_ffn),
            times=L,
            match=r"transformer_block_\d+",
        ), positions),
        layer_norm("final_norm", match="ln"),
    ),
    required=(H, P, d_e, M, d_f, L),
    optional={W: H, C: 3, cls: 1, zeta: 1, b_ffn: 1, b_patch: 1},
    restrictions=(
        *KERAS_FLOORED_HEADS,
        HEADS_FIT_WIDTH,
        Holds(Divisible(H, P), why="the patches tile the image's height"),
        Holds(Divisible(W, P), why="the patches tile the image's width"),
    ),
    reference="reference_models.vit:backbone",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
