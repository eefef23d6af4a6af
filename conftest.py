"""The root conftest: registers the shared fixtures and hooks (tests/plugin.py) for every test folder.

Tests live in tests/ (the engine, the front ends, the harness) and in each protocol's own
``protocols/<name>/tests/`` (pyproject testpaths); ``pytest_plugins`` is honoured only in the rootdir's
conftest, so the shared plugin is registered here, once, and no other conftest registers it again.
It defines no fixture or hook itself.
"""

pytest_plugins = ["tests.plugin"]
