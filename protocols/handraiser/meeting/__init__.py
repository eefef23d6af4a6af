"""Meeting Scheduling, HandRaiser's 3-agent task: the protocol ``scheduling`` (a traveler, two planners).

What it does: holds the task's modules, in the shape of a protocol package (``protocol``, ``params``,
``cases``, ``forms``, ``state``, ``loop``, ``views``, ``prompting``, ``demo``, ``consistency``, its
``docs.md``). The case model, verifier, schedule parser and briefings are the pure package
``protocols/handraiser/scheduling``; the HandRaiser plug-in (``protocols/handraiser/plugin.py``) registers
the protocol; the listener policies and the cost are HandRaiser's.

What it does not do: run on import, or hold the study harness's parts (``protocols/handraiser/study``).
"""
