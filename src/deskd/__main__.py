from __future__ import annotations

from deskd.cli.main import main

main()
