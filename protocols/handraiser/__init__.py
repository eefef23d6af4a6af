"""HandRaiser: token-chunk streaming with a listening moderator, and its listener policies.

A plug-in protocol, registered by its ``plugin`` module through the plugin
manager. See ``protocol`` for the whole, ``cost`` for the paper's cost.
"""

from protocols.handraiser.protocol import HandRaiserProtocol

__all__ = ["HandRaiserProtocol"]
