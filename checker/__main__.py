"""``python -m checker``."""

import sys

try:
    from checker.command.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command line is imported: as checker.command.interrupts says
    sys.stderr.write("aigcheck: interrupted\n")
    sys.exit(130)

sys.exit(main())
