"""Text Pictionary, HandRaiser's first task: the protocol ``pictionary`` (a describer, a guesser who may interrupt).

What it does: holds the task's modules, in the shape of a protocol package (``protocol``, ``params``,
``forms``, ``state``, ``loop``, ``views``, ``prompting``, ``demo``, ``consistency``, its ``docs.md``),
its checks (``matching``) and its entity pool (``entities``, ``entities.json``). The HandRaiser plug-in
(``protocols/handraiser/plugin.py``) registers it; the listener policies and the cost are HandRaiser's.

What it does not do: run on import, or hold the study harness's parts (``protocols/handraiser/study``).
"""
