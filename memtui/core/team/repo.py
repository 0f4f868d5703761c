"""Which GitHub repository team memory syncs for: ``owner/repo`` of the ``origin`` remote."""

from __future__ import annotations

import re
from pathlib import Path

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
    """(``owner/repo`` or None, what was found in words), read with GitPython."""
    try:
        import git
    except ImportError:  # pragma: no cover - a dependency
        return None, "GitPython is not installed"
    try:
        repo = git.Repo(project, search_parent_directories=True)
        urls = list(repo.remote("origin").urls)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None, "not a git repository"
    except (ValueError, git.GitCommandError):
        return None, "no origin remote"
    for url in urls:
        slug = github_slug(url)
        if slug:
            return slug, url
    return None, f"origin is not on GitHub ({urls[0] if urls else 'no URL'})"
