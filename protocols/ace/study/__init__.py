"""ACE's study code, a front end of the protocol for ``python -m experiments``.

What it does: ``report`` reads a comparison's ACE debates into the tables of
the paper (accuracy per task, ablations, acts, rounds, tokens). It may import
``experiments`` and ``storage``; the engine never imports it (``plugin``
does, inside its hook).

What it does not do: run debates (the protocol's engine modules and
``experiments.compare`` do).
"""
