"""Entry point for ``python -m storage`` (see ``storage.cli``)."""

import sys

from storage.cli import main

sys.exit(main())
