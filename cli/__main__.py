"""``python -m cli`` is ``ddz-table``."""

import sys

from cli.main import main

sys.exit(main())
