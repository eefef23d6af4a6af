"""The engine's version, in a module of its own.

What it does: holds ``__version__`` (the version ``pyproject.toml`` names), which
the package re-exports and ``debate`` stamps on every ``DebateStarted``.

What it does not do: import anything; it lives apart from ``debate_core/__init__``
so that a module the package imports can read it without importing the package
back (``tests/test_architecture.py`` checks that ``debate_core`` has no import circle).
"""

__version__ = "0.1.0"
