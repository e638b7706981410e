"""RoBERTa (and XLM-RoBERTa, DistilBERT at its shapes): BERT without segments and pooler, and
roberta-base against the Hugging Face figure."""

from __future__ import annotations

from tests._shared import count

BASE = dict(v=50265, n=512, d_e=768, M=12, d_f=3072, L=12)


def test_roberta_is_bert_without_segments_and_pooler():
    d = BASE["d_e"]
    bert = count("bert", **BASE, s=1)
    assert count("roberta", **BASE) == bert - d - (d * d + d)
    assert count("xlm_roberta", **BASE) == count("roberta", **BASE)
    assert count("distil_bert", **BASE) == count("roberta", **BASE)


def test_roberta_base_against_the_hugging_face_figure():
    # roberta-base holds 124,645,632 weights: 514 positions, a 1-row token-type table and a
    # pooler, none of which KerasHub keeps.
    d = 768
    assert count("roberta", **BASE) + 2 * d + d + (d * d + d) == 124_645_632
