"""The built-in protocols: five plugin packages, one folder each, shipped with the engine.

What it does: lists the built-in plugin modules in ``PLUGINS``, which the
plugin manager (``debate_core.plugins.manager``) registers first, through the
same path as an installed package's plugin; a plain checkout on ``sys.path``
sees them without being reinstalled. Each package has the same shape: its
``plugin.py`` (the hooks), ``protocol.py``, ``params.py``, ``forms.py``, its
loop, ``views.py``, ``prompts/``, ``demo.py``, ``consistency.py``, and where
it has them its ``events.py``, ``web.py`` (web app), ``terminal.py``
(terminal) and ``study/`` (study harness). A protocol package imports the
engine (``debate_core``) and never another protocol; only its ``web.py``,
``terminal.py`` and ``study/`` import the front end they serve, and only
lazily from ``plugin.py``'s hooks.

What it does not do: define what a protocol is (``debate_core.protocols``
does: ``Protocol``, the registry) or run debates (``debate_core.debate``).
"""

PLUGINS = (
    "protocols.kimura.plugin",
    "protocols.parliament.plugin",
    "protocols.handraiser.plugin",
    "protocols.ace.plugin",
    "protocols.sid.plugin",
)
