"""deskd's session hook as a plain script (same as the `deskd-session-hook` console script)."""

from __future__ import annotations

from deskd.hook import main

raise SystemExit(main())
