"""The core vocabulary: claims and their kinds, families, the adapter spec and its check,
trials and events, configs, results, errors.  Imports nothing of dp-audit but
``reference_mechanisms`` (the argument checks, and the exact zCDP conversion the zCDP claim
uses); every layer above speaks these words."""
