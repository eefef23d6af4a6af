"""SID: a debate driven by the model's own signals (confidence-gated early exit, attention compression)."""

from protocols.sid.protocol import SidProtocol

__all__ = ["SidProtocol"]
