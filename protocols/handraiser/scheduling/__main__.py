"""``python -m protocols.handraiser.scheduling [--count 50] [--seed 0] [--out FILE] [--check]``: (re)write the cases.

What it does: runs ``generate.main`` (see there). What it does not do: anything else.
"""

import sys

from protocols.handraiser.scheduling.generate import main

sys.exit(main())
