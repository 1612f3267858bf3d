"""``python -m checker``."""

import sys

from checker.program import main

sys.exit(main())
