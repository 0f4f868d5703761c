"""Showing paths the way users write them."""

from __future__ import annotations

from pathlib import Path


def tilde(path: Path | str, home: Path | str | None = None) -> str:
    """``path`` with the home directory (``$HOME`` unless given) written as ``~``."""
    text = str(path)
    if home is None:
        try:
            home = Path.home()
        except (RuntimeError, KeyError):
            return text
    home_text = str(home).rstrip("/")
    if home_text == "":
        return text
    if text == home_text:
        return "~"
    if text.startswith(home_text + "/"):
        return "~" + text[len(home_text) :]
    return text
