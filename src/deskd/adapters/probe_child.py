"""Runs one probe in a child process: ``python -m deskd.adapters.probe_child module:function``.

The desk folder is the working directory and is on ``sys.path``; ``DESKD_CONFIG_MODULE`` is
loaded first like in every deskd process. The return value is printed as one JSON line.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path


def main() -> int:
    target = sys.argv[1]
    home = Path.cwd()
    sys.path.insert(0, str(home))
    config_module = os.environ.get("DESKD_CONFIG_MODULE")
    if config_module:
        from deskd.config import load_config_module

        load_config_module(config_module, desk_home=home)
    module_name, _, function = target.partition(":")
    fn = getattr(importlib.import_module(module_name), function)
    value = fn()
    sys.stdout.write(json.dumps({"value": value}, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
