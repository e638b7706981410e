"""Every field a transformers class reads, varied one at a time (issue 32): ``count --config``
prints the count the class builds from that config, or refuses in one line; never another
number. The mechanism is tests/_config_fields.py; the sweep of every table and class is slow
(``--runslow``), the default run keeps the Mamba case that found it and one fast family."""

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


@pytest.mark.parametrize("arch_id", ["mamba"])
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
