"""``paramcount verify``, ``prove`` and ``report``: the commands that check formulas against
built models (TensorFlow and torch load lazily, in the jobs)."""

from __future__ import annotations

from paramcount.cli.common import UsageError, _emit_json, _hparams, _reading, _reading_lines
from paramcount.core.errors import ParamcountError

__all__ = ["cmd_prove", "cmd_report", "cmd_verify", "residual_lines", "with_residuals"]


def _keras_hub_note(r) -> str:
    """The third figure of the three-way check, and whether a disagreement is explained."""
    if getattr(r, "keras_hub_params", None) is None:
        return ""
    if r.metadata_status == "agrees":
        return f"KerasHub published {r.keras_hub_params:,} ({r.keras_hub_preset}): agrees"
    built = r.reference + r.reference_nontrainable
    why = _differs_reason(r)
    return (f"KerasHub published {r.keras_hub_params:,} ({r.keras_hub_preset}): differs from its "
            f"own build by {r.keras_hub_params - built:+,}; "
            + (f"explained in the preset file: {why}" if why else "UNEXPLAINED"))


def _differs_reason(r) -> str | None:
    from paramcount.model import registry

    try:
        return registry.get(r.arch).preset(r.name).keras_hub_differs
    except ParamcountError:
        return None


def cmd_verify(args) -> int:
    from paramcount.analyze import budget, parallel
    from paramcount.analyze.verify import ErrorRow
    from paramcount.model import registry
    from paramcount.runtime import progress

    if getattr(args, "checkpoint", None):
        from paramcount.cli.checkpoint import run

        return run(args, "verify")
    if len(args.arch) > 1 and getattr(args, "config", None):
        raise UsageError("--config reads one architecture; name at most one")
    reading = _reading(args, args.arch[0] if args.arch else None)
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
            hp, name = _hparams(arch, args, reading)
            # The preset as published (no --set on top): KerasHub's figure is the third check.
            jobs.append((arch, hp, name, None if (args.set or reading) else args.preset))
        else:
            jobs += [(arch, hs.hparams, hs.name, hs.name) for hs in arch.hparam_sets()]
    for arch, hp, name, _ in jobs:  # refuse a runaway build before any build starts
        budget.check(arch, hp, name or "custom", args.max_build)
    if reading is not None and not args.json:
        print("\n".join(_reading_lines(reading)))
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
    results = [r for r in outcomes if not isinstance(r, dict)]
    skipped += [r for r in outcomes if isinstance(r, dict)]
    if not args.json:
        for row in skipped:
            print(f"{'skipped':<8} {row['arch']:<24} {row['preset']:<28} {row['reason']}")
    if args.json:
        _emit_json([with_residuals(r) for r in results] + skipped)
    else:
        for r in results:
            if isinstance(r, ErrorRow):
                print(f"{'ERROR':<8} {r.arch:<24} {r.name:<28} {r.error}")
                continue
            print(f"{r.status:<8} {r.arch:<24} {r.name:<28} formula {r.formula:>16,}  "
                  f"{r.reference_label} {r.reference:>16,}  diff {r.difference:+,}")
            for m in r.mismatches():
                print(f"         - {m}")
            for line in residual_lines(r):
                print(f"         ~ residual {line}")
            note = _keras_hub_note(r)
            if note:
                print(f"         = {note}")
        errors = sum(isinstance(r, ErrorRow) for r in results)
        bad = sum(not r.ok for r in results) - errors
        print(f"{len(results) - bad - errors} match, {bad} mismatch"
              + (f", {errors} error" if errors else ""))
    return 0 if all(r.ok for r in results) else 1


def residual_lines(r) -> list[str]:
    """For a mismatch: Keras − formula per component, as exact polynomials (paramcount.analyze.prove)."""
    if r.ok or r.framework != "keras":  # prove's oracle is the Keras build
        return []
    from paramcount.analyze import prove

    try:
        return [res.text() for res in prove.explain_hparams(r.arch, r.hparams)]
    except ParamcountError as exc:
        return [f"not recovered: {exc}"]


def with_residuals(r) -> dict:
    from paramcount.analyze.verify import ErrorRow

    out = r.to_json()
    if isinstance(r, ErrorRow):
        return out
    if r.keras_hub_params is not None:
        out["keras_hub_status"] = r.metadata_status
        out["keras_hub_differs_explained"] = (_differs_reason(r)
                                              if r.metadata_status == "differs" else None)
    if not r.ok and r.framework == "keras":
        from paramcount.analyze import prove

        try:
            out["residuals"] = [x.to_json() for x in prove.explain_hparams(r.arch, r.hparams)]
        except ParamcountError as exc:
            out["residuals"] = {"error": str(exc)}
    return out


def _builds_name(framework: str | None) -> str:
    return "transformers" if framework == "transformers" else "Keras"


def cmd_prove(args) -> int:
    import sys

    from paramcount.analyze import parallel, prove
    from paramcount.analyze.verify import require_transformers, transformers_missing
    from paramcount.model import registry
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
    # In worker processes of each proof's side (torch for transformers), in the ids' order.
    with progress.Bar(len(ids), quiet=args.quiet) as bar:
        proofs: list = []
        for fw in ("keras", "transformers"):
            mine = [a for a in ids if framework(a) == fw]
            proofs += zip(mine, parallel.prove_jobs(mine, n_jobs=args.jobs, framework=fw,
                                                    progress=bar.advance), strict=True)
    order = {a: i for i, a in enumerate(ids)}
    proofs = [p for _, p in sorted(proofs, key=lambda ap: order[ap[0]])]
    if args.json:
        _emit_json([p.to_json() for p in proofs])
    else:
        for p in proofs:
            print(prove.proof_text(p, framework=framework(p.arch)), flush=True)
        states = [p.status for p in proofs]
        # each proof's builds under its own reference's name (a class only transformers
        # builds is proven against transformers, with or without --framework)
        builds = {fw: sum(p.builds for p in proofs if framework(p.arch) == fw)
                  for fw in ("keras", "transformers")}
        tally = " and ".join(f"{n} {_builds_name(fw)} builds"
                             for fw, n in builds.items()
                             if n) or f"0 {_builds_name(args.framework)} builds"
        print(f"{states.count('proven')} proven, {states.count('refuted')} refuted, "
              f"{states.count('inconclusive')} inconclusive, {states.count('error')} error; "
              f"{tally}, {sum(p.seconds for p in proofs):.1f} s")
    return 0 if all(p.status == "proven" for p in proofs) else 1


def cmd_report(args) -> int:
    import sys
    from pathlib import Path

    from paramcount.output import report
    from paramcount.runtime import extras, progress
    extras.require("report", "report")  # one line on how to install it, before any work
    # Check the destination before the (long) verification run (the true reason, exit 2), and
    # again when writing.
    target = report.check_target(Path(args.output), new_folders=False)
    recorded = report.proofs_source(target, args.proofs)
    note = report.missing_extra_note()
    if note:  # without the transformers extra: what is left out, and that it is not the committed
        print(f"paramcount: {note.replace('**', '')}", file=sys.stderr)
    try:
        with progress.Bar(report.count_jobs(), quiet=args.quiet) as bar:
            results = report.verify_all(progress=bar, n_jobs=args.jobs)
        # A row that could not run (its worker died, its builder raised): named, nothing written
        errors = [f"{'ERROR':<8} {r.arch:<24} {r.name:<28} {getattr(r, 'error', '')}"
                  for r in results if r.status == "error"]
        if not errors:
            try:  # proofs whose recorded outcome no longer holds are proven in workers
                path = report.write_report(target, results=results, n_jobs=args.jobs,
                                           proofs=recorded, sweep=args.sweep)
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
