"""The baselines the papers compare against, as one protocol family (``baselines``), issue #26.

What it does: holds the package; ``protocol`` defines ``BaselinesProtocol``, whose variants are the
baselines (IO, CoT, Self-Consistency, Step-Back prompting, Self-Contrast, parallel debate, TAR,
DMAD, RTC, RPD), and ``plugin`` registers it.

What it does not do: anything on import.
"""
