"""The optional host password of a shared server: who may start a debate there.

What it does: ``resolve_host_password(flag, environ)`` picks the password
from the ``--host-password`` flag, else the ``DEBATE_HOST_PASSWORD``
environment variable (preferred: a command line is visible to every user of
the machine in ``ps``), else none; an empty value is none. ``HostGate``
keeps only the password's SHA-256 and checks what a person typed against it
in constant time (``allows``; ``check`` raises ``Forbidden``). Without a
password anyone who can reach the server may start a debate; with one, only
who knows it may. Joining a debate (watching, taking a seat, voting) never
needs it: the room's tokens guard those.

What it does not do: read the command line or wire into the page (the app
does), throttle wrong guesses (a reverse proxy can: docs/classroom.md), or
log the password or anything typed for it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping

from ui.classroom.roles import Forbidden

HOST_PASSWORD_ENV = "DEBATE_HOST_PASSWORD"
MAX_PASSWORD_CHARS = 1_000


def resolve_host_password(flag: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The host password: the flag's, else the environment's, else None (an empty value is None)."""
    env = os.environ if environ is None else environ
    value = flag if flag is not None else env.get(HOST_PASSWORD_ENV)
    return value or None


def _kept(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class HostGate:
    """Whether a request may start a debate: always without a password, else only with it."""

    def __init__(self, password: str | None) -> None:
        if password is not None and len(password) > MAX_PASSWORD_CHARS:
            raise ValueError(f"a host password is at most {MAX_PASSWORD_CHARS} characters")
        self._kept = _kept(password) if password else None

    @property
    def required(self) -> bool:
        """Whether starting a debate asks for the password (the page shows its field only then)."""
        return self._kept is not None

    def allows(self, given: object) -> bool:
        """Whether ``given`` opens the gate (a constant-time comparison; anything not a string is refused)."""
        if self._kept is None:
            return True
        if not isinstance(given, str) or len(given) > MAX_PASSWORD_CHARS:
            return False
        return hmac.compare_digest(_kept(given), self._kept)

    def check(self, given: object) -> None:
        """``Forbidden`` unless ``given`` opens the gate."""
        if not self.allows(given):
            raise Forbidden("Starting a debate on this server needs the host password.")

    def __repr__(self) -> str:
        return f"HostGate(required={self.required})"
