"""The outbox: where a page waits when no channel takes it.

With no channel for the role (none of its own, no desk default, no ``DESKD_NOTIFY_URLS``),
the page row itself is the page: ``deskd pages`` and the board show it, and the pager sends
it the moment a channel appears (lesson 12).
"""

from __future__ import annotations


def outbox_reason(role: str, priority: str, *, filtered: bool) -> str:
    """Why a page for ``role`` has no channel: shown as the page's ``why`` in ``deskd pages``."""
    if filtered:
        return f"outbox: no channel of {role} takes {priority} pages (see severity in deskd.toml)"
    return (
        f"outbox: no channel for {role} (add channels = [...] to the role, "
        "default_channels to [desk], or set DESKD_NOTIFY_URLS)"
    )
