"""T5Gemma 2's KerasHub presets that no preset file lists, each with the reason
(:func:`paramcount.model.keras_hub_meta.unlisted`)."""

# The text encoder-decoder is formulated (``t5gemma2``, examples only).
UNLISTED = dict.fromkeys(
    ("t5gemma2_270m_270m", "t5gemma2_1b_1b", "t5gemma2_4b_4b"),
    "T5Gemma 2: every released checkpoint holds a SigLIP vision encoder and two end-of-image "
    "embeddings, not yet formulated; only the text encoder-decoder (t5gemma2) is",
)
