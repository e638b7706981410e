"""FNet (Lee-Thorp et al. 2022) as KerasHub builds it: FNetBackbone.

BERT's layout with self-attention replaced by Fourier mixing: a 2-D discrete Fourier transform
(real part) over the sequence and hidden axes, which has no parameters. A block is that mixing,
a layer norm, the feed-forward network and a second layer norm. The embeddings (token, position,
segment, their norm) are followed by a d_e → d_e dense projection, as in the original code.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import s
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import FFN
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import POSITIONS_512
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.model.components import dense
from paramcount.model.components import feed_forward
from paramcount.model.components import layer_norm
from paramcount.model.components.encoders import fourier_mixing
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("f_net",)  # the ids this folder registers


# symbol ↔ FNetBackbone argument ↔ FNetConfig key.
MAPPING = family_table(
    # FNetForPreTraining / FNetForMaskedLM (the published checkpoints) add heads KerasHub's
    # backbone does not have: refused by name.
    "f_net", hf="FNetModel", keras="FNetBackbone", model_type="fnet",
    fields=(
        VOCAB, LAYERS, WIDTH, FFN, POSITIONS_512,
        Field("s", keras="num_segments", hf="type_vocab_size", keras_default=4, hf_default=4),
    ),
    restrictions=(
        Sets("use_tpu_fourier_optimizations", False,
            why="the TPU Fourier path is another computation of the same parameter-free mixing; the formula "
                "follows the default one"),
        Requires(
            "use_tpu_fourier_optimizations",
            (False,),
            why="transformers then keeps each layer's DFT matrices (d_e² + tpu_short_seq_length² complex "
                "entries) as saved buffers, with SciPy; without SciPy transformers 5.23 fails to build",
        ),
    ),
)

register(keras_hub_backbone(
    "f_net",
    formula=group(
        "f_net",
        group("embeddings", *token_position_embeddings(segments=s).children,
              dense("projection", d_e, d_e, match="embedding_projection", kind="projection",
                    note="dense d_e → d_e after the embedding norm")),
        group(
            "blocks",
            fourier_mixing(),
            layer_norm("norm_1", match="mixing_layer_norm"),
            feed_forward(names=("intermediate_dense", "output_dense")),
            layer_norm("norm_2", match="output_layer_norm"),
            times=L,
            match=r"f_net_layer_\d+",
        ),
        dense("pooler", d_e, d_e, match="pooled_dense", kind="head").with_cost(tokens=1),
    ),
    required=(v, n, d_e, d_f, L),
    optional={s: 4},
    mapping=MAPPING,
    transformers=Transformers(caches=False, weights={  # an encoder: FNetModel returns no cache
        "embeddings.token": "embeddings/word_embeddings",
        "embeddings.position": "embeddings/position_embeddings",
        "embeddings.segment": "embeddings/token_type_embeddings",
        "embeddings.norm": "embeddings/LayerNorm",
        "embeddings.projection": "embeddings/projection",
        "blocks": r"encoder/layer/\d+",
        "blocks.norm_1": "fourier/output/LayerNorm",
        "blocks.ffn.up": "intermediate/dense",
        "blocks.ffn.down": r"\d+/output/dense",
        "blocks.norm_2": r"\d+/output/LayerNorm",
        "pooler": "pooler/dense",
    }),
))
