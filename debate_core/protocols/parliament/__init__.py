"""Parliament: prover-critic debates (British Parliament, American Congress, Socratic) and a CoT control.

A plug-in protocol: registered through the ``interruptible_debate.protocols``
entry point in ``pyproject.toml``; the engine is not edited for it.
"""

from debate_core.protocols.parliament.protocol import ParliamentProtocol

__all__ = ["ParliamentProtocol"]
