"""deskd: an orchestration engine for desks of headless AI coding agents.

Kept import-free on purpose: the session hook imports ``deskd`` on every tool call.
"""

from __future__ import annotations

__version__ = "0.5.0"
