"""``memtui config``: the effective config, where each value came from, and its problems."""

from __future__ import annotations

import argparse

from memtui.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    context_from,
    print_json,
    say,
    settings_of,
    shown,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (slow) at run time
if TYPE_CHECKING:
    from typing import Any

    from memtui.core.config import Config


def cmd_config(args: argparse.Namespace) -> int:
    from memtui.core.config import config_json

    ctx = context_from(args)
    config = settings_of(args, ctx)
    bindings, keymap_problems = binding_keys(config)
    theme_problem = theme_check(config, ctx)
    if args.json:
        data = config_json(config)
        data["bindings"] = bindings
        data["problems"] += [{"key": "keymap", "message": m} for m in keymap_problems]  # type: ignore[operator]
        if theme_problem is not None:
            data["problems"].append({"key": "theme", "message": theme_problem})  # type: ignore[attr-defined]
        print_json(data)
    else:
        print_config(config, bindings, [*keymap_problems, *filter(None, [theme_problem])])
    return EXIT_PROBLEMS if config.problems or keymap_problems or theme_problem else EXIT_OK


def theme_check(config: Config, ctx: Any) -> str | None:
    """The configured theme when the TUI has no theme of that name (with the closest
    names), else None: the TUI would say so and fall back to its default."""
    if not config.theme:
        return None
    from memtui.tui.themes import theme_names, unknown_theme

    return unknown_theme(config.theme, theme_names(ctx.env, ctx.home))


def binding_keys(config: Config) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Every binding id of the TUI with its keys and their source, and a message for each
    keymap entry naming no binding."""
    from memtui.tui.keymap import default_keys, unknown_binding_ids

    defaults = default_keys()
    bindings = {
        binding_id: {
            "keys": config.keymap.get(binding_id, keys),
            "source": config.sources.get(f"keymap.{binding_id}", "default"),
        }
        for binding_id, keys in defaults.items()
    }
    return bindings, unknown_binding_ids(config.keymap, set(defaults))


DEFAULT_NOTES = {
    "judge.model": "default: claude-haiku-5-5",
    "judge.spend_cap_usd": "no cap: the estimate is shown and confirmed before anything is sent",
}
"""What an unset key means (``memtui config`` said only "not set")."""


def print_config(
    config: Config, bindings: dict[str, dict[str, str]], keymap_problems: list[str]
) -> None:
    from memtui.core.config import KEYS, ZERO_OFF, shown_value

    where = config.file
    if where.path is None:
        say("config file: none (no $HOME to find ~/.config/memtui/config.toml by)")
    else:
        state = "read" if where.read else "unreadable" if where.exists else "not present"
        say(f"config file: {shown(where.path)} (from {where.source}; {state})")
    rows = []
    for key in KEYS:
        value = config.value(key.name)
        note = f"  (used by {key.used_by})" if key.used_by else ""
        if key.expected == ZERO_OFF and value == 0:
            note = "  (no limit)" + note
        if key.name == "theme" and value is None:
            note = "  (the TUI's default theme)"
        if value is None and key.name in DEFAULT_NOTES:
            note = f"  ({DEFAULT_NOTES[key.name]})" + note
        rows.append((key.name, shown_value(value), config.sources[key.name], note))
    width = max(len(name) for name, *_ in rows)
    value_width = min(30, max(len(value) for _, value, *_ in rows))
    say()
    for name, value, source, note in rows:
        say(f"  {name:<{width}} = {shown(value):<{value_width}}  from {shown(source)}{note}")
    say()
    say("keymap (binding id = keys):")
    id_width = max((len(binding_id) for binding_id in bindings), default=0)
    for binding_id, binding in bindings.items():
        keys = shown_value(binding["keys"])
        say(f"  {binding_id:<{id_width}} = {shown(keys):<{16}}  from {shown(binding['source'])}")
    for binding_id, keys in config.keymap.items():
        if binding_id not in bindings:
            say(f"  {shown(binding_id):<{id_width}} = {shown(shown_value(keys)):<16}  "
                f"from {shown(config.sources[f'keymap.{binding_id}'])}  (no such binding)")
    problems = [p.message for p in config.problems] + keymap_problems
    say()
    if not problems:
        say("no problems")
        return
    say(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}:")
    for message in problems:
        say(f"  {shown(message)}")
