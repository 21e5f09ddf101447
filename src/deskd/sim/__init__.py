"""Simulated agent CLIs for ``deskd demo`` and the tests: no account, no network.

``python -m deskd.sim.agent`` behaves like ``claude -p`` as deskd launches it (see
``deskd.sim.agent``); ``deskd.sim.agent.write_launcher(path)`` makes an executable for it,
to name as a desk's agent ``command``. Nothing is imported here, so ``python -m`` runs the
module once.
"""

from __future__ import annotations
