"""The application shell: the ``dp-audit`` command line, the pytest plugin, loading built-in
adapters by name, progress output and the conformance check for adapter authors.  The top
layer: it may import everything, nothing imports it."""
