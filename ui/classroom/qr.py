"""The join link as a QR code, an SVG string the host's page and the projector view draw.

What it does: ``join_qr_svg(link)`` encodes the link with ``segno`` (a
maintained, pure-Python QR library; medium error correction, never a micro
code) and gives an inline ``<svg>`` with a ``viewBox`` and no fixed size, so
it scales to whatever box shows it (large on the projector), with a
``<title>`` (escaped by segno) for screen readers. ``qr_available`` says
whether segno is installed; without it ``join_qr_svg`` raises
``QRUnavailable`` and the page shows the link and the code alone.

What it does not do: make the link (``Room.join_link``) or draw anything else.
"""

from __future__ import annotations

import importlib.util

from ui.classroom.roles import Invalid

MAX_LINK_CHARS = 1_000  # a join link is an address and a code; a QR code of more is unreadable on a wall


class QRUnavailable(RuntimeError):
    """segno is not installed."""


def qr_available() -> bool:
    return importlib.util.find_spec("segno") is not None


def join_qr_svg(link: str, *, title: str = "Join this debate", dark: str = "#000000", light: str = "#ffffff") -> str:
    """An inline SVG of ``link``'s QR code (dark modules on a light ground, a quiet zone of 4 modules)."""
    if not isinstance(link, str) or not link.strip() or len(link) > MAX_LINK_CHARS:
        raise Invalid("A join link is an address of at most 1,000 characters.")
    try:
        import segno
    except ImportError as error:
        raise QRUnavailable("the QR code needs the segno package (pip install segno)") from error
    code = segno.make(link.strip(), error="m", micro=False)
    svg: str = code.svg_inline(
        scale=1, border=4, dark=dark, light=light, omitsize=True, title=title, svgclass="join-qr", lineclass=None
    )
    return svg
