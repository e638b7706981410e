"""Gemma 3n's KerasHub presets that no preset file lists, each with the reason
(:func:`paramcount.model.keras_hub_meta.unlisted`)."""

# The text decoder is formulated (``gemma3n``), the rest of the checkpoint is not.
UNLISTED = dict.fromkeys(
    ("gemma3n_e2b", "gemma3n_e2b_it", "gemma3n_e4b", "gemma3n_e4b_it"),
    "Gemma 3n: multimodal checkpoint; its MobileNetV5 vision encoder and Conformer audio encoder "
    "(and their embedders) are not yet formulated, only the text decoder (gemma3n)",
)
