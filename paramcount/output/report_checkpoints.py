"""The report's "Checkpoints" section: the formats read, the terms a checkpoint stores beside
the model's weights, the declared layouts and GGUF name tables, and what the full-size headers
of published models show (their Hub figure against the formula with its transformers deltas,
from the configs in ``tests/configs``; no checkpoint is downloaded, no framework imported)."""

from __future__ import annotations

import functools
from pathlib import Path

from paramcount.analyze.checkpoints.check import STORED
from paramcount.analyze.checkpoints.gguf_names import TABLES
from paramcount.analyze.checkpoints.layouts import LAYOUTS
from paramcount.analyze.checkpoints.published import PUBLISHED
from paramcount.analyze.checkpoints.quant import ROLES

__all__ = ["checkpoints_section", "section_lines"]

CONFIGS = Path(__file__).resolve().parents[2] / "tests" / "configs"

FORMATS = (
    ("safetensors (a file, or shards with `model.safetensors.index.json`)",
     "the 8-byte length and the JSON header (`safetensors.safe_open`, memory-mapped)",
     "transformers' names, through each family's declared `Transformers.weights`"),
    ("GGUF (llama.cpp, Ollama)", "metadata key-values and tensor infos (`gguf.GGUFReader`)",
     "the GGUF name table of its `general.architecture` (below), then transformers' names"),
    ("KerasHub preset (`config.json` + `model.weights.h5`)", "dataset shapes (`h5py`)",
     "Keras' own saving walk maps `…/vars/i` to the variable paths the Keras patterns claim"),
    ("pickle (`.bin`, `.pt`, `.pth`, `.ckpt`)", "refused: loading one executes its code",
     "convert it to safetensors"),
)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _findings() -> list[str]:
    from paramcount.analyze import configs
    from paramcount.model import registry
    from paramcount.model.frameworks import for_framework

    lines = ["| model | stored layout | Hub figure (sum of stored shapes) | formula with deltas "
             "| difference | explained by |", "|---|---|---:|---:|---:|---|"]
    for name, (repo, hub, layout, terms) in sorted(PUBLISHED.items(), key=lambda kv: kv[1][0]):
        path = CONFIGS / name
        if not path.is_file():
            lines.append(f"| {repo} | {_md(layout)} | {hub:,} | config not in this checkout | | |")
            continue
        reading = configs.read_config(path)
        arch = registry.get(reading.arch)
        hp = arch.resolve(reading.hparams)
        shown = for_framework(arch, "transformers", hp)
        built = shown.count(hp) + _nontrainable(shown, hp)
        why = "; ".join(f"{t} {n:+,}" for t, n in terms) or "—"
        lines.append(f"| {repo} | {_md(layout)} | {hub:,} | {built:,} | {hub - built:+,} "
                     f"| {_md(why)} |")
    return lines


def _family(table) -> str | None:
    """The id a GGUF table's names are shown against: the one its class reads as, unless the
    table names another (``shown_as``: its class stands for several ids)."""
    from paramcount.analyze import configs

    if table.shown_as is not None:
        return table.shown_as
    return next((t.hf_classes[table.hf_class] for t in configs.tables()
                 if t.model_type == table.model_type and table.hf_class in t.hf_classes), None)


def _gguf_lines() -> list[str]:
    """Each GGUF architecture's names as its table resolves them: gguf's own map inverted, the
    candidate the family's formula tree claims kept (block 0 shown)."""
    import importlib.util

    out = ["", "### GGUF name tables", "",
           "The GGUF names are llama.cpp's own (`gguf.MODEL_TENSORS`, `gguf.TensorNameMap`, "
           "inverted): a tensor's transformers name is the candidate its family's formula tree "
           "claims. Per architecture, block 0 at the family's example set that holds the most:", ""]
    if importlib.util.find_spec("gguf") is None:  # the checkpoints extra
        return [*out, "(Written without the gguf package: pip install 'paramcount[checkpoints]' "
                "lists the tables resolved. Architectures with a table: "
                + ", ".join(f"`{g}`" for g in sorted(TABLES)) + ".)", ""]
    return [*out, *_gguf_tables()]


@functools.cache
def _gguf_tables() -> tuple[str, ...]:
    """The tables (once per process: some 5 s, asked by every report generated in it)."""
    from paramcount.analyze.checkpoints.gguf_io import gguf_arch, resolved
    from paramcount.model import registry

    out: list[str] = []
    for garch, table in sorted(TABLES.items()):
        arch_id = _family(table)
        arch = registry.get(arch_id) if arch_id else None
        moe = f"; with an expert_count: {table.moe[1]}" if table.moe else ""
        cfg = "" if table.config is not None else "; config: the config.json beside the file"
        out += [f"`{garch}` → {table.hf_class} (`{arch_id}`){moe}{cfg}:", "",
                "| GGUF | transformers | formula leaf |", "|---|---|---|"]
        if arch is None:
            out += ["| (no family) | | |", ""]
            continue
        rows = max((resolved(table, gguf_arch(garch), arch, arch.resolve(h.hparams))
                    for h in arch.hparam_sets()), key=len)
        out += [f"| `{_md(g)}` | `{_md(h)}` | {leaf} |" for g, h, leaf in rows]
        out.append("")
    return tuple(out)


def _nontrainable(arch, hp) -> int:
    from paramcount.core.formula import to_int

    return to_int(arch.formula.trainable_total(False), arch.values(hp), "non-trainable")


def section_lines() -> list[str]:
    """The section as markdown lines."""
    out = ["## Checkpoints", "",
           "The weights people download are the third reference. `paramcount verify --checkpoint "
           "PATH` reads a checkpoint's header alone (every tensor's name, dtype and shape; never "
           "the data, so a 800 GB checkpoint checks in a second), picks the architecture from the "
           "config beside it, attributes every tensor by name to one formula leaf and compares "
           "per component; `count --checkpoint PATH` gives the figure the Hub shows (the sum of "
           "every stored shape, per dtype) and explains its difference from the config's model "
           "as named terms. Quantized weights count logically (GPTQ/AWQ `qweight` × 32/bits, "
           "bitsandbytes 4-bit × 2, GGUF types by their logical dims), their bytes beside.", "",
           "### Formats", "", "| format | what is read | names attributed through |",
           "|---|---|---|"]
    out += [f"| {_md(a)} | {_md(b)} | {_md(c)} |" for a, b, c in FORMATS]
    out += ["", "### Stored beside the weights", "",
            "Tensors a checkpoint stores that the config's model does not hold as parameters, "
            "each set apart as a named term with its reason:", "",
            "| term | tensors | reason |", "|---|---|---|"]
    out += [f"| {_md(term)} | `{_md(p)}` | {_md(why)} |" for p, term, why in STORED]
    out += [f"| {_md(term)} | `{_md(p)}` | {_md(why)} |" for p, term, why in ROLES]
    out += [f"| {_md(d.term)} | GGUF `{garch}`: `{_md(', '.join(d.names))}` | {_md(d.reason)} "
            "(a negative term: the converter leaves them out) |"
            for garch, table in sorted(TABLES.items()) for d in table.dropped]
    out += ["| multi-token-prediction layers | `layers.K.*`, L ≤ K < L + "
            "num_nextn_predict_layers | DeepSeek-V3's MTP module, which the config declares and "
            "transformers does not build |",
            "| layers beyond the config's stack | `layers.K.*`, K ≥ L (others) | layers the "
            "config's model does not build |",
            "| tied head stored twice | a zero-count head leaf's tensor of the embedding's shape "
            "| the config ties the head to the embedding; the checkpoint stores the copy too |",
            "| packed weights | GPTQ / AWQ `qweight`, bitsandbytes 4-bit `weight` | several "
            "logical parameters per stored element |", "",
            "A tied head stored once (the usual case) is a leaf with no tensor, said as expected.",
            "", "### Published layouts", "",
            "Mixtures of experts stored one tensor per expert, stacked (shapes only) as "
            "transformers holds them:", "", "| model_type | stored | held as |", "|---|---|---|"]
    for mt, lay in sorted(LAYOUTS.items()):
        pieces = ", ".join(f"`{p}` → `{t}`" for p, (t, _) in lay.pieces.items())
        out.append(f"| {mt} | `{_md(lay.experts)}` | {_md(pieces)} |")
    out += ["", "### Formats checked per family", "",
            "Every family with a transformers reference, its checkpoint written as "
            "`save_pretrained` writes it (safetensors) and as llama.cpp's converter writes it "
            "(GGUF, under the architecture named), each checked tensor by tensor; where no GGUF "
            "is checked, why:", "", "| family | safetensors | GGUF |", "|---|---|---|"]
    from paramcount.analyze.checkpoints.coverage import rows

    out += [f"| `{a}` | {st} | {_md(g)} |" for a, st, g in rows()]
    out += _gguf_lines()
    out += ["### Findings from the full-size headers", "",
            "`tests/test_checkpoints_hf.py` writes each checkpoint's full-size header with the "
            "names the published safetensors store (the data a sparse hole) and checks it tensor "
            "by tensor; each Hub figure is the formula with its transformers deltas plus the named terms "
            "its checkpoint stores beside the weights:", ""]
    out += _findings()
    return out


def checkpoints_section(results=None) -> str:
    """The section as the report's ``SECTIONS`` take it (the verifications are not needed)."""
    return "\n".join(section_lines()) + "\n"
