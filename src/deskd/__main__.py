from __future__ import annotations

from deskd.cli.fast import main

main()
