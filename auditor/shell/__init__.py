"""The application shell: the ``dp-audit`` command line, the pytest plugin, loading built-in
adapters by name and progress output.  The top layer: it may import everything, nothing
imports it."""
