"""BERT's checkpoints, and the GGUF table of llama.cpp's ``bert``, which BERT, RoBERTa,
XLM-RoBERTa and DistilBERT all convert as: without the pooler and MLM heads (and RoBERTa's
padding position rows), its layout and vocabulary saying which encoder a file holds."""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.model.checkpoint_tables import NOT_REGISTERED
from paramcount.model.checkpoint_tables import Dropped
from paramcount.model.checkpoint_tables import GGUFTable

# llama.cpp's BertModel converter (its filter_tensors), which RoBERTa, XLM-RoBERTa and
# DistilBERT convert through: "we are only using BERT for embeddings"
_DROPS = (
    Dropped("pooler dropped by the converter", "llama.cpp's converter skips BertModel's pooler "
            "(pooler.dense): it writes BERT for embeddings only", ("pooler.dense.weight",
                                                                   "pooler.dense.bias")),
    Dropped("MLM head dropped by the converter", "llama.cpp's converter skips the masked-LM "
            "head (BERT's cls.predictions, DistilBERT's vocab_*): it writes the encoder only",
            tuple(f"cls.predictions.{n}" for n in (
                "transform.dense.weight", "transform.dense.bias", "transform.LayerNorm.weight",
                "transform.LayerNorm.bias", "bias", "decoder.weight", "decoder.bias"))
            + tuple(f"vocab_{n}" for n in (
                "transform.weight", "transform.bias", "layer_norm.weight", "layer_norm.bias",
                "projector.weight", "projector.bias"))),
    Dropped("padding position rows trimmed by the converter", "position ids start at "
            "pad_token_id + 1 (fairseq's offset): llama.cpp's RoBERTa and XLM-RoBERTa converters "
            "cut the rows before it from position_embd", ("embeddings.position_embeddings.weight",),
            rows=("pad_token_id", 1), model_types=("roberta", "xlm-roberta")),
)


def _encoder(meta: Mapping, shapes: Mapping) -> dict:
    """Which encoder a bert file holds, and its config: DistilBERT has no token-type table;
    XLM-RoBERTa a SentencePiece (``t5``) vocabulary, RoBERTa a BPE (``gpt2``) one (or a one-row
    type table), their context length cut by the pad_token_id + 1 position rows the converter
    trims; BERT the rest."""
    width, ffn = meta["embedding_length"], meta["feed_forward_length"]
    layers, heads, n = meta["block_count"], meta["attention.head_count"], meta["context_length"]
    types = shapes.get("token_types.weight")
    if types is None:
        return {"model_type": "distilbert", "architectures": ["DistilBertModel"], "dim": width,
                "hidden_dim": ffn, "n_layers": layers, "n_heads": heads,
                "max_position_embeddings": n}
    rows = types[0] if len(types) == 2 else 1  # a one-row table may be stored squeezed
    tok, pad = meta.get("tokenizer.ggml.model"), meta.get("tokenizer.ggml.padding_token_id")
    base = {"hidden_size": width, "intermediate_size": ffn, "num_hidden_layers": layers,
            "num_attention_heads": heads, "type_vocab_size": rows}
    if tok in ("t5", "gpt2") or rows == 1:
        pad = pad if isinstance(pad, int) else 1
        kind = ("xlm-roberta", "XLMRobertaModel") if tok == "t5" else ("roberta", "RobertaModel")
        return {**base, "model_type": kind[0], "architectures": [kind[1]], "pad_token_id": pad,
                "max_position_embeddings": n + pad + 1}
    return {**base, "model_type": "bert", "architectures": ["BertModel"],
            "max_position_embeddings": n}


GGUF = {"bert": ("bert",), "bert_masked_lm": ("bert",)}
NO_GGUF = {"bert_pretraining": NOT_REGISTERED.format("BertForPreTraining")}
GGUF_TABLES = {"bert": GGUFTable("bert", "BertModel", config={}, dropped=_DROPS, derive=_encoder)}
