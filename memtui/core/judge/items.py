"""What the judge compares: every memory of a scan, and every paragraph of the CLAUDE.md
chain, as :class:`~memtui.core.judge.verdicts.JudgeItem` (text read in full, bounded, once).

MEMORY.md indexes are not items (they point at memories; distil curates them). A snapshot is
never paired with its own agent's memory (the snapshot review compares those); see
:func:`same_origin`.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from memtui.core.contents import Memory, ScanResult, Store
from memtui.core.fileread import HUGE_FILE_BYTES
from memtui.core.judge.body_cache import BodyCache, Entry, stat_key
from memtui.core.judge.verdicts import JudgeItem
from memtui.core.model import Frontmatter, StoreKind
from memtui.core.parse.frontmatter import parse_frontmatter
from memtui.core.scan.scanner import load_full_text
from memtui.core.stores.claudemd import ClaudeMdChain
from memtui.core.stores.paths import tilde

CLAUDE_MD = "claude-md"
DEFAULT_KINDS: tuple[StoreKind, ...] = tuple(k for k in StoreKind if k is not StoreKind.SESSION)
"""Session summaries are left out unless asked for: each records one session's state, and
two sessions disagreeing is their history, not a conflict."""
MIN_PARAGRAPH_WORDS = 4
"""CLAUDE.md paragraphs shorter than this (headings, one-word bullets) are not items."""
BODY_CHARS = 20_000
"""Characters of a memory's body the judge looks at (a memory is meant to be short)."""

_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")


def normalize(text: str) -> str:
    """The text as compared for exact duplicates: NFKC, case-folded, punctuation (markdown's
    included) and whitespace collapsed, so ``Run `make lint`!`` and ``run make lint.`` are one."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[^\w\s]+|_+", " ", text)
    return " ".join(text.split())


def digest(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("utf-8", "surrogatepass")).hexdigest()


def words(text: str) -> list[str]:
    """Lower-case words (letters and digits; ``don't``, ``v2.1``, ``e-mail`` stay whole)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _body(memory: Memory, store: Store, bodies: BodyCache | None = None,
          description: str = "") -> tuple[str, str | None]:
    """The memory's body, and its item's digest when ``bodies`` had it (for this
    ``description``); a body read is kept in ``bodies`` (:mod:`memtui.core.judge.body_cache`)."""
    if memory.size > HUGE_FILE_BYTES or (
        memory.problems and any("binary" in p for p in memory.problems)
    ):
        return "", None
    fm = memory.frontmatter
    where = (fm.present, fm.end if fm.present else 0)
    key = stat_key(memory.file) if bodies is not None else None
    if bodies is not None and key is not None:
        entry = bodies.get(memory.file, key, where, description)
        if entry is not None:
            return entry.body, entry.digest if entry.description == description else None
    try:
        text, problems = load_full_text(memory, store.path)
    except (OSError, ValueError):
        return "", None
    if any("binary" in p or p.startswith("cannot read") for p in problems):
        return "", None
    body = _body_of(text, fm)
    if bodies is None or key is None or problems:
        return body, None
    made = digest(f"{description}\n{body}")
    bodies.put(memory.file, Entry(key, where, body, description, made))
    return body, made


def _body_of(text: str, fm: Frontmatter) -> str:
    """The body the judge compares: after the frontmatter, stripped, at most BODY_CHARS."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    return (text[fm.end :] if fm.present else text).strip()[:BODY_CHARS]


def item_after(item: JudgeItem, data: bytes) -> JudgeItem:
    """``item`` as it will be once its file holds ``data`` (what a decision that rewrites it
    records in the ledger: the same key, the new digest)."""
    text = data.decode("utf-8", errors="replace")
    fm = parse_frontmatter(text.lstrip("\ufeff").replace("\r", ""))
    body = _body_of(text, fm)
    description = fm.description or ""
    return replace(item, body=body, description=description,
                   digest=digest(f"{description}\n{body}"))


def _modified(data: dict[str, object]) -> str | None:
    """``modified`` (or ``updated``), at the top or under ``metadata`` (CC's newer layout)."""
    meta = data.get("metadata")
    for source in (data, meta if isinstance(meta, dict) else {}):
        for key in ("modified", "updated"):
            value = source.get(key)
            if value is not None and not isinstance(value, (dict, list)):
                return str(value)
    return None


def body_digest(item: JudgeItem) -> str:
    """The digest of the body alone (two memories with different names, same text)."""
    return _cached_digest(item.body) if item.body else ""


@lru_cache(maxsize=32_768)
def _cached_digest(text: str) -> str:
    """:func:`digest`, once per text (each pair of a memory asks again)."""
    return digest(text)


def memory_item(store: Store, memory: Memory, bodies: BodyCache | None = None) -> JudgeItem:
    """``memory`` as an item, its body read in full (``bodies``: from that cache when its file
    did not change)."""
    fm = memory.frontmatter
    name = memory.name or memory.stem
    description = memory.description or ""
    body, made = _body(memory, store, bodies, description)
    loc = store.location
    return JudgeItem(
        key=memory.file,
        kind=loc.kind.value,
        file=memory.file,
        rel_path=memory.rel_path,
        name=name,
        description=description,
        body=body,
        mtime=memory.mtime,
        digest=made if made is not None else digest(f"{description}\n{body}"),
        scope=loc.scope.value if loc.scope else None,
        agent=loc.agent,
        type=memory.type,
        modified=_modified(fm.data),
        store_path=str(store.path),
    )


def memory_items(
    result: ScanResult,
    kinds: Iterable[StoreKind] | None = None,
    *,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    bodies: BodyCache | None = None,
) -> list[JudgeItem]:
    """Every memory (not MEMORY.md) of the stores of ``kinds`` (:data:`DEFAULT_KINDS` by
    default), read in full (``bodies``: the unchanged ones from that cache)."""
    wanted = set(kinds) if kinds is not None else set(DEFAULT_KINDS)
    pairs = [
        (store, memory)
        for store in result.stores
        if store.kind in wanted
        for memory in store.memories
        if not memory.is_index
    ]
    items: list[JudgeItem] = []
    for done, (store, memory) in enumerate(pairs):
        if cancelled is not None and cancelled():
            break
        if progress is not None and done % 64 == 0:
            progress(done, len(pairs))
        items.append(memory_item(store, memory, bodies))
    if progress is not None:
        progress(len(items), len(pairs))
    return items


def paragraphs(text: str) -> list[tuple[int, str]]:
    """The rules of a CLAUDE.md text: each list item and each prose paragraph with its first
    line (1-based); headings and fenced code are left out."""
    found: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    fence: str | None = None

    def flush() -> None:
        if current:
            found.append((start, " ".join(part.strip() for part in current)))
            current.clear()

    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith(("```", "~~~")):
            flush()
            fence = stripped[:3]
            continue
        if not stripped or _HEADING.match(line):
            flush()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            start = number
            current.append(line[bullet.end() :])
            continue
        if not current:
            start = number
        current.append(line)
    flush()
    return [(n, p) for n, p in found if len(words(p)) >= MIN_PARAGRAPH_WORDS]


def claude_md_items(chain: ClaudeMdChain, home: Path | None = None) -> list[JudgeItem]:
    """One item per rule paragraph of every readable file of the chain."""
    items: list[JudgeItem] = []
    for file in chain.files:
        if file.problem is not None and not file.text:
            continue
        rel = tilde(file.path, home) if home is not None else str(file.path)
        for line, text in paragraphs(file.text):
            hashed = digest(text)
            items.append(
                JudgeItem(
                    key=f"{file.path}#{hashed[:12]}",
                    kind=CLAUDE_MD,
                    file=str(file.path),
                    rel_path=rel,
                    name=f"{file.path.name} line {line}",
                    description="",
                    body=text,
                    mtime=0.0,
                    digest=hashed,
                    scope=file.origin,
                    line=line,
                    store_path=str(file.path.parent),
                )
            )
    return items


def same_origin(a: JudgeItem, b: JudgeItem) -> bool:
    """Pairs never worth raising: two paragraphs of one CLAUDE.md file, and an agent's
    snapshot against that agent's own memory (the snapshot review shows those)."""
    if a.kind == CLAUDE_MD and b.kind == CLAUDE_MD and a.file == b.file:
        return True
    kinds = {a.kind, b.kind}
    if kinds == {StoreKind.SNAPSHOT.value, StoreKind.AGENT.value}:
        return a.agent == b.agent and a.rel_path == b.rel_path
    return False


def newer(a: JudgeItem, b: JudgeItem) -> str | None:
    """``"a"`` or ``"b"``: the side to keep (a CLAUDE.md rule always stays, else the newer
    by ``modified``, then by file time), or None when nothing tells."""
    if a.kind == CLAUDE_MD and b.kind != CLAUDE_MD:
        return "a"
    if b.kind == CLAUDE_MD and a.kind != CLAUDE_MD:
        return "b"
    if a.modified and b.modified and a.modified != b.modified:
        return "a" if str(a.modified) > str(b.modified) else "b"
    if a.mtime != b.mtime:
        return "a" if a.mtime > b.mtime else "b"
    return None


def evidence_quote(text: str, limit: int = 160) -> str:
    """A quote for a verdict's evidence: one line, cut, and any secret in it replaced (a
    verdict is shown, printed and kept in the ledger)."""
    from memtui.core.secrets.redact import redact

    text = redact(" ".join(text.split())).text
    return text if len(text) <= limit else text[: limit - 1] + "…"

