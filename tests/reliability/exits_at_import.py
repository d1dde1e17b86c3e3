"""A target whose module calls ``sys.exit(0)`` while it is imported."""

import sys

sys.exit(0)
