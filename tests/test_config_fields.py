"""Every field a transformers class reads, varied one at a time (issue 32): ``count --config``
prints the count the class builds from that config, or refuses in one line; never another
number. The mechanism is tests/_config_fields.py; the sweep of every table and class is slow
(``--runslow``), the default run keeps the Mamba case that found it and one fast family
(Cohere: a head_dim its attention reads)."""

from __future__ import annotations

import collections

import pytest

from tests import _config_fields as fields
from tests._shared import on_torch


def _sweep(model_type: str, cls: str, arch_id: str) -> list[fields.Outcome]:
    return on_torch(fields.sweep, model_type, cls, arch_id)


def _bad(outcomes: list[fields.Outcome]) -> list[fields.Outcome]:
    return [o for o in outcomes if o.kind in ("wrong", "error")]


def _mamba_issue_32() -> tuple[int, int, str, int | None]:
    """The issue's config: intermediate_size 201, not expand·hidden_size = 266."""
    data = {"model_type": "mamba", "architectures": ["MambaForCausalLM"], "vocab_size": 471,
            "hidden_size": 133, "num_hidden_layers": 4, "expand": 2, "intermediate_size": 201}
    built = fields.build_count("mamba", "MambaForCausalLM", data, {})
    return (built, *fields.count_config(data))


def test_mamba_intermediate_size_is_read_as_transformers_reads_it():
    """MambaConfig keeps an intermediate_size the config gives (expand·hidden_size only when it
    gives none), and the mixer is built that wide: 442,796 parameters here, not the 565,516 of
    expand·hidden_size that count --config printed."""
    built, code, err, total = on_torch(_mamba_issue_32)
    assert built == 442_796
    assert (code, total) == (0, built) or (code == 2 and "intermediate_size" in err
                                           and "\n" not in err), (code, err, total)


# What the sweep found (issue 32), one perturbation each: (architecture id, key, value; a
# sub-config's field as {field: value}). Each
# was printed as another number than transformers builds; now counted or refused.
FOUND = (
    ("mamba", "intermediate_size", 64),
    *((a, "head_dim", 8) for a in ("cohere", "cohere2", "granite", "granitemoe",
                                   "granitemoehybrid", "jamba", "moonshine", "olmoe", "phimoe",
                                   "starcoder2", "vit", "zamba2")),
    ("zamba2", "attention_head_dim", 24),
    ("zamba2", "attention_hidden_size", 72),
    ("t5", "is_gated_act", True),
    *((a, "tie_word_embeddings", False) for a in (
        "bart:BartForSequenceClassification", "electra:ElectraForMaskedLM", "esm:EsmForMaskedLM",
        "f_net:FNetForMaskedLM", "xlnet:XLNetLMHeadModel")),
    ("deberta_v3:DebertaV2ForSequenceClassification", "pooler_hidden_size", 64),
    *((a, "vision_config", {"num_channels": 4}) for a in ("pali_gemma", "gemma3_vision")),
    # a key taken out: its config class's default, not the table's assumption
    ("bart", "decoder_layers", fields.ABSENT),
    ("gemma", "num_key_value_heads", fields.ABSENT),
    ("granitemoehybrid", "num_local_experts", fields.ABSENT),
    ("deepseek_v3", "q_lora_rank", fields.ABSENT),
)


def _found() -> list[tuple[str, str, object, fields.Outcome]]:
    out, bases, cases = [], {}, fields.cases()
    for arch_id, key, value in FOUND:
        model_type, cls, _ = next(c for c in cases if c[2] == arch_id)
        if arch_id not in bases:
            bases[arch_id] = fields.base(model_type, cls, arch_id, checked=False)
        data, kwargs, _ = bases[arch_id]
        if isinstance(value, dict):  # a field of a sub-config: the rest as the table wrote it
            value = {**data[key], **value}
        changed = ({k: x for k, x in data.items() if k != key} if value == fields.ABSENT
                   else {**data, key: value})
        out.append((arch_id, key, value,
                    fields.check(model_type, cls, changed, kwargs, key, value)))
    return out


def test_what_the_sweep_found_is_counted_or_refused():
    outcomes = on_torch(_found)
    assert not [o for o in outcomes if o[3].kind in ("wrong", "error")], outcomes
    assert not [o for o in outcomes if o[3].kind == "skipped"], outcomes  # transformers builds each


@pytest.mark.parametrize("arch_id", ["cohere"])
def test_one_field_at_a_time_fast(arch_id):
    case = next(c for c in fields.cases() if c[2] == arch_id)
    outcomes = _sweep(*case)
    assert not _bad(outcomes), _bad(outcomes)


@pytest.mark.slow
@pytest.mark.parametrize("case", fields.cases(), ids=lambda c: f"{c[2]}-{c[1]}")
def test_one_field_at_a_time(case):
    outcomes = _sweep(*case)
    tally = collections.Counter(o.kind for o in outcomes)
    assert not _bad(outcomes), (dict(tally), _bad(outcomes))
