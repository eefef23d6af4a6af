"""Entry point for ``python -m debate_core`` (see ``debate_core.cli``)."""

import sys

from debate_core.cli import main

sys.exit(main())
