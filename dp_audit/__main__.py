import sys

from dp_audit.cli import main

if __name__ == "__main__":
    sys.exit(main())
