"""``python -m protocols.handraiser.scheduling [--count 50] [--seed 0] [--out FILE] [--check]``: (re)write the cases.

What it does: runs ``study.scheduling_cases.main`` (see there), imported only when run, as the
protocol's front-end modules are. What it does not do: anything else.
"""

import sys


def _run() -> int:
    from protocols.handraiser.study.scheduling_cases import main

    return main()


if __name__ == "__main__":
    sys.exit(_run())
