"""Kimura et al.'s paper study (Sections IV-VI), a front end of the protocol for ``python -m experiments``.

What it does: ``spec`` (a study's specification: questions x settings x
conditions and the paper's debate rules), ``pool`` and ``pool_generation``
(the conditioned initial states of Section IV-B: the agents Alex, Chris and
Jenny and the answers assigned to them), ``runner`` (the study over its
cells, resumable, shared by several workers), ``scripted`` (a model-free
stand-in), ``metrics`` and ``analysis`` (Section VI-B's effects of
interruptions, the trajectories, Tables V-X), ``figures`` and ``report``
(Figures 1-9, the report folder), ``cli`` (the ``run`` sub-command) and
``kind`` (the study as the Analysis tab and ``report`` show it). It may
import ``experiments`` and ``storage``; the engine never imports it (the
plugin does, inside its hooks).

What it does not do: run a debate's turns (the protocol's engine modules do).
"""
