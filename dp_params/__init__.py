"""The numbers of a privacy claim, checked and converted exactly: argument checks, the exact
rational value of a number, and the zCDP <-> (epsilon, delta) conversion.

The bottom layer.  The vocabulary (``auditor.core``) and the mechanisms under audit
(``reference_mechanisms``) both rest on it, so neither imports the other; it imports nothing
of dp-audit."""
