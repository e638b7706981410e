"""What ``count --checkpoint`` and ``verify --checkpoint`` print, from a
:class:`~paramcount.analyze.checkpoints.check.CheckpointCheck` (text and JSON)."""

from __future__ import annotations

from paramcount.analyze.checkpoints.check import CheckpointCheck
from paramcount.analyze.checkpoints.tensors import Checkpoint

__all__ = ["check_json", "count_lines", "header_line", "verify_lines"]


def _names(names: tuple[str, ...], shown: int = 3) -> str:
    more = f", ... ({len(names)} tensors)" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def header_line(ckpt: Checkpoint) -> str:
    files = f"{len(ckpt.files)} file{'s' if len(ckpt.files) != 1 else ''}, " if ckpt.files else ""
    quant = f", quantized: {ckpt.quantization}" if ckpt.quantization else ""
    return f"checkpoint {ckpt.path}: {ckpt.format}, {files}{len(ckpt.tensors)} tensors{quant}"


W = 54  # the label column


def _stored_lines(ckpt: Checkpoint) -> list[str]:
    hub = ", as the Hub counts it" if ckpt.format == "safetensors" else ""
    out = [f"stored{hub} (the sum of every stored tensor's shape):"]
    for dtype, (n, b) in ckpt.by_dtype().items():
        out.append(f"  {dtype:<{W - 2}}{n:>20,}  ({b:,} bytes)")
    out.append(f"  {'total':<{W - 2}}{ckpt.stored_total:>20,}  ({ckpt.stored_bytes:,} bytes)")
    return out


def _extra_lines(c: CheckpointCheck) -> list[str]:
    out = []
    for e in c.extras:
        held = "logical" if e.term == "packed weights" else "built"
        built = f" (stored {e.stored:,}, {held} {e.built:,})" if e.built else ""
        out.append(f"  {e.term:<{W - 2}}{e.difference:>+20,}{built}: {e.reason}; "
                   f"{_names(e.tensors)}")
    return out


def _nontrainable(c: CheckpointCheck) -> tuple[int, tuple[str, ...]]:
    """What of the config model is non-trainable (buffers: DeepSeek-V3's router score-correction
    biases), and the components that hold it."""
    v = c.verification
    return v.formula_nontrainable, tuple(r.path for r in v.components
                                         if not r.trainable and r.expected)


def _built_lines(c: CheckpointCheck) -> list[str]:
    """The config model's trainable parameters and its non-trainable weights apart, as the
    report counts them (trainable is the paper's quantity), where it has any of the latter; a
    model without keeps its one line."""
    buffers, paths = _nontrainable(c)
    if not buffers:
        return []
    return [f"  {'trainable':<{W - 2}}{c.built - buffers:>20,}",
            f"  {'non-trainable':<{W - 2}}{buffers:>20,}: buffers (not trained by gradient); "
            f"{_names(paths)}"]


def count_lines(c: CheckpointCheck) -> list[str]:
    ckpt = c.checkpoint
    who = "transformers" if c.framework == "transformers" else "Keras"
    out = [header_line(ckpt), *_stored_lines(ckpt),
           f"{f'the config model ({c.arch}, as {who} builds it)':<{W}}{c.built:>20,}",
           *_built_lines(c),
           f"{'stored − built':<{W}}{ckpt.stored_total - c.built:>+20,}"]
    out += _extra_lines(c)
    if c.unexplained:
        out.append(f"  {'unexplained':<{W - 2}}{c.unexplained:>+20,}: tensors the formula does not "
                   "account for (verify --checkpoint names them)")
    logical = sum(t.logical for t in ckpt.tensors)
    if logical != ckpt.stored_total:
        out.append(f"{'logical parameters stored':<{W}}{logical:>20,}  (packed weights unpacked, "
                   "quantization state out)")
    return out


def verify_lines(c: CheckpointCheck) -> list[str]:
    v = c.verification
    out = [header_line(c.checkpoint),
           f"  {'component':<44}{'formula':>18}{'checkpoint':>18}{'difference':>14}"]
    for r in v.components:
        if r.expected or r.weights:
            flag = "" if r.ok else "  <-"
            out.append(f"  {r.path:<44}{r.expected:>18,}{r.actual:>18,}{r.difference:>+14,}{flag}")
    if c.extras:
        out.append("stored apart (not parameters of the config's model), or left out by the "
                   "converter:" if any(e.stored == 0 for e in c.extras) else
                   "stored apart (not parameters of the config's model):")
        out += _extra_lines(c)
    for path in c.tied_once:
        out.append(f"no tensor for {path}: expected, the head is tied to the token embedding "
                   "and stored once")
    for path, n in c.missing:
        out.append(f"no tensor for {path} ({n:,} parameters in the formula)")
    for w in v.unclaimed:
        out.append(f"unclaimed tensor {w.path.replace('/', '.')} {list(w.shape)} ({w.size:,}): "
                   "no formula leaf claims it")
    for p, owners in v.contested:
        out.append(f"tensor {p} claimed by several components: {', '.join(owners)}")
    status = "match" if c.ok else "MISMATCH"
    total = v.reference + v.reference_nontrainable
    formula = v.formula + v.formula_nontrainable  # with a converter's terms (c.built: without)
    out.append(f"{status:<8} {c.arch:<24} formula {formula:>16,}  checkpoint {total:>16,}  "
               f"diff {total - formula:+,}")
    return out


def check_json(c: CheckpointCheck) -> dict:
    ckpt = c.checkpoint
    v = c.verification
    return {
        "checkpoint": ckpt.path, "format": ckpt.format, "files": list(ckpt.files),
        "tensors": len(ckpt.tensors), "quantization": ckpt.quantization or None,
        "arch": c.arch, "framework": c.framework, "hparams": c.hparams,
        "stored": {d: {"elements": n, "bytes": b} for d, (n, b) in ckpt.by_dtype().items()},
        "stored_total": ckpt.stored_total, "stored_bytes": ckpt.stored_bytes,
        "logical_total": sum(t.logical for t in ckpt.tensors),
        "built": c.built,
        # the config model's trainable parameters and its non-trainable weights (buffers) apart
        "built_trainable": c.built - _nontrainable(c)[0],
        "built_nontrainable": _nontrainable(c)[0],
        "terms": [{"term": e.term, "delta": e.delta.path if e.delta else None,
                   "stored": e.stored, "built": e.built,
                   "difference": e.difference, "reason": e.reason, "tensors": list(e.tensors)}
                  for e in c.extras],
        "unexplained": c.unexplained,
        "status": "match" if c.ok else "mismatch",
        "components": [{"path": r.path, "formula": r.expected, "checkpoint": r.actual,
                        "difference": r.difference} for r in v.components],
        "unclaimed": [w.path.replace("/", ".") for w in v.unclaimed],
        "missing": [p for p, _ in c.missing],
        "tied_once": list(c.tied_once),
        "mismatches": v.mismatches(),
    }
