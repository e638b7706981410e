"""Model cards' figures against the formula's counts (paramcount.model.cards) and their findings."""

from __future__ import annotations

import pytest

from paramcount.core.errors import InputFileError
from paramcount.model import cards, registry
from paramcount.model.preset import parse_presets


@pytest.mark.parametrize("figure, value, step", [
    ("685B", 685 * 10**9, 10**9), ("230B", 230 * 10**9, 10**10), ("1T", 10**12, 10**12),
    ("1.5B", 15 * 10**8, 10**8), ("46.7B", 467 * 10**8, 10**8), ("400M", 4 * 10**8, 10**8),
])
def test_a_figure_is_taken_at_the_precision_it_is_written_with(figure, value, step):
    assert cards.parse_figure(figure) == (value, step)


@pytest.mark.parametrize("count, figure, agree", [
    (671_026_419_200, "685B", False), (684_531_386_000, "685B", True),
    (228_689_748_992, "230B", True), (21_825_436_160, "21B", False),
    (1_449_999_999, "1.5B", False), (1_450_000_000, "1.5B", True),  # half up
])
def test_a_count_agrees_when_it_rounds_to_the_figure(count, figure, agree):
    assert cards.agrees(count, figure) is agree


@pytest.mark.parametrize("bad", ["685", "6.8.5B", "0B", "1.0000000001K", "685 B", "-1B"])
def test_a_figure_that_is_no_figure_is_refused(bad):
    with pytest.raises(ValueError):
        cards.parse_figure(bad)
    table = {"p": {"source": "s", "hparams": {"L": 2}, "card": {"total": bad}}}
    with pytest.raises(InputFileError, match="card total"):
        parse_presets(table, "x.toml")


def test_a_card_table_takes_only_its_keys():
    for card in ({}, {"total": "1B", "params": "2B"}, {"why": ""}, "1B"):
        with pytest.raises(InputFileError, match="card"):
            parse_presets({"p": {"source": "s", "hparams": {"L": 2}, "card": card}}, "x.toml")


def _card_sets():
    for arch in registry.architectures().values():
        for name, preset in arch.presets_table().items():
            if preset.card is not None:
                yield arch, name, preset.card


def test_every_card_that_the_count_does_not_round_to_says_why_and_no_other():
    """A reason is recorded exactly where a figure disagrees, so the report's findings name
    every card the formula does not reproduce, and no reason stands beside a figure it does."""
    seen = 0
    for arch, name, card in _card_sets():
        hp = arch.resolve(arch.preset(name).hparams)
        total = arch.count(hp)
        results = [card.total is None or cards.agrees(total, card.total),
                   card.active is None or cards.agrees(arch.count_active(hp), card.active)]
        assert (card.why is None) == all(results), (arch.id, name, results)
        seen += 1
    assert seen >= 20


def test_the_findings_name_each_card_the_count_does_not_round_to():
    from paramcount.analyze.verify import Verification
    from paramcount.output.report_sections import _card_findings

    arch = registry.get("deepseek_v3")
    hp = arch.resolve(arch.preset("deepseek_v3_1").hparams)
    total = arch.count(hp)
    built = total - 13_463_426_304  # transformers' build, without the MTP module: not the card's
    r = Verification(arch="deepseek_v3", name="deepseek_v3_1", hparams=hp, formula=built,
                     reference=built, formula_nontrainable=0, reference_nontrainable=0,
                     components=())
    lines, agree = _card_findings([r, r])  # each set once
    assert agree == 0 and len(lines) == 2
    assert "the card states 671B in all; the formula counts 684,489,830,400 (684.5B)" in lines[0]
    assert "14B MTP module" in lines[0] and "active per token" in lines[1]


@pytest.mark.parametrize("count, figure, text", [
    (684_489_830_400, "685B", "684.5B"), (228_689_748_992, "230B", "228.7B"),
    (1_026_408_209_408, "1T", "1.0T"), (4_187_440_704, "3.6B", "4.19B"),
    (882_874_368, "800M", "882.9M"),
])
def test_a_count_is_shown_one_digit_finer_than_the_card(count, figure, text):
    assert cards.shown(count, figure) == text
