"""SID's study code, a front end of the protocol for ``python -m experiments``.

What it does: ``report`` (the paper's Table 3 and the gate statistic's
histogram in a comparison report) and ``train_gate`` (the ``train-gate``
sub-command: the calibrated early-exit gate from stored debates). It may
import ``experiments`` and ``storage``; the engine never imports it
(``plugin`` does, inside its hooks).

What it does not do: run debates (the protocol's engine modules and
``experiments.compare`` do).
"""
