"""deskd's configuration: the ``DESKD_*`` settings, the desk file and the host Python API.

What a host module imports (docs/python-api.md) is here: ``configure``, ``register_channel``,
``RoleSpec``, ``PageMessage``. The modules stand in floors, each importing only lower ones
(docs/architecture.md, tests/test_layering.py); every command loads this package, so it
imports only the host API (stdlib, cheap to define).
"""

from __future__ import annotations

from deskd.config.host import (
    ChannelSender,
    PageMessage,
    PromptBuilder,
    RoleSpec,
    configure,
    register_channel,
)

__all__ = [
    "ChannelSender",
    "PageMessage",
    "PromptBuilder",
    "RoleSpec",
    "configure",
    "register_channel",
]
