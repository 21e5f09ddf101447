from __future__ import annotations

from deskd.cli.entry import main

main()
