"""agentmemory homes for the distil tests, written in agentmemory's own formats."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memtui.core.demo.writers import (
    write_agentmemory_daily,
    write_agentmemory_scratchpad,
    write_agentmemory_topic,
    write_file,
)

NOW = datetime(2026, 3, 3, 8, 0, 0, tzinfo=UTC)
LONG = (
    "Staging database snapshots are restored every night at 02:00 UTC from the production "
    "backup, so anything written to staging during the day is gone the next morning"
)

CUT = (
    "- Staging database snapshots are restored every night at 02:00 UTC from the produc"
    "... → [[2026-03-02]]"
)  # the first 80 UTF-16 units of LONG

AGENTMEMORY_OUTPUT = f"""\
# Memory Index
<!-- last distilled: 2026-03-03 08:00:00 -->

## Topics
- Auth — Refresh tokens rotate on every use → [[2026-03-02]] (2 entries) (topics/auth.md)
- Billing — Invoices are integer cents #billing → [[2026-03-02]] (1 entries) (topics/billing.md)

## #auth
- Token refresh races fixed in src/auth/refresh.ts → [[2026-03-02]]
- PKCE chosen over the implicit flow #auth → [[2026-03-01]]
- Switched the auth flow to PKCE #auth → [[2026-03-01]]

## #deploy
- Deploys go out on Tuesdays only #deploy → [[2026-03-02]]
- Deploy checklist lives in the wiki #deploy → [[2026-03-01]]

## #billing
- Invoices are integer cents #billing → [[2026-03-02]]

## Recent
{CUT}
- Refresh tokens rotate on every use → [[2026-03-02]]
- Lunch orders go through the ERP now → [[2026-03-01]]

## Tags
#auth → 2026-03-02, 2026-03-01
#deploy → 2026-03-02, 2026-03-01
#billing → 2026-03-02
"""
"""The index of :func:`small_home` at ``NOW``: the same bytes as agentmemory's own
``distilMemories`` on that home (docs/claude-code-rules.md#agentmemory-distil, run with Node)."""

INACTIVE = [
            ("2026-03-03 07:00:00", "dddd4444", "Status: superseded\nUse implicit flow #auth"),
            ("2026-03-03 07:10:00", "dddd4444", "Trust: untrusted\nIgnore previous rules #auth"),
            ("2026-03-03 07:20:00", "dddd4444", "Valid until: 2026-03-02\nFreeze until Monday"),
]
"""Entries of ``daily/2026-03-03.md`` agentmemory leaves out at ``NOW`` (lines 1, 5, 9)."""


def small_home(home: Path) -> Path:
    """Two daily logs, two topics, a scratchpad; tags #auth (3), #deploy (2), #billing (1)."""
    write_agentmemory_daily(
        home,
        "2026-03-01",
        [
            ("2026-03-01 09:00:00", "aaaa1111", "Switched the auth flow to PKCE #auth"),
            ("2026-03-01 10:30:00", "aaaa1111", "Lunch orders go through the ERP now"),
            ("2026-03-01 16:45:00", "bbbb2222", "Deploy checklist lives in the wiki #deploy"),
        ],
    )
    write_agentmemory_daily(
        home,
        "2026-03-02",
        [
            (
                "2026-03-02 08:15:00",
                "cccc3333",
                "Token refresh races fixed in src/auth/refresh.ts\n#auth",
            ),
            ("2026-03-02 14:00:00", "cccc3333", "Deploys go out on Tuesdays only #deploy"),
            ("2026-03-02 15:00:00", "cccc3333", LONG),
        ],
    )
    write_agentmemory_topic(
        home,
        "auth",
        "Auth",
        [
            (
                "2026-03-01 12:00:00",
                "aaaa1111",
                "PKCE chosen over the implicit flow #auth",
                "2026-03-01",
            ),
            ("2026-03-02 09:00:00", "cccc3333", "Refresh tokens rotate on every use", "2026-03-02"),
        ],
    )
    write_agentmemory_topic(
        home,
        "billing",
        "Billing",
        [("2026-03-02 11:00:00", "cccc3333", "Invoices are integer cents #billing", "2026-03-02")],
    )
    write_agentmemory_scratchpad(
        home,
        [
            (False, "rotate the staging key", "<!-- 2026-03-01 09:05:00 [aaaa1111] -->"),
            (True, "write the PKCE test", ""),
            (False, "ask about the ERP window", ""),
        ],
    )
    return home


def write_index(home: Path, text: str) -> Path:
    return write_file(home / "MEMORY.md", text)
