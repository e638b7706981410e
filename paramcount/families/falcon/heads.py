"""Falcon's further transformers classes (:mod:`paramcount.model.heads`), for both of its
layouts (FalconForCausalLM builds either)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import GPT
from paramcount.model.heads import standard

CLASSES = {
    "falcon": standard("Falcon", *ALL, heads=GPT, base="transformer"),  # head: the tied delta
    "falcon_parallel": standard("Falcon", *ALL, heads=GPT, base="transformer"),
}
