"""ACE: Analyze-Compose-Execute debate with an observer and a library of discussion acts, and its baselines."""

from protocols.ace.protocol import AceProtocol

__all__ = ["AceProtocol"]
