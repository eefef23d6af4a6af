"""Debate protocols: each owns its loop over the kernel; found by name in the registry.

What it does: ``Protocol`` (``base``) is what a protocol is; ``registry``
finds protocols (built in, by entry point, or registered at run time) and
checks a configuration against one. Each protocol is a package of its own
(``kimura`` today), holding its loop, parameters, request kinds and prompts.

What it does not do: run debates (``debate_core.debate`` does).
"""

from debate_core.protocols.base import Protocol, ProtocolParams, Requirement, RoleSpec
from debate_core.protocols.registry import available, describe, protocol_class, register, resolve, unregister

__all__ = [
    "Protocol",
    "ProtocolParams",
    "Requirement",
    "RoleSpec",
    "available",
    "describe",
    "protocol_class",
    "register",
    "resolve",
    "unregister",
]
