"""``paramcount verify``, ``prove`` and ``report``: the commands that check formulas against
built models (TensorFlow and torch load lazily, in the jobs)."""

from __future__ import annotations

from paramcount.cli.common import UsageError, config_reading, emit_json, resolved_hparams
from paramcount.core.errors import ParamcountError

__all__ = ["cmd_prove", "cmd_report", "cmd_verify"]


def _differs_reason(r) -> str | None:
    from paramcount.model import registry

    try:
        return registry.get(r.arch).preset(r.name).keras_hub_differs
    except ParamcountError:
        return None


def cmd_verify(args) -> int:
    from paramcount.analyze import budget, parallel
    from paramcount.model import registry
    from paramcount.output.commands import VerifyResult, verify_json, verify_text
    from paramcount.runtime import progress

    if getattr(args, "checkpoint", None):
        from paramcount.cli.checkpoint import run

        return run(args, "verify")
    if len(args.arch) > 1 and getattr(args, "config", None):
        raise UsageError("--config reads one architecture; name at most one")
    reading = config_reading(args, args.arch[0] if args.arch else None)
    ids = ([reading.arch] if reading else args.arch) or sorted(registry.architectures())
    archs = [registry.get(a) for a in ids]  # unknown ids fail before anything is built
    framework = getattr(args, "framework", "keras")
    fws = ["keras", "transformers"] if framework == "all" else [framework]
    if "keras" in fws and any("keras" in arch.checked_by for arch in archs):
        from paramcount.runtime import extras

        extras.require("keras", "verify")  # one line on how to install it, before anything is built
    if "transformers" in fws:
        from paramcount.analyze.verify import require_transformers
        from paramcount.model.frameworks import for_framework
        from paramcount.runtime import extras

        extras.require("transformers", "--framework transformers")  # before importing torch
        require_transformers()  # one line on how to install it, before anything is built
        # named with --framework transformers: say which have no reference yet; with "all",
        # each architecture is verified on every framework it has (Keras at least)
        if (args.arch or reading) and framework == "transformers":
            for arch in archs:
                for_framework(arch, "transformers")  # says which have no reference yet
    jobs = []
    for arch in archs:
        if args.preset or args.set or reading:
            hp, name = resolved_hparams(arch, args, reading)
            # The preset as published (no --set on top): KerasHub's figure is the third check.
            jobs.append((arch, hp, name, None if (args.set or reading) else args.preset))
        else:
            jobs += [(arch, hs.hparams, hs.name, hs.name) for hs in arch.hparam_sets()]
    for arch, hp, name, _ in jobs:  # refuse a runaway build before any build starts
        budget.check(arch, hp, name or "custom", args.max_build)
    if reading is not None and not args.json:
        from paramcount.output.count_result import reading_lines

        print("\n".join(reading_lines(reading)))
    skipped: list[dict] = []
    for arch, hp, name, _ in jobs:  # a model Keras cannot build (Falcon-7B): said, not failed
        if "keras" in fws and "keras" not in arch.checked_by:
            reason = f"no Keras build: checked by {' and '.join(arch.checked_by)} only"
            only = arch.transformers.pick(hp).only if arch.transformers is not None else None
            if only:
                reason += f" ({only})"
            skipped.append({"arch": arch.id, "preset": name, "framework": "keras",
                            "status": "skipped", "reason": reason})
    runs = [parallel.Job(arch, hp, name or "custom", preset=preset, framework=fw)
            for arch, hp, name, preset in jobs for fw in fws if fw in arch.checked_by]
    with progress.Bar(len(runs), quiet=args.quiet) as bar:
        for job in runs:
            size = budget.build_size(job.arch, job.hparams)
            if size > budget.NOTICE_AT:
                bar.note(f"{job.arch.id} [{job.name}]: a large build ({size:,} layer instances), "
                         "this may take a while")
        outcomes = parallel.verify_jobs(runs, n_jobs=args.jobs, progress=bar)
    # transformers' own validation refuses some sets Keras builds (an odd rotary width): those
    # come back as skipped rows, reported, not mismatches of the formula.
    result = VerifyResult(
        tuple(_checked(r) for r in outcomes if not isinstance(r, dict)),
        (*skipped, *(r for r in outcomes if isinstance(r, dict))))
    if args.json:
        emit_json(verify_json(result))
    else:
        print(verify_text(result))
    return 0 if result.ok else 1


def _checked(r):
    """A verification with what ``verify`` adds: a Keras mismatch's residuals (Keras − formula
    per component, as exact polynomials: :mod:`paramcount.analyze.prove`), and the preset
    file's reason for a KerasHub figure that differs from its own build."""
    from paramcount.analyze.verify import ErrorRow
    from paramcount.output.commands import Checked

    if isinstance(r, ErrorRow):
        return Checked(r)
    residuals, error = None, None
    if not r.ok and r.framework == "keras":  # prove's oracle is the Keras build
        from paramcount.analyze import prove

        try:
            residuals = tuple(prove.explain_hparams(r.arch, r.hparams))
        except ParamcountError as exc:
            error = str(exc)
    why = None
    if r.keras_hub_params is not None and r.metadata_status != "agrees":
        why = _differs_reason(r)
    return Checked(r, residuals, error, why)


# What proving every architecture with an empty cache costs, said before it starts (issue 30:
# bare `prove` did not finish within 30 minutes cold on a loaded 2-core machine).
COLD = "minutes with an empty cache: 6 to 8 at -j 2 on two quiet cores, far longer on a busy machine"


def _proven(ids: list[str], framework: str, source, n_jobs: int | None,
            bar) -> tuple[dict, set[str]]:
    """``ids`` proven against ``framework`` in worker processes, but those whose outcome the
    record at ``source`` holds under their current key (:mod:`paramcount.analyze.prove.record`:
    formula, builder, libraries and prover unchanged), read from it as ``report`` reads them:
    id → proof, and the ids read from the record."""
    from paramcount.analyze import parallel
    from paramcount.analyze.prove import record
    from paramcount.model import registry

    fresh: list[str] = []

    def prover(todo: list[str]) -> list:
        fresh.extend(todo)
        return parallel.prove_jobs(todo, n_jobs=n_jobs, framework=framework,
                                   progress=bar.advance)

    # keyed where a key exists (against transformers: an architecture with a reference; any
    # other is proven, and fails as it did before records were read)
    keyed = [] if source is None else [a for a in ids if framework == "keras"
                                       or registry.get(a).transformers is not None]
    current = sorted(set(keyed) - set(record.stale(keyed, source, framework)))
    found: dict = {}
    if current:
        found.update(zip(current, record.proofs_for(current, source, framework=framework,
                                                    prover=prover)[0], strict=True))
    reused = set(found) - set(fresh)
    for a in sorted(reused):
        bar.advance(f"{a}: recorded")
    todo = [a for a in ids if a not in found]
    if todo:
        found.update(zip(todo, prover(todo), strict=True))
    return found, reused


def cmd_prove(args) -> int:
    import os
    import sys

    from paramcount.analyze.verify import require_transformers, transformers_missing
    from paramcount.model import registry
    from paramcount.output import report
    from paramcount.output.commands import prove_tally
    from paramcount.output.proofs import proof_text
    from paramcount.runtime import progress

    ids = args.arch or sorted(registry.architectures())
    for a in ids:
        registry.get(a)  # unknown ids fail before anything is built
    if args.framework == "transformers" and not args.arch:  # those that have a reference
        ids = [a for a in ids if registry.get(a).transformers is not None]

    # formula + deltas ≡ transformers; also for a model only transformers builds
    def framework(aid: str) -> str:
        hf = args.framework == "transformers" or "keras" not in registry.get(aid).checked_by
        return "transformers" if hf else "keras"

    from paramcount.runtime import extras

    if any(framework(a) == "keras" for a in ids):
        extras.require("keras", "prove")  # (imports nothing)
    if any(framework(a) == "transformers" for a in ids):
        if args.framework == "transformers" or args.arch:
            require_transformers()  # one line on how to install it, before anything is proven
        else:  # bare `prove` without the extra: what only transformers builds is left out
            left = [a for a in ids if framework(a) == "transformers"]
            if transformers_missing() is not None:
                ids = [a for a in ids if a not in left]
                print(f"paramcount: left out (only transformers builds them; "
                      f"{transformers_missing()} is not installed: pip install "
                      f"'paramcount[transformers]'): {', '.join(left)}", file=sys.stderr)
    # The record `report` reuses (the project's reports/proofs.json, or --proofs PATH), decided
    # before any work; --no-record proves everything here (the on-disk cache still answers).
    source = None if args.no_record else report.reusable_record(None, args.proofs)
    if source is None and not args.arch:
        why = "--no-record" if args.no_record else "no proof record to reuse (no checkout's " \
            "reports/proofs.json; --proofs PATH names one)"
        print(f"paramcount: {why}: proving all {len(ids)} architectures here, {COLD}",
              file=sys.stderr)
    # In worker processes of each proof's side (torch for transformers), in the ids' order.
    found: dict = {}
    reused: set[str] = set()
    with progress.Bar(len(ids), quiet=args.quiet) as bar:
        for fw in ("keras", "transformers"):
            got, from_record = _proven([a for a in ids if framework(a) == fw], fw, source,
                                       args.jobs, bar)
            found.update(got)
            reused |= from_record
    proofs = [found[a] for a in ids]
    where = os.fspath(source) if source is not None else None
    if args.json:
        emit_json([{**p.to_json(), "recorded": where if p.arch in reused else None}
                   for p in proofs])
    else:
        for p in proofs:
            print(proof_text(p, framework=framework(p.arch),
                             recorded=where if p.arch in reused else None), flush=True)
        tally = prove_tally(proofs, framework, args.framework)
        if reused:
            tally += (f"; {len(reused)} read from {where}, their key unchanged "
                      "(--no-record proves them here)")
        print(tally)
    return 0 if all(p.status == "proven" for p in proofs) else 1


def cmd_report(args) -> int:
    import sys
    from pathlib import Path

    from paramcount.model import registry
    from paramcount.output import report
    from paramcount.output.commands import error_line
    from paramcount.runtime import extras, progress
    extras.require("report", "report")  # one line on how to install it, before any work
    # Check the destination before the (long) verification run (the true reason, exit 2), and
    # again when writing.
    target = report.check_target(Path(args.output), new_folders=False)
    # The proof record, decided before the (long) verification run: a missing one once failed
    # the report after all its work (issue 30). None to reuse: refused at once, unless
    # --no-record asks for every proof here.
    recorded = None if args.no_record else report.reusable_record(target, args.proofs)
    n = len(set(registry.architectures()) - set(report.left_out()))  # what it proves here
    if recorded is None and not args.no_record:
        raise ParamcountError(
            f"no proof record to reuse (no checkout's reports/proofs.json, none beside {target}): "
            f"name one with --proofs PATH, or prove all {n} architectures here with --no-record "
            f"({COLD})")
    if recorded is None:
        print(f"paramcount: --no-record: proving all {n} architectures here, {COLD}",
              file=sys.stderr)
    note = report.missing_extra_note()
    if note:  # without the transformers extra: what is left out, and that it is not the committed
        print(f"paramcount: {note.replace('**', '')}", file=sys.stderr)
    try:
        with progress.Bar(report.count_jobs(), quiet=args.quiet) as bar:
            results = report.verify_all(progress=bar, n_jobs=args.jobs)
        # A row that could not run (its worker died, its builder raised): named, nothing written
        errors = [error_line(r.arch, r.name, getattr(r, "error", ""))
                  for r in results if r.status == "error"]
        if not errors:
            try:  # proofs whose recorded outcome no longer holds are proven in workers
                path = report.write_report(target, results=results, n_jobs=args.jobs,
                                           proofs=recorded, sweep=args.sweep,
                                           reuse=recorded is not None)
            except report.WorkersDied as exc:
                errors = [f"{'ERROR':<8} {line}" for line in exc.lines]
    except OSError as exc:
        raise ParamcountError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    if errors:
        print("\n".join(errors))
        print(f"{len(errors)} error: {args.output} not written")
        return 1
    if not args.quiet:
        print(f"wrote {path}")
    return 0
