"""``python -m lakeindex``: the same as the ``lakeindex`` command."""

import sys

from lakeindex.cli import console_main

sys.exit(console_main())
