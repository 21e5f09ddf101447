"""How each real agent CLI is aimed at the loopback stand-in: the variables and config files.

``aim(kind, home, url)`` writes the CLI's config under the scratch ``home`` and returns the
environment variables to set. Nothing here reaches any host but 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path

QUIET = {
    # No telemetry, update checks or other hosts from any of the four.
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "NO_COLOR": "1",
    "GEMINI_TELEMETRY_ENABLED": "false",
    # Gemini CLI starts a second Node process of itself to raise V8's heap limit to half the
    # machine's memory; in its own code (bundle/gemini.js), not its docs, this variable skips
    # that relaunch: one Node start instead of two, ~1 CPU-s of the ~3 a run costs.
    "GEMINI_CLI_NO_RELAUNCH": "true",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}


def aim(kind: str, home: Path, url: str) -> dict[str, str]:
    return {"claude": _claude, "codex": _codex, "gemini": _gemini, "opencode": _opencode}[kind](
        home, url
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _claude(home: Path, url: str) -> dict[str, str]:
    # deskd scrubs CLAUDE_CODE_* from an agent's environment (a parent Claude Code session's
    # variables break the child); the user's settings file is where such settings belong.
    settings = {
        "env": {
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CODE_MAX_RETRIES": "0",
        }
    }
    _write(home / ".claude" / "settings.json", json.dumps(settings))
    return {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-standin"}


def _codex(home: Path, url: str) -> dict[str, str]:
    config = f"""\
model = "gpt-5.5"
model_provider = "local"

[model_providers.local]
name = "local stand-in"
base_url = "{url}/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""
    _write(home / ".codex" / "config.toml", config)
    return {"OPENAI_API_KEY": "sk-standin", "CODEX_HOME": str(home / ".codex")}


def _gemini(home: Path, url: str) -> dict[str, str]:
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {
            "maxAttempts": 1,
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
        },
        # Else each run sends usage statistics to Google (a DNS look-up of its host here).
        "privacy": {"usageStatisticsEnabled": False},
    }
    _write(home / ".gemini" / "settings.json", json.dumps(settings))
    return {"GEMINI_API_KEY": "standin", "GOOGLE_GEMINI_BASE_URL": url}


def _opencode(home: Path, url: str) -> dict[str, str]:
    config = {
        "$schema": "https://opencode.ai/config.json",
        "model": "local/m1",
        "autoupdate": False,
        "share": "disabled",
        # A one-shot run needs no undo: no git snapshot of the workdir before and after each step.
        "snapshot": False,
        "provider": {
            "local": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "local stand-in",
                "options": {"baseURL": f"{url}/v1", "apiKey": "sk-standin"},
                "models": {"m1": {"name": "m1"}},
            }
        },
    }
    folder = home / ".config" / "opencode"
    _write(folder / "opencode.json", json.dumps(config))
    # On every start OpenCode installs its plugin SDK into each config folder in the
    # background (npm, from registry.npmjs.org) unless the folder's node_modules and lock file
    # already list it: a network call and seconds of CPU per run. Nothing here loads a plugin,
    # so an empty install that records the dependency keeps it offline.
    plugin = {"dependencies": {"@opencode-ai/plugin": "*"}}
    _write(folder / "package.json", json.dumps(plugin))
    _write(folder / "package-lock.json", json.dumps({"packages": {"": plugin}}))
    (folder / "node_modules").mkdir()
    return {}
