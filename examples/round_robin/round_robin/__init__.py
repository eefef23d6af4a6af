"""A round-robin debate, written as an outside plugin: everyone states a case in turn, then answers.

What it does: ``protocol`` holds the protocol (``round-robin``: its forms, its
parameters, its loop over the engine's kernel), ``events`` its own event
(``TallyTaken``: the answers counted after each round), ``report`` its section
of a comparison report, ``data`` a tiny data set of riddles, and ``plugin``
the hooks that hand all of it to the host. It uses only the host's public API
(``debate_core``, and ``experiments.extensions`` inside the study hooks).

What it does not do: touch anything outside this folder. The web app, the
terminal, the store, replay and the study harness pick it up through the hooks.
"""
