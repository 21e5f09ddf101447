"""Builders for the events-in tests: a desk that declares an Alertmanager, a GitHub and a
plain-JSON source, payloads as the real senders shape them, and GitHub's signature."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from conftest import DESK_TOML

AM_TOKEN = "am-token-0123456789"
GH_SECRET = "gh-secret-0123456789"
JSON_TOKEN = "json-token-0123456789"

EVENTS_DESK = (
    DESK_TOML.replace(
        'name = "beta"\ntitle = "Beta"\n',
        'name = "beta"\ntitle = "Beta"\ncapabilities = ["triage"]\n',
    )
    + """
[[events]]
source = "am"
kind = "alertmanager"
for = "alpha"
token = "${AM_TOKEN}"

[[events]]
source = "gh"
kind = "github"
capability = "triage"
secret = "${GH_SECRET}"

[[events]]
source = "hook"
kind = "json"
for = "gamma"
token = "${JSON_TOKEN}"
title = "{service}: {message}"
"""
)


def alertmanager(status: str, *, group: str = '{}:{alertname="DiskFull"}') -> dict[str, Any]:
    """A webhook as Alertmanager (version 4) sends it, one alert in the group."""
    alert = {
        "status": status,
        "labels": {"alertname": "DiskFull", "instance": "db1", "severity": "critical"},
        "annotations": {"summary": "disk 91% on db1"},
        "startsAt": "2026-12-01T13:58:00Z",
        "endsAt": "0001-01-01T00:00:00Z" if status == "firing" else "2026-12-01T14:10:00Z",
        "generatorURL": "http://prometheus.example/graph",
        "fingerprint": "a1b2c3d4e5f60718",
    }
    return {
        "version": "4",
        "groupKey": group,
        "status": status,
        "receiver": "deskd",
        "groupLabels": {"alertname": "DiskFull"},
        "commonLabels": alert["labels"],
        "commonAnnotations": alert["annotations"],
        "externalURL": "http://alertmanager.example",
        "alerts": [alert],
    }


def issue_opened(number: int = 7) -> dict[str, Any]:
    return {
        "action": "opened",
        "issue": {
            "number": number,
            "title": "crash on start",
            "body": "stack trace here",
            "html_url": f"https://github.com/acme/app/issues/{number}",
        },
        "repository": {"full_name": "acme/app"},
    }


def check_run(conclusion: str) -> dict[str, Any]:
    return {
        "action": "completed",
        "check_run": {
            "name": "tests",
            "conclusion": conclusion,
            "head_sha": "0123456789abcdef",
            "html_url": "https://github.com/acme/app/runs/1",
            "check_suite": {"head_branch": "main"},
            "output": {"summary": "3 failed"},
        },
        "repository": {"full_name": "acme/app"},
    }


def github_headers(
    body: bytes, event: str, delivery: str, secret: str = GH_SECRET
) -> dict[str, str]:
    mac = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": f"sha256={mac}",
        "Content-Type": "application/json",
    }


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
