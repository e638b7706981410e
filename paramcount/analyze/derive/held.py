"""What a derivation holds at one value, and how it is said: fields it could not vary (every
variation refused or read back unchanged, pinned by the config class, None at the config) or
that no fitted expression reads though they change a weight (:func:`.claims.unread`). The
header of ``derive``, its proof line and the sweep's rows say them alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Derivation

__all__ = ["fixed", "reason_kind", "said"]


def reason_kind(why: str) -> str:
    """Why a field was not varied (a :attr:`.Derivation.unvaried` reason), as one word: "none"
    (None at the config), "pinned" (the config class pins it), "unread" (it changes a weight, but
    the builds kept it at one value, or it does only where the base hides it) or "refused" (no
    variation built another model)."""
    return ("none" if why.startswith("None") else "pinned" if why.startswith("pinned at ")
            else "unread" if why.startswith("changes a weight") else "refused")


def fixed(d: Derivation) -> dict[str, Any]:
    """What the formula holds at one value: the held fields and those left None (a None field's
    value is None), by name."""
    nones = {k: None for k, why in d.unvaried.items() if reason_kind(why) == "none"}
    return dict(sorted({**d.held, **nones}.items()))


def said(values: Mapping[str, Any]) -> str:
    """Held fields as a proof line and a sweep's row say them: "k = v, …"."""
    return ", ".join(f"{k} = {v}" for k, v in values.items())
