"""The engine: plans trials, draws seeded outputs (in this process, worker processes or on Dask),
certifies events under the family-wise alpha and returns frozen results.  Uses ``core`` and
``statistics``; knows nothing of the CLI, the reports or any particular attack."""
