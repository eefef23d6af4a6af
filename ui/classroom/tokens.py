"""The secrets of a classroom debate: unguessable tokens kept only as digests, and short join codes.

What it does: ``new_token`` makes a token for a browser to hold
(``secrets.token_urlsafe(32)``: 256 random bits); the room keeps only its
SHA-256 ``digest`` and checks a presented token with ``matches`` (a
constant-time comparison, ``hmac.compare_digest``). A token that is not a
plain string of a sensible length is no token (``digest`` gives None), so
nothing a page sends can raise here. ``new_join_code`` makes a short code
to type from a projector, from an alphabet with no look-alikes (no 0/O,
1/I/L); ``normalize_code`` reads what a person typed (any case, spaces and
dashes ignored) and gives None when it cannot be a code.

What it does not do: remember anything or log anything: no token, digest or
code is ever written to a log by this package.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable

TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 200  # a real token has 43; anything far longer is not one (and not hashed)
JOIN_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read off a projector without doubt
JOIN_CODE_LENGTH = 6  # 31**6, about 887 million codes


def new_token() -> str:
    """A fresh secret for one browser: URL-safe, 256 random bits."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def digest(token: object) -> bytes | None:
    """What the room keeps of a token: its SHA-256 (None for anything that is not a plausible token)."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
        return None
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def matches(token: object, kept: bytes) -> bool:
    """Whether ``token`` is the one whose digest is ``kept``, compared in constant time."""
    found = digest(token)
    return found is not None and hmac.compare_digest(found, kept)


def new_join_code(choice: Callable[[str], str] = secrets.choice) -> str:
    """A short code for the join link, from ``JOIN_ALPHABET`` (``choice`` is injectable for tests)."""
    return "".join(choice(JOIN_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def normalize_code(text: object) -> str | None:
    """A typed join code in its canonical form (upper case, no spaces or dashes), or None if it is not one."""
    if not isinstance(text, str) or len(text) > 4 * JOIN_CODE_LENGTH:
        return None
    code = "".join(ch for ch in text.upper() if ch not in " -_\t")
    if len(code) != JOIN_CODE_LENGTH or any(ch not in JOIN_ALPHABET for ch in code):
        return None
    return code
