"""ACE's own tests, kept with the protocol: what it does, how the front ends show it, its study.

Collected by pytest (pyproject testpaths) with the shared fixtures and lanes of tests/ (conftest.py at the
root); not shipped with the package (pyproject excludes ``protocols.*.tests*``). Engine, front-end and
harness tests that hold for every protocol stay in tests/.
"""
