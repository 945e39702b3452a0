"""``python -m lakeindex.cli``: the same as the ``lakeindex`` command."""

import sys

from lakeindex.cli import main

sys.exit(main())
