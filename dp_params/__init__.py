"""The numbers of a privacy claim, checked and converted exactly: argument checks, the exact
rational value of a number, the zCDP <-> (epsilon, delta) conversion and the one search for
the smallest epsilon whose delta reaches a target (``epsilon_search``).

The bottom layer.  The vocabulary (``auditor.core``) and the mechanisms under audit
(``reference_mechanisms``) both rest on it, so neither imports the other; it imports nothing
of dp-audit."""
