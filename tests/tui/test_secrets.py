"""Secrets in the TUI: ⚠ in the trees, the rule, line and a masked line in the detail pane,
the Team pane's repository and push fates, and ``X`` (redact, previewed masked, ``u`` undoes);
the screen never shows a planted secret."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

from pilots import app_for, confirm, main_of, notifications, option_texts, plain
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static
from textual.widgets.tree import TreeNode

from memtui.core.demo.build import build_demo_home
from memtui.core.demo.story import FAKE_AWS_KEY_ID, FAKE_GITHUB_PAT
from memtui.core.demo.writers import write_memory
from memtui.core.model import StoreKind
from memtui.tui.dialogs.search import SearchScreen
from memtui.tui.nodes import NodeRef
from memtui.tui.screens.main import MainScreen
from memtui.tui.testing import settle
from memtui.tui.widgets.detail import DetailPane
from memtui.tui.widgets.store_tree import StoreTree

SECRETS = (FAKE_GITHUB_PAT, FAKE_AWS_KEY_ID)
LEAK = "zz-leak.md"


def screen_text(pilot: Pilot[None]) -> str:
    """Every character the terminal shows now (the screenshot's text, tags dropped)."""
    svg = pilot.app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def assert_no_secret(pilot: Pilot[None]) -> None:
    text = screen_text(pilot)
    for secret in SECRETS:
        assert secret not in text
    assert "syncs for" in text or "memtui" in text  # the text was read at all


def labels(tree: StoreTree) -> dict[str, str]:
    """Each node's label by its memory's path ('' for the rows that are no memory)."""
    out: dict[str, str] = {}
    stack: list[TreeNode[NodeRef]] = list(reversed(tree.root.children))
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        ref = node.data
        key = ref.memory.rel_path if ref is not None and ref.memory is not None else ""
        out.setdefault(key, str(node.label))
    return out


async def show(pilot: Pilot[None], kind: StoreKind, rel_path: str) -> DetailPane:
    main = main_of(pilot)
    assert main.result is not None
    store = next(s for s in main.result.stores if s.kind == kind)
    main.select_path(store, rel_path)
    await settle(pilot)
    detail = main.query_one(DetailPane)
    assert detail.loaded is not None and detail.loaded.ref.memory is not None
    assert detail.loaded.ref.memory.rel_path == rel_path
    return detail


async def test_trees_mark_secrets_and_the_team_pane_shows_push_fates(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    write_memory(home.auto_memory, LEAK, name="leak", description="d", type="reference",
                 body="\n".join(["x"] * 40 + [f"token {FAKE_GITHUB_PAT}"]) + "\n")
    async with app_for(home).run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = main_of(pilot)
        team = labels(main.query_one("#tree-team", StoreTree))
        assert team[""].startswith("⇅ syncs for acme/shop · 2 push · 2 refused")
        assert "⚠" in team["ci-tokens.md"]
        assert team["ci-tokens.md"].endswith("refused: secret (github-pat)")
        assert team["aws-staging.md"].endswith("refused: secret (aws-access-token)")
        assert team["code-review.md"].endswith("push") and "⚠" not in team["code-review.md"]
        auto = labels(main.query_one("#tree-auto", StoreTree))
        assert "⚠" in auto[LEAK]
        assert "⚠" not in auto["refund-coupons.md"]
        assert_no_secret(pilot)


async def test_the_detail_pane_names_rule_and_line_and_masks_the_secret(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    async with app_for(home).run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        detail = await show(pilot, StoreKind.TEAM, "ci-tokens.md")
        head = plain(detail.query_one("#detail-head", Static))
        assert "team push: refused: secret (github-pat)" in head
        assert "⚠ 1 secret: X redacts them" in head
        assert "line 6 · github-pat  CI pulls private packages with the bot token `ghp_…defg`" in (
            head
        )
        assert detail.loaded is not None and FAKE_GITHUB_PAT not in detail.loaded.text
        assert_no_secret(pilot)
        await pilot.press("r")  # the raw file
        await settle(pilot)
        assert "ghp_…defg" in screen_text(pilot)
        assert_no_secret(pilot)


async def test_without_a_github_origin_team_memory_does_not_sync(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    subprocess.run(["git", "-C", str(home.project), "remote", "remove", "origin"], check=True)
    async with app_for(home).run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        team = labels(main_of(pilot).query_one("#tree-team", StoreTree))
        assert team[""].startswith("no GitHub origin: team memory does not sync")


async def test_redact_then_undo_restores_the_identical_file(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    path = home.team_memory / "ci-tokens.md"
    original, stat_before = path.read_bytes(), path.stat()
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await show(pilot, StoreKind.TEAM, "ci-tokens.md")
        await settle(pilot)
        assert_no_secret(pilot)  # nothing open yet: the detail pane and the trees
        text = await confirm(pilot, "X")
        assert "so rotate it anyway" in text
        assert text.count("rotate") == 1  # it said so twice (issue 25)
        assert "-CI pulls private packages with the bot token `ghp_…defg`" in text
        assert "+CI pulls private packages with the bot token `[REDACTED:github-pat]`" in text
        for secret in SECRETS:
            assert secret not in text
        assert path.read_bytes() == original.replace(
            FAKE_GITHUB_PAT.encode(), b"[REDACTED:github-pat]"
        )
        assert any("redacted ci-tokens.md · u to undo · rotate the secret anyway" in m
                   for m, _ in notifications(app))
        team = labels(main_of(pilot).query_one("#tree-team", StoreTree))
        assert "⚠" not in team["ci-tokens.md"] and team["ci-tokens.md"].endswith("push")
        assert_no_secret(pilot)
        await pilot.press("U")  # the history lists the redaction, never its secret
        await settle(pilot)
        assert "redact 1 secret in ci-tokens.md" in screen_text(pilot)
        assert_no_secret(pilot)
        await pilot.press("escape")
        await settle(pilot)
        undo = await confirm(pilot, "u")
        assert "ci-tokens.md" in undo and FAKE_GITHUB_PAT not in undo
        assert path.read_bytes() == original
        stat_after = path.stat()
        assert (stat_after.st_mtime_ns, stat_after.st_mode) == (
            stat_before.st_mtime_ns, stat_before.st_mode
        )
        assert_no_secret(pilot)


async def test_redact_is_refused_where_there_is_no_secret(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    app = app_for(home)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await show(pilot, StoreKind.TEAM, "code-review.md")
        await pilot.press("X")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert ("No secret found in code-review.md.", "warning") in notifications(app)


async def test_search_results_show_secrets_masked(tmp_path: Path) -> None:
    home = build_demo_home(tmp_path)
    async with app_for(home).run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        screen.query_one("#search-input", Input).value = "bot demo value"
        await settle(pilot)
        text = "\n".join(option_texts(screen.query_one("#search-results", OptionList)))
        assert "ci-tokens.md" in text and "ghp_…defg" in text
        assert FAKE_GITHUB_PAT not in text
        assert_no_secret(pilot)
