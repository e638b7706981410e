"""The figures a model card states ("685B", "37B activated") against the counts the formula
gives at that model's published hyperparameters.

A card rounds: its figure is taken at the precision it is written with, its significant digits
(``685B`` to the billion, ``230B`` to ten billion, ``1T`` to the trillion), and the count agrees
when it rounds (half up) to that figure. Where it does not, the preset file says why
(``card.why``) and the report names it as a finding. Nothing here is typed by hand but the card's
figures and the reason: every count comes from the formula.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["UNITS", "Card", "agrees", "parse_figure", "shown"]

UNITS = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}
_FIGURE = re.compile(r"(\d+)(?:\.(\d+))?([KMBT])\Z")


def parse_figure(text: str) -> tuple[int, int]:
    """A card's figure as (its value in parameters, the unit its last significant digit counts):
    "685B" → (685·10⁹, 10⁹); "230B" → (230·10⁹, 10¹⁰); "1.5B" → (1.5·10⁹, 10⁸)."""
    found = _FIGURE.match(text)
    if found is None:
        raise ValueError(f"{text!r} is not a card figure such as 685B, 1.5B or 1T")
    whole, frac, unit = found.group(1), found.group(2) or "", found.group(3)
    scale = UNITS[unit] // 10 ** len(frac)
    if scale == 0:
        raise ValueError(f"{text!r} has more decimals than its unit takes")
    digits = int(whole + frac)
    if digits == 0:
        raise ValueError(f"{text!r} is not a positive figure")
    step = scale
    if not frac:  # an integer's trailing zeros are not significant: 230B is 23 tens of billions
        while digits % 10 == 0:
            digits //= 10
            step *= 10
    return int(whole + frac) * scale, step


def agrees(count: int, figure: str) -> bool:
    """Whether ``count`` rounds (half up) to the card's ``figure`` at its precision."""
    value, step = parse_figure(figure)
    return (count + step // 2) // step * step == value


def shown(count: int, figure: str) -> str:
    """``count`` written in the card figure's unit, to one more digit than the card gives."""
    _, step = parse_figure(figure)
    unit = UNITS[figure[-1]]
    places = 1 if step >= unit else len(str(unit // step))
    q = (count * 10**places + unit // 2) // unit
    return f"{q // 10**places}.{q % 10**places:0{places}d}{figure[-1]}"


@dataclass(frozen=True)
class Card:
    """What a model card states: its total, and the parameters one token activates (a mixture
    of experts), each as written; ``why`` where the count does not round to them."""

    total: str | None = None
    active: str | None = None
    why: str | None = None
