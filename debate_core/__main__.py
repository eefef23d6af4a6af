"""``python -m debate_core``: the terminal front end, found by entry point.

The engine is a pure library: it prints nothing and imports no consumer. Its
command line lives in the ``console`` package, registered in the project's
metadata under the entry-point group ``interruptible_debate.frontends`` as
``console``; this module only finds and calls it.
"""

import sys
from importlib.metadata import entry_points


def main() -> int:
    found = entry_points(group="interruptible_debate.frontends", name="console")
    if not found:
        sys.stderr.write("the console front end is not installed (pip install -e . installs it)\n")
        return 2
    return int(next(iter(found)).load()(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
