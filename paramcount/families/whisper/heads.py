"""Whisper's further transformers classes (:mod:`paramcount.model.heads`): none read, one
refused with its reason."""

from paramcount.model.heads import Classes

CLASSES = {"whisper": Classes(names={}, heads={}, refused={
    "WhisperForCausalLM": "it builds Whisper's decoder alone (assisted decoding's draft "
                          "model), which paramcount's Whisper does not count"})}
