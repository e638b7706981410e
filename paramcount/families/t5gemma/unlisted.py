"""T5Gemma's KerasHub presets that no preset file lists, each with the reason
(:func:`paramcount.model.keras_hub_meta.unlisted`)."""

UNLISTED = dict.fromkeys(
    ("t5gemma_ml_ml_ul2", "t5gemma_ml_ml_prefixlm", "t5gemma_ml_ml_ul2_it",
     "t5gemma_ml_ml_prefixlm_it"),
    "T5Gemma ML size: its shape is not confirmed from a published source offline",
)
