"""Published configs' costs as transformers has them: ``count --config C --context T`` against
the model the file itself describes, built by transformers on the meta device from that file
(paramcount.analyze.costs.check_config). A field the class reads and the family's table does not
(a window, a window pattern) shows here as a wrong number, so every config is checked past its
window; a figure paramcount does not give says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._shared import needs_transformers

CONFIGS = Path(__file__).parent / "configs"
# windows of 4,096 and shorter: T = 5,000 is past every one (learned positions cut it to n)
CONTEXT = 5000
# the default run: windowed layouts of every kind, and the plain ones most used
DEFAULT = ("mistral-7b-v0.3", "gemma-3-1b-it", "c4ai-command-r7b-12-2024",
           "phi-3-mini-4k-instruct", "gpt2")


def _check(name: str) -> None:
    from paramcount.analyze import costs

    needs_transformers()
    out = costs.check_config(CONFIGS / f"{name}.json", CONTEXT, 2)
    for quantity, (ours, theirs, why) in out.items():
        if ours is None or theirs is None:
            assert why, (name, quantity)  # no figure, or no measurement, without its reason
        if ours is not None and theirs is not None:
            assert ours == theirs, (name, quantity, ours, theirs)


@pytest.mark.parametrize("name", DEFAULT)
def test_a_published_config_costs_what_transformers_builds_from_it(name):
    _check(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.stem for p in CONFIGS.glob("*.json")
                                        if p.stem not in DEFAULT))
def test_every_published_config_costs_what_transformers_builds_from_it(name):
    _check(name)


def test_a_mixture_of_experts_config_is_measured_on_meta_its_experts_gathered():
    """Mixtral's router picks experts by the data, which the meta device has none of: its experts
    are gathered per token (transformers' ``batched_mm``), so both totals are measured, not
    refused, and equal the count's; DBRX's experts run only in its own loop: refused, with why."""
    from paramcount.analyze import costs

    needs_transformers()
    out = costs.check_config(CONFIGS / "mixtral-8x7b-v0.1.json", CONTEXT, 2)
    assert all(theirs is not None and ours == theirs for ours, theirs, _ in out.values()), out
    out = costs.check_config(CONFIGS / "dbrx-base.json", CONTEXT, 2)
    assert all(theirs is None and "meta" in why for _, theirs, why in out.values()), out
