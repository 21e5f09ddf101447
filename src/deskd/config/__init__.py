"""deskd's configuration: the ``DESKD_*`` settings, the desk file and the host Python API.

What a host module imports (docs/python-api.md) is here: ``configure``, ``register_channel``,
``RoleSpec``, ``PageMessage``. The modules stand in floors, each importing only lower ones
(docs/architecture.md, tests/test_layering.py); every command loads this package, so it
imports only the host API (stdlib, cheap to define).
"""

from __future__ import annotations

from deskd.config.host import ChannelSender as ChannelSender
from deskd.config.host import PageMessage as PageMessage
from deskd.config.host import PromptBuilder as PromptBuilder
from deskd.config.host import RoleSpec as RoleSpec
from deskd.config.host import configure as configure
from deskd.config.host import register_channel as register_channel
