"""``python -m console`` is ``python -m debate_core`` (see ``console.cli``)."""

import sys

from console.cli import main

sys.exit(main())
