"""The built-in protocols: six plugin packages, one folder each, shipped with the engine.

What it does: lists the built-in plugin modules in ``PLUGINS``, which the
plugin manager (``debate_core.plugins.manager``) registers first, through the
same path as an installed package's plugin; a plain checkout on ``sys.path``
sees them without being reinstalled. Each package has the same shape, the
same names for the same things: ``plugin.py`` (the hooks), ``protocol.py``
(the ``Protocol``), ``params.py`` (its parameters), ``forms.py`` (its
request kinds), ``state.py`` (the run state: one debate's seats, views and
record, the object the loop takes), ``loop.py`` (the order of moves),
``views.py`` (what a seat is shown), ``prompting.py`` and ``prompts/`` (the
wording), ``demo.py`` (the scripted demo), ``consistency.py`` (what its
streams may hold), and where it has them ``events.py``, ``web.py`` (web
app), ``terminal.py`` (terminal) and ``study/`` (study harness), and
``tests/`` (its own tests, collected by pytest, not shipped in the wheel),
and ``docs.md`` (its page, with what it departs from in its paper);
``tests/test_protocol_shape.py`` checks the core modules and the page. A protocol package imports the
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
    "protocols.baselines.plugin",
)
