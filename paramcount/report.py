"""The markdown conformance report: deterministic, written atomically.

Same inputs (formulas, presets, reference models, library versions) give a byte-identical file:
no timestamps, no machine names, sorted everywhere. The report is built as a list of sections,
each a function of the verifications, so a new kind of finding is one more section.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from paramcount import registry
from paramcount._io import check_output, write_group
from paramcount.frameworks import label
from paramcount.parallel import DIED
from paramcount.render import (
    _md_escape,
    breakdown_markdown,
    formula_latex,
    symbols_markdown,
)
from paramcount.verify import Verification, verify

__all__ = ["generate", "verify_all", "versions", "write_report"]

DEFAULT_OUTPUT = Path("reports") / "conformance.md"

CONVENTION = """\
## Counting convention

- **Trainable and non-trainable apart.** Every figure is the number of trainable parameters (the
  paper's quantity). Non-trainable weights are counted separately and shown only where a model
  has any; the formula states which of its terms are non-trainable.
- **Tied weights counted once**, where they are defined: a token embedding reused as the output
  projection of an LM head appears under the embedding; the head shows a zero term that says so.
- **Heads:** a *backbone* (ids without a suffix, KerasHub's `*Backbone`) has no LM head; task
  models (`*_causal_lm`, `*_masked_lm`) include theirs. Each architecture's "counts" line says
  exactly which parts are included.
- **Zero-parameter parts** (sinusoidal or rotary positions, ALiBi, dropout, softmax, tied heads)
  are listed as zero terms, so a breakdown says why they cost nothing.
- **Three figures per preset:** the formula evaluated at the preset's hyperparameters; the
  reference model built in Keras from those hyperparameters (no weights allocated, nothing
  downloaded), summed weight by weight; and, where KerasHub publishes one, the `params` figure of
  its installed preset metadata. *Status* compares the first two, component by component: every
  Keras weight is attributed by its path to exactly one formula component.
"""


def verify_all(arch_ids: Iterable[str] | None = None, *,
               verifier: Callable[..., Verification] = verify,
               progress: Callable[[str], None] | None = None,
               n_jobs: int | None = 1) -> list[Verification]:
    """Verify every hyperparameter set (presets and examples) of the given architectures; with
    the default verifier, in ``n_jobs`` worker processes (None: one per core)."""
    archs = registry.architectures()
    ids = sorted(archs) if arch_ids is None else list(arch_ids)
    ids = [a for a in ids if a not in left_out()]
    jobs = [(aid, hs.preset) for aid in ids for hs in registry.get(aid).hparam_sets()]
    if verifier is verify and n_jobs != 1:
        from paramcount import parallel

        return parallel.verify_jobs(
            [parallel.Job(registry.get(aid), registry.get(aid).resolve(p.hparams), p.name, p,
                          framework=_framework(registry.get(aid)))
             for aid, p in jobs],
            n_jobs=n_jobs, progress=progress)
    out = []
    for aid, preset in jobs:
        if progress:
            progress(f"{aid} {preset.name}")
        arch = registry.get(aid)
        if "keras" in arch.checked_by:
            out.append(verifier(aid, preset=preset.name))
        else:
            out.append(verifier(aid, preset=preset.name, framework=_framework(arch)))
    return out


def _framework(arch) -> str:
    """Keras where it builds the model; else (Falcon-7B/40B) the framework that does."""
    return "keras" if "keras" in arch.checked_by else arch.checked_by[0]


def left_out() -> list[str]:
    """The architectures the report leaves out here: those only transformers builds, when torch
    or transformers is not installed (empty otherwise)."""
    from paramcount.verify import transformers_missing

    if transformers_missing() is None:
        return []
    return sorted(a for a, arch in registry.architectures().items()
                  if "keras" not in arch.checked_by)


def missing_extra_note() -> str | None:
    """What a report written without the transformers extra leaves out, or None."""
    from paramcount.verify import transformers_missing

    missing = transformers_missing()
    if missing is None:
        return None
    out = ", ".join(left_out())
    return (f"**Written without the transformers extra** ({missing} is not installed): the checks "
            "against transformers are left out (the proofs against transformers"
            + (f", and {out}, which only transformers builds" if out else "")
            + "), so this is not the committed report. `pip install 'paramcount[transformers]'` "
            "and run `paramcount report` again to reproduce it.")


def count_jobs(arch_ids: Iterable[str] | None = None) -> int:
    """How many verifications :func:`verify_all` will run (for a progress bar)."""
    ids = sorted(registry.architectures()) if arch_ids is None else list(arch_ids)
    ids = [a for a in ids if a not in left_out()]
    return sum(len(registry.get(aid).hparam_sets()) for aid in ids)


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    import reference_models

    reference_models.import_keras()  # muted, should nothing have imported it yet
    import keras
    import keras_hub
    import sympy
    import tensorflow as tf

    try:  # the figures beside the report are drawn by it (not imported here: version only)
        mpl = version("matplotlib")
    except PackageNotFoundError:
        mpl = "not installed"
    return {"TensorFlow": tf.__version__, "Keras": keras.__version__,
            "KerasHub": keras_hub.__version__, "SymPy": sympy.__version__, "Matplotlib": mpl}


def _summary(results: list[Verification]) -> str:
    n_ok = sum(r.ok for r in results)
    meta = [r for r in results if r.keras_hub_params is not None]
    agree = sum(r.metadata_status == "agrees" for r in meta)
    archs = len({r.arch for r in results})
    lines = [
        "## Summary", "",
        f"{archs} architectures, {len(results)} hyperparameter sets: **{n_ok} match**, "
        f"**{len(results) - n_ok} mismatch**. KerasHub's published figure is available for "
        f"{len(meta)} of them: {agree} agree with the build, {len(meta) - agree} differ.", "",
        "| architecture | hyperparameters | formula | Keras | KerasHub published | difference "
        "| status |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for r in results:
        pub = "" if r.keras_hub_params is None else f"{r.keras_hub_params:,}"
        if r.metadata_status == "differs":
            pub += " (differs)"
        lines.append(f"| [{r.arch}](#{r.arch}) | {r.name} | {r.formula:,} | {r.keras:,} | {pub} "
                     f"| {r.difference:+,} | {'✅ match' if r.ok else '❌ MISMATCH'} |")
    return "\n".join(lines)


def _findings(results: list[Verification]) -> str:
    lines = ["## Findings", ""]
    differs = [r for r in results if r.metadata_status == "differs"]
    bad = [r for r in results if not r.ok]
    if not differs and not bad:
        lines.append("None: every formula equals its Keras build, and every KerasHub published "
                     "figure equals KerasHub's own build.")
        return "\n".join(lines)
    for r in bad:
        lines.append(f"- **{r.arch} [{r.name}]: formula and Keras differ by {r.difference:+,}.**")
        lines += [f"  - {_md_escape(m)}" for m in r.mismatches()]
    for r in differs:
        lines.append(_differs_finding(r))
    return "\n".join(lines)


def _differs_finding(r: Verification) -> str:
    """The computed figures, then the explanation the preset file gives, marked as quoted with
    its source: its prose (and any figure in it) is typed by a person, not computed here."""
    arch = registry.get(r.arch)
    reason = arch.preset(r.name).keras_hub_differs
    assert r.keras_hub_params is not None  # "differs" is decided against a published figure
    built = r.keras + r.keras_nontrainable
    head = (f"- **`{r.keras_hub_preset}`** ({r.arch}): KerasHub publishes "
            f"{r.keras_hub_params:,}; its own build holds {built:,} "
            f"(published {r.keras_hub_params - built:+,}).")
    if not reason:
        return head + " No explanation recorded."
    files = arch.presets if isinstance(arch.presets, tuple) else (arch.presets,)
    where = ", ".join(f if str(f).endswith(".toml") else f"presets/{f}.toml"
                      for f in map(str, files) if f)
    return f"{head} Quoted from `{where}` (not computed): “{_md_escape(reason)}”"


def _architectures(results: list[Verification]) -> str:
    by_arch: dict[str, list[Verification]] = {}
    for r in results:
        by_arch.setdefault(r.arch, []).append(r)
    out = ["## Architectures"]
    for aid in sorted(by_arch):
        arch = registry.get(aid)
        sets = [(r.name, r.hparams) for r in by_arch[aid]]
        hp_lines = [f"| {r.name} | " + ", ".join(f"{k}={v}" for k, v in r.hparams.items())
                    + f" | {_md_escape(_source(arch, r.name))} |" for r in by_arch[aid]]
        out += [
            "", f"### {aid}", "",
            f"{_md_escape(arch.title)}.", "",
            f"- source: {arch.source}",
            f"- counts: {arch.counting}",
            f"- checked by: {', '.join(label(f) for f in arch.checked_by)}",
        ]
        if arch.constraints:
            out.append("- constraints: " + "; ".join(c.describe() for c in arch.constraints))
        out += ["", "$$", formula_latex(arch).replace("\n\n", "\n$$\n\n$$\n"), "$$", "",
                symbols_markdown(arch), "",
                "| hyperparameter set | values | source |", "|---|---|---|", *hp_lines, "",
                breakdown_markdown(arch, sets)]
    return "\n".join(out)


def _source(arch, name: str) -> str:
    return arch.preset(name).source


def _versions_section(vers: dict[str, str]) -> str:
    lines = ["## Versions", "", "| package | version |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in vers.items()]
    return "\n".join(lines)


def _plots_section(results: list[Verification]) -> str:
    """Links to the figures :func:`write_report` draws beside the report (paramcount.plots)."""
    from paramcount.plots import REPORT_FIGURES, report_figure_names

    names = report_figure_names(results)
    if not names:
        return "## Plots\n\nNo published presets among these results: nothing to draw."
    lines = ["## Plots", "",
             "Drawn from the formulas at every published preset (example sets left out; a task "
             "model that shares its backbone's presets is drawn once, as the backbone)."]
    for name in names:
        lines += ["", f"![{REPORT_FIGURES[name]}]({name})"]
    if "composition.svg" in names:
        lines += ["", "Classes of component: each formula leaf is classified by its component "
                  "names, read from the leaf upwards; the first name that contains `norm` makes it "
                  "a norm, `attention` (or is `query`/`key`/`value`) attention, `ffn`/`mlp`/"
                  "`moe`/`experts`/`router` feed-forward, `rnn`/`lstm`/`gru` (or a gate name) "
                  "recurrent, `embed` (or is `token`/`position`/`segment`) embeddings, `head`/"
                  "`pooler`/`classifier` head. A leaf with no such name takes its sibling leaves' "
                  "class when they agree, else *other* (`paramcount.plots.RULES`)."]
    return "\n".join(lines)


SECTIONS: list[Callable[[list[Verification]], str]] = [_summary, _plots_section, _findings,
                                                       _architectures]


def _proofs_section(results: list[Verification], proofs: list | None = None) -> str:
    from paramcount.prove import proofs_section
    from paramcount.prove.output import proofs_markdown

    return proofs_section(results) if proofs is None else proofs_markdown(proofs)


def transformers_ids(results: list[Verification]) -> list[str]:
    """The architectures among ``results`` proven against transformers too (those with a
    transformers reference), or none when torch and transformers are not installed."""
    from paramcount.verify import transformers_missing

    if transformers_missing() is not None:
        return []
    return sorted({r.arch for r in results if registry.get(r.arch).transformers is not None})


def _transformers_proofs_section(results: list[Verification],
                                 proofs: list | None = None) -> str:
    from paramcount.prove.output import proofs_markdown
    from paramcount.prove.record import prove_against

    ids = transformers_ids(results)
    if not ids:
        return ("## Proofs against transformers\n\ntorch and transformers are not installed "
                "here: `pip install 'paramcount[transformers]'` and the report proves formula + "
                "deltas ≡ transformers too.")
    if proofs is None:
        proofs = [prove_against(a, "transformers") for a in ids]
    return proofs_markdown(proofs, framework="transformers")


def _rules_of_thumb_section(results: list[Verification]) -> str:
    from paramcount.render import rules_of_thumb_section

    return rules_of_thumb_section(results, {r.arch: registry.get(r.arch) for r in results})


def _frameworks_section(results: list[Verification]) -> str:
    from paramcount.report_frameworks import frameworks_section

    return frameworks_section(results)


def _unlisted_section(results: list[Verification]) -> str:
    from paramcount.report_frameworks import unlisted_section

    return unlisted_section(results)


SECTIONS += [_unlisted_section, _frameworks_section, _proofs_section,
             _transformers_proofs_section, _rules_of_thumb_section]


def generate(results: list[Verification] | None = None, *,
             vers: dict[str, str] | None = None, proofs: list | None = None,
             transformers_proofs: list | None = None) -> str:
    """The report's text (verifies everything when no results are given; proves every
    architecture among them unless their ``proofs`` and ``transformers_proofs`` are given, see
    :func:`proofs_for`)."""
    results = verify_all() if results is None else results
    # No grand total of "parameters verified": it would sum fine-tuned twins, example sets and
    # mismatches alike, and mean nothing.
    head = [
        "# paramcount conformance report", "",
        "Generated by `paramcount report`; do not edit by hand. Every number in the tables is "
        "computed: formulas by SymPy, builds by Keras / KerasHub, published figures read from "
        "KerasHub's installed preset metadata. Text marked *quoted* comes from the preset files "
        "(explanations written by hand, with their figures) and is named as such. The same "
        "inputs give a byte-identical file.", "",
        *([note, ""] if (note := missing_extra_note()) else []),
        CONVENTION,
        _versions_section(vers or versions()),
    ]
    given = {_proofs_section: proofs, _transformers_proofs_section: transformers_proofs}
    body = [section(results, given[section]) if section in given else section(results)
            for section in SECTIONS]
    return "\n".join(head) + "\n\n" + "\n\n".join(body) + "\n"


# The record committed with the project's report, where paramcount runs from a checkout.
PROJECT_RECORD = Path(__file__).resolve().parent.parent / "reports" / "proofs.json"


def proofs_source(output: str | os.PathLike, proofs: str | os.PathLike | None = None) -> Path:
    """The proof record a report written to ``output`` reuses: ``proofs`` when given (it must
    be a readable file), else the project's committed ``reports/proofs.json`` when paramcount
    runs from a checkout, else the record beside ``output``. A report written elsewhere (CI's
    artifact folder) so reuses the committed outcomes instead of proving everything cold."""
    from paramcount.errors import ParamcountError
    from paramcount.prove import record

    if proofs is not None:
        try:
            Path(proofs).read_bytes()
        except OSError as exc:
            raise ParamcountError(f"cannot read the proof record {os.fspath(proofs)}: "
                                  f"{exc.strerror or exc}") from None
        return Path(proofs)
    if PROJECT_RECORD.is_file():
        return PROJECT_RECORD
    return Path(output).parent / record.RECORD_NAME


def proofs_for(results: list[Verification], path: str | os.PathLike, *, progress=None,
               framework: str = "keras", proofs: str | os.PathLike | None = None,
               n_jobs: int | None = 1):
    """The proofs the report at ``path`` shows against ``framework`` (outcomes recorded in
    :func:`proofs_source` reused while their key matches, see :mod:`paramcount.prove.record`; the
    others proven in ``n_jobs`` worker processes, None: one per core) and the record to write
    with it."""
    from paramcount.prove import record

    prover = None
    if n_jobs != 1:
        from paramcount import parallel

        def prover(ids: list[str]) -> list:
            return parallel.prove_jobs(ids, n_jobs=n_jobs, framework=framework)

    ids = {r.arch for r in results} if framework == "keras" else transformers_ids(results)
    return record.proofs_for(ids, proofs_source(path, proofs), progress=progress,
                             framework=framework, prover=prover)


class WorkersDied(Exception):
    """Worker processes died during the report's work (a segfault, the OOM killer): nothing is
    written; ``lines`` names what each was on."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


def write_report(path: str | os.PathLike = DEFAULT_OUTPUT, text: str | None = None, *,
                 results: list[Verification] | None = None,
                 proof_record: dict | None = None,
                 transformers_record: dict | None = None,
                 proofs: str | os.PathLike | None = None, n_jobs: int | None = 1) -> Path:
    """Write the report and, with ``results`` (or when neither ``text`` nor ``results`` is given,
    so everything is verified here), the figures it links to (``composition.svg``,
    ``scaling.svg``; see :mod:`paramcount.plots`) beside it.

    The report and its figures are one group (:func:`paramcount._io.write_group`): every target
    is checked and every file written to a synced temporary file before any is renamed, the
    report last, so the figures never pair with a different report. Recorded proofs are read
    from ``proofs`` (default: :func:`proofs_source`); the record written goes beside the report.
    """
    from paramcount.prove import record

    path = Path(path)
    check_output(path)
    if text is None:
        results = verify_all() if results is None else results
        shown, proof_record = proofs_for(results, path, proofs=proofs, n_jobs=n_jobs)
        hf_proofs, transformers_record = proofs_for(results, path, framework="transformers",
                                                    proofs=proofs, n_jobs=n_jobs)
        died = [f"{p.arch} {c.case}: {c.message}" for p in (*shown, *hf_proofs)
                for c in p.cases if c.status == "error" and DIED in c.message]
        if died:  # the report would show a proof that never ran: not written
            raise WorkersDied(died)
        text = generate(results, proofs=shown, transformers_proofs=hf_proofs)
    files: dict[str | os.PathLike, str | bytes] = {}
    if proof_record is not None:  # the outcomes the report shows, keyed (prove/record.py)
        files[path.parent / record.RECORD_NAME] = record.dumps(proof_record, transformers_record)
    if results is not None:
        from paramcount.plots import report_plots

        files.update({path.parent / name: plot.svg() for name, plot in report_plots(results).items()})
    files[path] = text
    return write_group(files)[-1]
