"""The statistics: exact Clopper-Pearson bounds on epsilon, the power statement, white-box
exact evidence, and (``events``) the proposers that choose candidate events on training data."""
