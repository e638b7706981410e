"""Gemma 4's KerasHub presets that no preset file lists, each with the reason
(:func:`paramcount.model.keras_hub_meta.unlisted`)."""

# The dense text decoder is formulated (``gemma4``, examples only); the checkpoints hold more
# than it counts.
UNLISTED = {
    **dict.fromkeys(
        ("gemma4_2b", "gemma4_instruct_2b", "gemma4_4b", "gemma4_instruct_4b", "gemma4_31b",
         "gemma4_instruct_31b", "gemma4_instruct_2b_assistant", "gemma4_instruct_4b_assistant",
         "gemma4_instruct_31b_assistant"),
        "Gemma 4: multimodal checkpoint; its vision and audio encoders, per-layer input embeddings "
        "and key/value-sharing layers are not yet formulated, only the dense text decoder (gemma4); "
        "KerasHub's published figures are rounded"),
    **dict.fromkeys(
        ("gemma4_26b_a4b", "gemma4_instruct_26b_a4b", "gemma4_instruct_26b_a4b_assistant"),
        "Gemma 4 26B-A4B: its mixture-of-experts blocks and multimodal encoders are not yet "
        "formulated (gemma4 covers the dense text decoder)"),
}
