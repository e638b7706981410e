"""The analyses, each returning data: verification against the references (:mod:`.verify`,
:mod:`.builds`), proofs (:mod:`.prove`), derivation (:mod:`.derive`), the solver, configs and
checkpoints read in, and the compiled evaluator of ``count``'s fast path (:mod:`.compiled`)."""
