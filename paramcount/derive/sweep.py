"""Every transformers language model: each model type of the causal-LM auto mapping (and, on
request, masked-LM and seq2seq-LM) derived at its config class's defaults, and the report's
section as markdown lines. Each derivation is cached (:mod:`paramcount.derive.store`), so a
warm sweep reads them all back."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Row", "model_types", "section", "sweep"]


@dataclass(frozen=True)
class Row:
    model_type: str
    cls: str
    status: str  # "derived", "failed" or "error"
    total: int | None = None
    fields: int = 0
    reason: str = ""


def model_types(kinds: tuple[str, ...] = ("causal",)) -> list[str]:
    from transformers.models.auto import modeling_auto as ma

    maps = {"causal": ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
            "masked": ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES,
            "seq2seq": ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES}
    return sorted({t for k in kinds for t in maps[k]})


def _one(model_type: str) -> Row:
    from paramcount.derive import derive_model
    from paramcount.errors import ParamcountError

    try:
        _, d, _ = derive_model(model_type=model_type)
    except ParamcountError as exc:
        return Row(model_type, "", "error", reason=str(exc))
    except Exception as exc:  # a config class that fails at its own defaults: a named row
        return Row(model_type, "", "error", reason=f"{type(exc).__name__}: "
                                                  f"{' '.join(str(exc).split())[:200]}")
    if d.failures:
        what, why = d.failures[0]
        return Row(model_type, d.cls, "failed", fields=len(d.fields), reason=f"{what}: {why}")
    return Row(model_type, d.cls, "derived", d.count({})["trainable"], len(d.fields))


def sweep(types: list[str] | None = None, *, progress=None) -> list[Row]:
    out = []
    for t in types if types is not None else model_types():
        if progress:
            progress(t)
        out.append(_one(t))
    return out


def section(rows: list[Row], versions: dict[str, str]) -> list[str]:
    """The report's "Every transformers language model" section."""
    done = sum(r.status == "derived" for r in rows)
    lines = ["## Every transformers language model", "",
             f"Each model type of transformers {versions.get('transformers', '?')}'s causal-LM "
             "auto mapping, its formula derived from its own meta-device builds at its config "
             "class's defaults (`paramcount derive --model-type NAME`; each count checked "
             "against the build at full size). "
             f"**{done} of {len(rows)} derived**; every other row names its reason.", "",
             "| model type | class | parameters at the defaults | hyperparameters found | "
             "status |", "|---|---|---:|---:|---|"]
    for r in rows:
        total = f"{r.total:,}" if r.total is not None else ""
        status = r.status if r.status == "derived" else f"{r.status}: {r.reason}"
        lines.append(f"| `{r.model_type}` | {r.cls} | {total} | {r.fields or ''} | "
                     f"{status.replace('|', '/')} |")
    return [*lines, ""]
