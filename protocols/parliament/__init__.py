"""Parliament: prover-critic debates (British Parliament, American Congress, Socratic) and a CoT control.

A plug-in protocol: registered by its ``plugin`` module (``register_protocols``),
one of the plugin manager's built-ins; the engine is not edited for it.
"""

from protocols.parliament.protocol import ParliamentProtocol

__all__ = ["ParliamentProtocol"]
