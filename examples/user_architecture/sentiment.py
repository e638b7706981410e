"""A user-defined architecture, registered from outside paramcount: a small sentiment classifier.

token + learned position embeddings → L transformer encoder blocks → mean over positions →
(optionally) a dense tanh pooler → a dense classifier over c classes.

Everything paramcount does for a built-in architecture works for it once this module is loaded:

    paramcount --plugin examples/user_architecture/sentiment.py formula sentiment
    paramcount --plugin examples/user_architecture/sentiment.py count sentiment --preset house_base
    PARAMCOUNT_PLUGINS=examples/user_architecture/sentiment.py paramcount verify sentiment
    PARAMCOUNT_PLUGINS=examples/user_architecture/sentiment.py paramcount report

(a module name works as well as a file: `--plugin mypkg.paramcount_archs`). In Python or a
notebook, importing the module registers it. The four steps are marked below.

Keep Keras out of the module's top level (import it inside the builder): `formula` and `count`
then never import TensorFlow, as for the built-ins.
"""

from __future__ import annotations

from pathlib import Path

from paramcount.core import symbols
from paramcount.core.formula import group, leaf, zero
from paramcount.core.hparams import Divisible, Relation
from paramcount.core.restrictions import Fixed, Holds
from paramcount.core.symbols import L, M, d_e, d_f, d_k, d_v, n, v, zeta
from paramcount.model.components import dense, embedding, encoder_block, position_embedding
from paramcount.model.registry import Architecture, register

# 1. Symbols the built-in vocabulary lacks: a size and a 0/1 option flag, each with its meaning.
c = symbols.declare("c", "output classes of a classifier head")
pooler = symbols.declare("pooler", "1 when a dense tanh pooler precedes the classifier",
                         flag=True)

# 2. The formula, composed from paramcount's components. Each `match` names the Keras layers the
#    term covers (a regex over whole segments of the weight paths the builder below produces:
#    `embeddings/token_embedding/embeddings`, `encoder_0/self_attention_layer/query/kernel`, ...).
FORMULA = group(
    "sentiment",
    group(
        "embeddings",
        embedding("token", v, match="token_embedding"),
        position_embedding(n),
        match="embeddings",
    ),
    encoder_block(times=L, match=r"encoder_\d+"),
    zero("pooling", "mean over positions: computed, no parameters"),
    leaf("pooler", pooler * (d_e * d_e + d_e), match="pooler",
         note="dense d_e → d_e with bias, present when pooler = 1"),
    dense("head", d_e, c, match="classifier", kind="head", note="dense d_e → c with bias"),
)


# 3. The Keras builder: a callable taking the resolved hyperparameters (symbol name -> int).
#    Built inside a StatelessScope, no weight is allocated: any size verifies in a blink.
def build(hp: dict[str, int]):
    import keras
    import keras_hub

    with keras.StatelessScope(initialize_variables=False):
        ids = keras.Input((hp["n"],), dtype="int32", name="token_ids")
        x = keras_hub.layers.TokenAndPositionEmbedding(
            hp["v"], hp["n"], hp["d_e"], name="embeddings")(ids)
        for i in range(hp["L"]):
            x = keras_hub.layers.TransformerEncoder(hp["d_f"], hp["M"], name=f"encoder_{i}")(x)
        x = keras.layers.GlobalAveragePooling1D(name="pooling")(x)
        if hp["pooler"]:
            x = keras.layers.Dense(hp["d_e"], activation="tanh", name="pooler")(x)
        out = keras.layers.Dense(hp["c"], name="classifier")(x)
        return keras.Model(ids, out, name="sentiment")


# 4. Register: required and optional hyperparameters, the restrictions (what the implementation
#    fixes, the constraints, each with why), presets from a TOML file of your own, and small
#    example sets (each flag value) that `verify` checks along with the presets.
SENTIMENT = register(Architecture(
    id="sentiment",
    title="Sentiment classifier (user-defined example): transformer encoder, mean pooling, head",
    source="examples/user_architecture/sentiment.py (keras_hub TransformerEncoder layers)",
    formula=FORMULA,
    required=(v, n, d_e, M, d_f, L, c),
    optional={pooler: 0},
    restrictions=(
        Fixed(d_k, d_e / M, why="the heads split the width"),
        Fixed(d_v, d_e / M, why="the heads split the width"),
        Fixed(zeta, 1, why="keras_hub's TransformerEncoder always has attention biases"),
        Holds(Divisible(d_e, M), why="the heads split the width"),
        Holds(Relation(c, ">=", 2, reason="a classifier needs at least two classes")),
    ),
    reference=build,  # or "mypkg.models:build", imported only when verifying
    counting="trainable weights of the whole classifier: embeddings, encoder blocks, pooler (if "
             "any) and head",
    presets=Path(__file__).with_name("sentiment_presets.toml"),
    examples={
        "tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2, c=3),
        "odd_pooled": dict(v=97, n=7, d_e=30, M=5, d_f=50, L=3, c=2, pooler=1),
    },
    family="user",
))
