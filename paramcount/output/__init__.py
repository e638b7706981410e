"""Rendering: text, markdown, JSON and LaTeX of formulas, counts and verifications
(:mod:`.render`, :mod:`.count_output`), the plots, and the conformance report's pages. Formats
what the analyses return; computes nothing of its own."""
