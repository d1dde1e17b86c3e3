"""The core vocabulary: claims and their kinds, families, the adapter spec and its check,
trials and events, configs, results, errors.  Imports nothing of dp-audit but ``dp_params``
(the argument checks, and the exact zCDP conversion the zCDP claim uses), never the mechanisms
under audit; every layer above speaks these words."""
