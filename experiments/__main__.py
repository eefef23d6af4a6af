"""Entry point for ``python -m experiments`` (see ``experiments.cli``)."""

import sys

from experiments.cli import main

sys.exit(main())
