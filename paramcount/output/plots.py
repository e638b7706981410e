"""Pictures of the counts: where the parameters go, and how the total grows with width and depth.

Two figures, drawn with Matplotlib from the formula trees (nothing is built in Keras here):

- :func:`composition_figure`: per preset, the share of the parameters in each *class* of
  component (embeddings, attention, feed-forward, recurrent layers, norms, head, other), as
  stacked horizontal bars.
- :func:`scaling_figure`: the total against the width ``d_e`` and against the depth ``L``, one
  series per architecture, one point per published preset (log-log).

**How a component is classified** (:func:`classify`). Each formula leaf carries a *kind*
(:data:`paramcount.core.formula.KINDS`), set by the component that makes it — ``embedding()`` an
embedding, ``attention()`` attention, ``layer_norm()`` a norm — or inherited from the nearest
group that has one; :data:`RULES` maps kinds to the drawn classes. Names play no part: a norm is
a norm wherever it sits, an expert's projection is feed-forward, and ALBERT's
``embeddings.projection`` (a d_emb → d_e matrix applied to every token, kind ``projection``) is
*other*, not an embedding — the answer :mod:`paramcount.analyze.context` gives too. Zero-parameter terms
(RoPE, tied heads) add nothing to any class.

**Determinism.** :meth:`Plot.svg` renders with a fixed ``svg.hashsalt``, no date in the metadata,
text kept as text (``svg.fonttype = "none"``) in the DejaVu Sans that ships with Matplotlib, and no
global state: the same counts and the same Matplotlib version give a byte-identical file, so a
changed SVG in a diff is a changed count.

Matplotlib is imported only inside the drawing functions; :func:`classify` and
:func:`composition` need only the formula tree.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from paramcount.model import registry
from paramcount.model.registry import Architecture
from paramcount.runtime.files import write_atomic

if TYPE_CHECKING:  # Matplotlib itself is imported only inside the drawing functions
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = [
    "CLASSES",
    "REPORT_FIGURES",
    "RULES",
    "Plot",
    "classify",
    "classify_leaves",
    "composition",
    "composition_figure",
    "kv_cache_figure",
    "preset_sets",
    "report_figure_names",
    "report_plots",
    "scaling_figure",
    "write_plots",
]

CLASSES = ("embeddings", "attention", "feed-forward", "recurrent", "norms", "head", "other")

#: The class each component kind (:data:`paramcount.core.formula.KINDS`) is drawn in.
RULES: dict[str, str] = {
    "embedding": "embeddings",
    "position": "embeddings",
    "attention": "attention",
    "cross-attention": "attention",
    "feed-forward": "feed-forward",
    "expert": "feed-forward",
    "router": "feed-forward",
    "recurrent": "recurrent",
    "norm": "norms",
    "head": "head",
    "projection": "other",
    "other": "other",
}

COLORS = {  # fixed, colour-blind-friendly (Okabe-Ito), one per class
    "embeddings": "#0072B2",
    "attention": "#E69F00",
    "feed-forward": "#009E73",
    "recurrent": "#CC79A7",
    "norms": "#F0E442",
    "head": "#D55E00",
    "other": "#999999",
}

REPORT_FIGURES = {
    "composition.svg": "Where the parameters go: share of each class of component, per preset",
    "scaling.svg": "Total parameters against width d_e and depth L, per architecture",
    "kv_cache.svg": "KV-cache bytes against the context T, one architecture per kind of cache",
}

_RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "paramcount",
    "svg.fonttype": "none",
    "font.family": ["DejaVu Sans"],
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "path.simplify": False,
}


def classify(path: str, arch: Architecture | None = None) -> str:
    """The class of the formula leaf at dotted ``path`` (root first): its kind's (see
    :data:`RULES`). ``arch`` defaults to the architecture the root names."""
    arch = arch or registry.get(path.split(".")[0])
    return classify_leaves(arch)[path]


def classify_leaves(arch: Architecture | str) -> dict[str, str]:
    """Leaf path -> class for every leaf of an architecture's formula, by its kind; a leaf
    without one (a user's ``leaf()`` given none) is ``other``."""
    arch = registry.get(arch) if isinstance(arch, str) else arch
    return {lf.path: RULES.get(lf.kind or "other", "other") for lf in arch.formula.leaves()}


def composition(arch: Architecture | str, hparams: Mapping[str, int]) -> dict[str, int]:
    """Trainable parameters per class (every class of :data:`CLASSES`, in that order) at
    ``hparams``; they add up to the total (non-trainable buffers are not drawn)."""
    arch = registry.get(arch) if isinstance(arch, str) else arch
    hp = arch.resolve(hparams)
    classes = classify_leaves(arch)
    out = dict.fromkeys(CLASSES, 0)
    for lf in arch.formula.leaves():
        if lf.term.trainable:
            out[classes[lf.path]] += arch.evaluate(lf.expr, hp, lf.path)
    return out


def preset_sets(arch_ids: Iterable[str], *, examples: bool = False
                ) -> list[tuple[str, Architecture, dict[str, int]]]:
    """(label, architecture, hyperparameters) for each architecture's published presets (and
    example sets with ``examples``); presets with hyperparameters identical to an earlier one of
    the same architecture (a fine-tune, a quantised copy) are dropped."""
    out = []
    for aid in arch_ids:
        arch = registry.get(aid)
        seen: set[tuple] = set()
        for hs in arch.hparam_sets():
            if not hs.preset.official and not examples:
                continue
            key = tuple(sorted(hs.hparams.items()))
            if key in seen:
                continue
            seen.add(key)
            out.append((f"{arch.id} · {hs.name}", arch, hs.hparams))
    return out


@dataclass
class Plot:
    """A Matplotlib figure that renders to deterministic SVG and displays itself in Jupyter."""

    figure: Figure

    def svg(self) -> bytes:
        import io

        import matplotlib

        buf = io.BytesIO()
        with matplotlib.rc_context(_RC):
            self.figure.savefig(buf, format="svg", metadata={"Date": None},
                                bbox_inches="tight", pad_inches=0.1)
        return buf.getvalue()

    def save(self, path: str | os.PathLike) -> Path:
        """Write the SVG atomically (temporary file, then a rename)."""
        return write_atomic(path, self.svg())

    def _repr_svg_(self) -> str:
        return self.svg().decode("utf-8")


def _new_figure(width: float, height: float):
    import matplotlib
    from matplotlib.figure import Figure  # no pyplot: no global figure list, no GUI backend

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(width, height), dpi=100)
    return fig


def composition_figure(sets: Sequence[tuple[str, Architecture, Mapping[str, int]]], *,
                       title: str | None = None) -> Plot:
    """Stacked horizontal bars, one per (label, architecture, hyperparameters): the percentage
    of the parameters in each class. See :func:`preset_sets` for the usual ``sets``."""
    import matplotlib

    if not sets:
        raise ValueError("composition_figure: no hyperparameter sets to draw")
    rows = [(label, composition(arch, hp)) for label, arch, hp in sets]
    used = [c for c in CLASSES if any(counts[c] for _, counts in rows)]
    with matplotlib.rc_context(_RC):
        fig = _new_figure(8.0, 1.4 + 0.2 * len(rows))
        ax = fig.add_subplot()
        ys = list(range(len(rows)))
        left = [0.0] * len(rows)
        for cls in used:
            shares = [100.0 * counts[cls] / (sum(counts.values()) or 1) for _, counts in rows]
            ax.barh(ys, shares, left=left, height=0.75, color=COLORS[cls], label=cls,
                    edgecolor="white", linewidth=0.3)
            left = [a + b for a, b in zip(left, shares, strict=True)]
        ax.set_yticks(ys, [label for label, _ in rows])
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of parameters (%)")
        ax.set_title(title or "Where the parameters go")
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0 + 0.35 / (1 + 0.2 * len(rows))),
                  ncol=len(used), frameon=False)
        ax.spines[["top", "right"]].set_visible(False)
    return Plot(fig)


def scaling_figure(arch_ids: Iterable[str] | None = None, *,
                   series: Mapping[str, Sequence[tuple[str, Architecture, Mapping[str, int]]]]
                   | None = None, title: str | None = None) -> Plot:
    """Total parameters against ``d_e`` (left) and ``L`` (right), log-log, one series per
    architecture (its published presets), or per entry of ``series`` (label -> sets)."""
    import matplotlib
    import matplotlib.ticker

    if series is None:
        series = {aid: preset_sets([aid]) for aid in (arch_ids or ())}
    markers = "osD^vP*Xh<>p"
    with matplotlib.rc_context(_RC):
        fig = _new_figure(10.0, 4.2)
        axes = fig.subplots(1, 2, sharey=True)
        tab10 = matplotlib.colormaps["tab10"]
        assert isinstance(tab10, matplotlib.colors.ListedColormap)  # a qualitative map: a colour list
        # Matplotlib types a listed map's colours as any array-like; tab10's is a tuple of triples.
        colors = cast("Sequence[tuple[float, float, float]]", tab10.colors)
        drawn = 0
        for i, (label, sets) in enumerate(series.items()):
            points = sorted({(hp.get("d_e"), hp.get("L"), arch.count(hp))
                             for _, arch, hp in sets if "d_e" in hp and "L" in hp})
            if not points:
                continue
            drawn += 1
            style = dict(color=colors[i % len(colors)], marker=markers[i % len(markers)],
                         markersize=5, linestyle="none", alpha=0.85)
            for ax, key in zip(axes, (0, 1), strict=True):
                pts = sorted(points, key=lambda p: (p[key], p[2]))
                ax.plot([p[key] for p in pts], [p[2] for p in pts], label=label, **style)
        if not drawn:
            raise ValueError("scaling_figure: no presets with both d_e and L to draw")
        for ax, sym in zip(axes, ("d_e", "L"), strict=True):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(f"${sym}$ ({'width' if sym == 'd_e' else 'blocks'})")
            ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
            ax.spines[["top", "right"]].set_visible(False)
            # Plain integers at powers of two (widths and depths are), no crowded minor labels.
            ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=2))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}"))
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        axes[0].set_ylabel("total parameters $N$")
        axes[1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
        fig.suptitle(title or "Total parameters against width and depth")
    return Plot(fig)


def kv_cache_figure(series: Mapping[str, Sequence[tuple[int, int]]], *,
                    title: str | None = None) -> Plot:
    """KV-cache bytes against the context, log-log: one line per entry of ``series`` (label ->
    (T, bytes) points)."""
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig = _new_figure(7.0, 4.2)
        ax = fig.add_subplot()
        for label, points in series.items():
            ax.plot([t for t, _ in points], [b for _, b in points], marker="o", markersize=3,
                    label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("context T (tokens)")
        ax.set_ylabel("KV cache (bytes, bf16, B = 1)")
        ax.grid(True, linewidth=0.4, alpha=0.5)
        ax.spines[["top", "right"]].set_visible(False)
        ax.legend(loc="upper left", frameon=False, fontsize=7)
        ax.set_title(title or "KV cache against context, one architecture per kind of cache")
    return Plot(fig)


# --- the report's figures -----------------------------------------------------------------------
def _report_archs(results) -> list[str]:
    """Architectures of the results, one per preset file (the backbone over its task models,
    which share its presets), in id order."""
    seen_files: set = set()
    out = []
    for aid in sorted({r.arch for r in results}):
        arch = registry.get(aid)
        key = arch.presets if isinstance(arch.presets, tuple) else (arch.presets,)
        if not arch.presets or key in seen_files:
            continue
        seen_files.add(key)
        out.append(aid)
    return out


def _report_data(results):
    verified = {(r.arch, r.name) for r in results}
    archs = _report_archs(results)
    sets = [s for s in preset_sets(archs) if (s[1].id, s[0].split(" · ", 1)[1]) in verified]
    series = {aid: [s for s in sets if s[1].id == aid] for aid in archs}
    series = {aid: s for aid, s in series.items()
              if len({(hp.get("d_e"), hp.get("L")) for _, _, hp in s if "d_e" in hp and "L" in hp})
              >= 2}
    return sets, series


def report_figure_names(results) -> list[str]:
    """The file names :func:`write_plots` writes for these results (no Matplotlib needed)."""
    sets, series = _report_data(results)
    return [name for name, wanted in (("composition.svg", sets), ("scaling.svg", series))
            if wanted]


def report_plots(results) -> dict[str, Plot]:
    """The report's figures (file name -> Plot) for a list of verifications: official presets
    only (example sets are toy sizes), task models that share a backbone's presets left out."""
    sets, series = _report_data(results)
    out: dict[str, Plot] = {}
    if sets:
        out["composition.svg"] = composition_figure(
            sets, title="Where the parameters go (share of each class of component, per preset)")
    if series:
        out["scaling.svg"] = scaling_figure(series=series)
    return out


def write_plots(results, directory: str | os.PathLike) -> list[Path]:
    """Write the report's figures into ``directory`` (beside the report); returns the paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return [plot.save(directory / name) for name, plot in report_plots(results).items()]
