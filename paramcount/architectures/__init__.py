"""Built-in architectures, one module per family; each module registers its own.

:data:`MODULES` maps every built-in architecture id to the module (in this package) that
registers it: :func:`paramcount.registry.get` imports just that module, and
:func:`paramcount.registry.architectures` all of them. A new family adds its module here and its
ids to the map (``tests/test_registry.py`` checks that the two agree). Users' architectures are
found through ``--plugin`` / ``$PARAMCOUNT_PLUGINS`` or the ``paramcount.architectures``
entry-point group instead.
"""

from __future__ import annotations

MODULES: dict[str, str] = {
    "albert": "albert",
    "albert_masked_lm": "albert",
    "bart": "bart",
    "bert": "bert",
    "bert_masked_lm": "bert",
    "bloom": "bloom",
    "deberta_v3": "deberta_v3",
    "distil_bert": "distil_bert",
    "edrec": "edrec",
    "electra": "electra",
    "esm": "esm",
    "f_net": "f_net",
    "falcon": "falcon",
    "ffnn_lm": "ffnn_lm",
    "gemma": "gemma",
    "gemma3": "gemma3",
    "gemma3_embedding": "gemma3",
    "gemma3_vision": "gemma3_vision",
    "gemma4": "gemma4",
    "gpt2": "gpt2",
    "gpt2_causal_lm": "gpt2",
    "gpt_neo_x": "gpt_neo_x",
    "gpt_oss": "gpt_oss",
    "gru_lm": "rnn_lm",
    "llama": "llama",
    "llama3": "llama3",
    "lstm_lm": "rnn_lm",
    "mistral": "mistral",
    "mixed_rnn_lm": "rnn_lm",
    "mixed_seq2seq": "seq2seq",
    "mixtral": "mixtral",
    "moonshine": "moonshine",
    "nanogpt": "nanogpt",
    "opt": "opt",
    "pali_gemma": "pali_gemma",
    "phi3": "phi3",
    "qwen": "qwen",
    "qwen3": "qwen3",
    "qwen3_5": "qwen3_5",
    "qwen3_5_moe": "qwen3_5_moe",
    "qwen3_moe": "qwen3_moe",
    "qwen_moe": "qwen_moe",
    "roberta": "roberta",
    "roformer_v2": "roformer_v2",
    "rwkv7": "rwkv7",
    "seq2seq_attention": "seq2seq",
    "seq2seq_lstm": "seq2seq",
    "simple_rnn_lm": "rnn_lm",
    "smollm3": "smollm3",
    "t5": "t5",
    "t5gemma": "t5gemma",
    "t5gemma2": "t5gemma2",
    "transformer": "transformer_seq2seq",
    "transformer_decoder": "transformer",
    "transformer_encoder": "transformer",
    "tst": "tst",
    "vit": "vit",
    "whisper": "whisper",
    "xlm_roberta": "xlm_roberta",
    "xlnet": "xlnet",
}
