"""``python -m auditor`` was the command line until 0.2; it is ``python -m dp_audit`` now.

Only the new name is printed: running the shell from here would make ``auditor`` import the
package above it.  Exit 2, a usage error, so that a CI script never reads it as a verdict."""

import sys

if __name__ == "__main__":
    print(
        "dp-audit: 'python -m auditor' is now 'python -m dp_audit' (or the 'dp-audit' command); "
        "see CHANGELOG.md",
        file=sys.stderr,
    )
    sys.exit(2)
