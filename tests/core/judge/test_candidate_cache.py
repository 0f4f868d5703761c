"""The last run's candidate pairs in the cache dir (:mod:`memtui.core.judge.candidate_cache`):
the same memories again are not paired again, and give exactly the pairs the finder gives; a
changed memory makes the finder run again, and meanwhile the earlier pairs of unchanged
memories are what there is to show; a broken or missing cache is an empty one."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.config import JudgeConfig
from memtui.core.demo.build import DemoHome
from memtui.core.judge import finder
from memtui.core.judge.candidate_cache import VERSION, CandidateCache, default_path
from memtui.core.judge.finder import cached_candidates, judge_candidates, load_cache
from memtui.core.judge.run import JudgeRun, collect_items
from memtui.core.judge.verdicts import Candidate, JudgeItem
from memtui.core.scan.scanner import scan
from memtui.core.stores.locations import Context

FINDER_SOURCES = ("neighbours.py", "candidates.py", "embed.py", "finder.py", "items.py")


def items_of(ctx: Context) -> list[JudgeItem]:
    items, _problems = collect_items(ctx, scan(ctx), managed=ctx.home / "no-managed")
    return items


def shape(candidates: list[Candidate]) -> list[tuple[str, str, float, tuple[str, ...]]]:
    return [(c.a.key, c.b.key, c.score, c.reasons) for c in candidates]


@pytest.fixture
def ctx(demo: DemoHome, tmp_path: Path) -> Context:
    return demo_context(demo, XDG_CACHE_HOME=str(tmp_path / "cache"),
                        XDG_STATE_HOME=str(tmp_path / "state"))


def refuse_to_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    def find(*_args: object) -> list[Candidate]:
        raise AssertionError("the finder ran although no memory changed")

    monkeypatch.setattr(finder, "_find", find)


def test_the_same_memories_are_not_paired_again(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = items_of(ctx)
    first = judge_candidates(items, ctx=ctx)
    assert len(first) > 10
    path = default_path(ctx.env, ctx.home)
    assert path is not None and path.is_file()
    refuse_to_pair(monkeypatch)
    again = judge_candidates(items_of(ctx), ctx=ctx)  # a new scan: new objects, same memories
    assert shape(again) == shape(first)
    assert cached_candidates(items_of(ctx), load_cache(ctx)) is None  # nothing to preview


def test_a_warm_session_asks_the_cache_once(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing changed: :meth:`JudgeSession.start` builds the cached pairs once (9,000 of them
    took a tenth of a second each time), and the preview is not asked for."""
    from memtui.core.judge.session import JudgeSession

    def start() -> JudgeSession:
        return JudgeSession.start(ctx, JudgeConfig(), managed=ctx.home / "no-managed",
                                  preview=previews.append)

    previews: list[JudgeRun] = []
    first = start()
    assert [run.early for run in previews] == ["cheap"]  # cold: the pairs found without the model
    previews.clear()
    refuse_to_pair(monkeypatch)
    calls: list[int] = []
    real = CandidateCache.complete

    def complete(self: CandidateCache, *args: object) -> list[Candidate] | None:
        calls.append(1)
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(CandidateCache, "complete", complete)
    again = start()
    assert calls == [1] and previews == []
    assert [p.candidate.id for p in again.run.pairs] == [p.candidate.id for p in first.run.pairs]
    assert again.run.notes == first.run.notes


def test_a_cold_session_shows_the_pairs_found_without_the_model_first(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No candidates found before: before the embeddings (seconds, cold) the preview gets the
    pairs of the same content, the same name and the lexical index, with the ledger's state of
    each; every one of them is among the pairs the session ends with, and the lexical index is
    not run a second time for them."""
    from memtui.core.judge import candidates, neighbours
    from memtui.core.judge.session import JudgeSession

    lexical: list[int] = []
    real = candidates.find_candidates

    def counted(*args: object, **kwargs: object) -> list[Candidate]:
        lexical.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(finder, "find_candidates", counted)
    monkeypatch.setattr(neighbours, "find_candidates", counted)
    previews: list[JudgeRun] = []
    embedded: list[bool] = []

    def preview(run: JudgeRun) -> None:
        embedded.append(bool(lexical) and not ran_nearest)
        previews.append(run)

    ran_nearest: list[int] = []
    real_nearest = neighbours.nearest_arrays

    def nearest(*args: object, **kwargs: object) -> object:
        ran_nearest.append(1)
        return real_nearest(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(neighbours, "nearest_arrays", nearest)
    session = JudgeSession.start(ctx, JudgeConfig(), managed=ctx.home / "no-managed",
                                 preview=preview)
    assert len(previews) == 1 and previews[0].early == "cheap"
    assert embedded == [True]  # shown before the model's neighbours were looked for
    early = {p.candidate.id for p in previews[0].pairs}
    assert len(early) > 10 and all(p.state == "new" for p in previews[0].pairs)
    final = {p.candidate.id for p in session.run.pairs}
    assert early < final  # every early pair is a candidate; the model's neighbours joined
    assert lexical == [1]  # the lexical index ran once, for the preview and the finder
    assert session.run.early is None
    # the CLI's run asks for no preview: the same pairs, found the one way
    assert [c.id for c in judge_candidates(items_of(ctx))] == [
        p.candidate.id for p in session.run.pairs]


def test_a_changed_memory_pairs_again_and_the_unchanged_pairs_are_known(
    ctx: Context, demo: DemoHome, tmp_path: Path
) -> None:
    before = judge_candidates(items_of(ctx), ctx=ctx)
    changed = next(side for c in before for side in (c.a, c.b)
                   if side.kind == "agent" and side.key.endswith(".md")
                   and not side.key.endswith("MEMORY.md"))
    path = Path(changed.key)
    path.write_text(path.read_text(encoding="utf-8") + "\nAlso: deploys freeze on Fridays.\n",
                    encoding="utf-8")
    items = items_of(ctx)
    known = cached_candidates(items, load_cache(ctx))
    assert known is not None
    untouched = [c for c in before if changed.key not in (c.a.key, c.b.key)]
    assert shape(known) == shape(untouched) and len(known) < len(before)
    assert all(c.a.key != changed.key and c.b.key != changed.key for c in known)
    again = judge_candidates(items, ctx=ctx)
    # what the finder gives without any cache, on a fresh cache dir
    fresh_ctx = demo_context(demo, XDG_CACHE_HOME=str(tmp_path / "fresh-cache"))
    assert shape(again) == shape(judge_candidates(items_of(fresh_ctx), ctx=fresh_ctx))
    assert cached_candidates(items, load_cache(ctx)) is None  # stored for the new contents


def test_a_removed_memory_is_not_taken_from_the_cache(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = judge_candidates(items_of(ctx), ctx=ctx)
    gone = before[0].a
    Path(gone.key).unlink()
    calls: list[int] = []
    real = finder._find

    def find(*args: object) -> list[Candidate]:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(finder, "_find", find)
    after = judge_candidates(items_of(ctx), ctx=ctx)
    assert calls == [1]
    assert all(gone.key not in (c.a.key, c.b.key) for c in after)


@pytest.mark.parametrize("body", [b"", b"{", b"[1, 2]", b'{"finder": 1, "items": {}}',
                                  b'{"finder": "x", "items": {}, "pairs": [[1]]}',
                                  b"\xff\xfe not utf-8"])
def test_a_broken_cache_is_an_empty_one(ctx: Context, body: bytes) -> None:
    path = default_path(ctx.env, ctx.home)
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(body)
    cache = CandidateCache.load(path)
    assert cache.pairs == [] and cache.items == {}
    items = items_of(ctx)
    assert len(judge_candidates(items, ctx=ctx)) > 10  # found again, and the file replaced
    assert CandidateCache.load(path).complete(items, load_cache(ctx).finder) is not None


def test_a_symlinked_cache_file_is_not_followed(ctx: Context, tmp_path: Path) -> None:
    path = default_path(ctx.env, ctx.home)
    assert path is not None
    judge_candidates(items_of(ctx), ctx=ctx)
    real = tmp_path / "elsewhere.json"
    real.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(real)
    assert CandidateCache.load(path).pairs == []


def test_no_cache_with_memtui_no_cache(demo: DemoHome, tmp_path: Path) -> None:
    ctx = demo_context(demo, XDG_CACHE_HOME=str(tmp_path / "cache"), MEMTUI_NO_CACHE="1")
    assert default_path(ctx.env, ctx.home) is None
    judge_candidates(items_of(ctx), ctx=ctx)
    assert not (tmp_path / "cache" / "memtui" / "judge").exists()


def test_the_version_names_the_finders_sources() -> None:
    """A change to how candidates are found must change :data:`VERSION` (else a cache made by
    the old rules is taken for the new ones' answer): update both lines below together."""
    folder = Path(finder.__file__).parent
    digest = hashlib.sha256()
    for name in FINDER_SOURCES:
        digest.update((folder / name).read_bytes())
    assert (VERSION, digest.hexdigest()[:16]) == (5, PINNED), (
        "the finder's sources changed: bump candidate_cache.VERSION and pin the new digest "
        f"{digest.hexdigest()[:16]}")


PINNED = "f730e4f3b82012c4"


def test_finding_the_candidates_says_each_step(demo: DemoHome, tmp_path: Path) -> None:
    """The conflicts screen shows what the finder does before the pairs exist: the lexical
    index, the model loading, the memories embedded (so many of so many), the neighbours."""
    ctx = demo_context(demo, XDG_CACHE_HOME=str(tmp_path / "cache"))
    items = items_of(ctx)
    heard: list[tuple[str, int, int]] = []
    found = judge_candidates(items, ctx=ctx, progress=lambda *step: heard.append(step))
    steps = [s for s, _done, _total in heard]
    assert steps[0].startswith("matching words") and steps[-1].startswith("finding each")
    embedded = [(done, total) for s, done, total in heard if s == "embedding memories"]
    assert embedded[0][0] == 0 and embedded[-1][0] == embedded[-1][1] > len(items) // 2
    assert "loading the embedding model" in steps
    heard.clear()  # the same memories again: the cached pairs, nothing to say
    assert shape(judge_candidates(items, ctx=ctx, progress=lambda *s: heard.append(s))) == \
        shape(found) and heard == []
