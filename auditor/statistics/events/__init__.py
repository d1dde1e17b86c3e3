"""Event proposers: turn a training split of outputs into a few candidate events (thresholds,
histogram bins, bit patterns, a classifier score).  They only choose; certification happens on
fresh outputs in the engine."""
