"""ACE's study code, a front end of the protocol for ``python -m experiments``.

What it does: ``report`` reads a comparison's ACE debates into the tables of
the paper (accuracy per task, ablations, acts, rounds, tokens); ``tables``
draws the paper's Table 1 and Table 2 and ``sweep`` its Fig. 4 rounds sweep
from a study's results; ``commands`` brings ``ace-table1``, ``ace-table2``
and ``ace-rounds-sweep`` (``compare`` with the paper's settings). It may
import ``experiments`` and ``storage``; the engine never imports it
(``plugin`` does, inside its hooks).

What it does not do: run debates (the protocol's engine modules and
``experiments.compare`` do).
"""
