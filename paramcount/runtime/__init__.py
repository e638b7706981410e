"""How work runs: input files read within bounds (:mod:`.inputs`: regular files only, one JSON
parser), output files written atomically (:mod:`.files`), the on-disk cache
(:mod:`.cache`, :mod:`.cache_store`), the optional extras, progress bars, and one framework per
process (:mod:`.isolate`). Knows nothing of what is analysed."""
