"""Which GitHub repository team memory syncs for: ``owner/repo`` of the ``origin`` remote."""

from __future__ import annotations

import os
import re
from pathlib import Path

from memtui.core.fileread import read_file
from memtui.core.stores.gitroot import GIT_FILE_CAP, common_git_dir, find_checkout
from memtui.core.team.gitconfig import GitConfig, parse_git_config

_FORMS = (
    re.compile(r"^(?:https?|git|ssh|git\+ssh)://(?:[^@/]+@)?github\.com(?::\d+)?/(?P<slug>[^/]+/[^/]+?)(?:\.git)?/?$"),
    re.compile(r"^(?:[^@/]+@)?github\.com:(?P<slug>[^/]+/[^/]+?)(?:\.git)?/?$"),
)


def github_slug(url: str) -> str | None:
    """``owner/repo`` of a GitHub remote URL (https, ssh, scp-like, git://), else None."""
    url = url.strip()
    for form in _FORMS:
        match = form.match(url)
        if match:
            return match.group("slug")
    return None


def origin_repo(project: Path) -> tuple[str | None, str]:
    """(``owner/repo`` or None, what was found in words): ``remote.origin.url`` of the
    repository's own config, read with the bounded reader (a regular file of at most 64 KB)
    and parsed here, its ``url.<base>.insteadOf`` rewrites applied. Includes are not read."""
    checkout = find_checkout(project)
    if checkout is None:
        return None, "not a git repository"
    path = os.path.join(common_git_dir(checkout), "config")
    read = read_file(path, GIT_FILE_CAP)
    if read.missing:
        return None, "no origin remote"
    if not read.readable:
        return None, f"its git config cannot be read ({'; '.join(read.problems)})"
    if not read.complete:
        return None, f"its git config is over {GIT_FILE_CAP // 1024} KB: not read"
    config = parse_git_config(read.data)
    urls = [rewrite(url, config) for url in config.values("remote", "origin", "url")]
    if not urls:
        if config.problem:
            return None, f"no origin remote (git config: {config.problem})"
        if config.has_includes:
            return None, "no origin remote (the git config's includes are not read)"
        return None, "no origin remote"
    for url in urls:
        slug = github_slug(url)
        if slug:
            return slug, url
    return None, f"origin is not on GitHub ({urls[0]})"


def rewrite(url: str, config: GitConfig) -> str:
    """``url`` with git's longest matching ``url.<base>.insteadOf`` prefix replaced."""
    best: tuple[int, str, str] | None = None
    for entry in config.entries:
        if entry.section != "url" or entry.key != "insteadof" or entry.subsection is None:
            continue
        prefix = entry.value or ""
        if prefix and url.startswith(prefix) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), prefix, entry.subsection)
    return url if best is None else best[2] + url[best[0]:]
