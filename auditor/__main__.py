import sys

from auditor.shell.cli import main

if __name__ == "__main__":
    sys.exit(main())
