"""The core vocabulary: claims, families, the adapter spec and its check, trials and events,
configs, results, errors.  Imports nothing of dp-audit but ``reference_mechanisms.params`` (the
argument checks); every layer above speaks these words."""
