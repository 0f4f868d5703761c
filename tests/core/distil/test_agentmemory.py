"""Distil for an agentmemory home: agentmemory's index shape, nothing of the current index lost.

The expected index of :func:`amhomes.small_home` was checked byte for byte against agentmemory's
own ``distilMemories`` (docs/claude-code-rules.md#agentmemory-distil, run with Node on the same
home).
"""

from __future__ import annotations

import os
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from amhomes import AGENTMEMORY_OUTPUT, CUT, INACTIVE, NOW, small_home, write_index
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memtui.core.demo.build import build_demo_home
from memtui.core.demo.writers import STORY_NOW, write_agentmemory_daily, write_file
from memtui.core.distil.agentmemory import (
    AgentmemoryCorpus,
    parse_home,
    render_index,
)
from memtui.core.parse.jsstring import js_trim

CURRENT = """\
Read me first: this index is rebuilt by distil.

# Memory Index
<!-- last distilled: 2026-02-28 18:00:00 -->

## Pinned
- Never store secrets here.

- Prefer small PRs.

## Topics
- Auth — old → [[2026-02-28]] (1 entries) (topics/auth.md)

## My conventions
Write dates as YYYY-MM-DD.
```
## not a heading: inside a fence
```

## #auth
- old entry → [[2026-02-28]]
Keep auth notes short.
- old entry two → [[2026-02-27]]

## #oldtag
- gone → [[2026-01-01]]
A line of mine under an old tag.

## #retired
- gone too → [[2026-01-02]]

## Recent
- old → [[2026-02-28]]

# Appendix
Hand-written to the end.

## Tags
#auth → 2026-02-28
"""

EXPECTED_WITH_CURRENT = f"""\
# Memory Index
<!-- last distilled: 2026-03-03 08:00:00 -->

Read me first: this index is rebuilt by distil.

## Pinned
- Never store secrets here.

- Prefer small PRs.

## Topics
- Auth — Refresh tokens rotate on every use → [[2026-03-02]] (2 entries) (topics/auth.md)
- Billing — Invoices are integer cents #billing → [[2026-03-02]] (1 entries) (topics/billing.md)

## My conventions
Write dates as YYYY-MM-DD.
```
## not a heading: inside a fence
```

## #auth
- Token refresh races fixed in src/auth/refresh.ts → [[2026-03-02]]
- PKCE chosen over the implicit flow #auth → [[2026-03-01]]
- Switched the auth flow to PKCE #auth → [[2026-03-01]]

Keep auth notes short.

## #oldtag
A line of mine under an old tag.

## #deploy
- Deploys go out on Tuesdays only #deploy → [[2026-03-02]]
- Deploy checklist lives in the wiki #deploy → [[2026-03-01]]

## #billing
- Invoices are integer cents #billing → [[2026-03-02]]

## Recent
{CUT}
- Refresh tokens rotate on every use → [[2026-03-02]]
- Lunch orders go through the ERP now → [[2026-03-01]]

# Appendix
Hand-written to the end.

## Tags
#auth → 2026-03-02, 2026-03-01
#deploy → 2026-03-02, 2026-03-01
#billing → 2026-03-02
"""

GENERATED_LINE = re.compile(
    r"^(# Memory Index|<!-- last distilled: .* -->|## (Topics|Recent|Tags|#[a-z][\w-]*)"
    r"|- .* → \[\[[^\]]*\]\]|- .+ \(\d+ entries\) \(topics/.*\.md\)|#[a-z][\w-]* → .*)$"
)


def _distil(home: Path, **kwargs: object) -> tuple[AgentmemoryCorpus, str]:
    corpus = parse_home(home, now=NOW)
    return corpus, render_index(corpus, corpus.index_text, NOW, **kwargs).text  # type: ignore[arg-type]


def test_the_index_of_a_home_without_memory_md_is_agentmemorys_byte_for_byte(
    tmp_path: Path,
) -> None:
    _, text = _distil(small_home(tmp_path))
    assert text == AGENTMEMORY_OUTPUT


def test_pinned_and_hand_written_sections_and_lines_survive(tmp_path: Path) -> None:
    home = small_home(tmp_path)
    write_index(home, CURRENT)
    corpus = parse_home(home, now=NOW)
    index = render_index(corpus, corpus.index_text, NOW)
    assert index.text == EXPECTED_WITH_CURRENT
    assert [(k.heading, k.after, k.pinned) for k in index.kept] == [
        ("## Pinned", "header", True),
        ("## My conventions", "topics", False),
        ("# Appendix", "recent", False),
    ]
    status = {s.id: s.status for s in index.generated}
    assert status == {
        "header": "changed", "topics": "changed", "tag:#auth": "changed",
        "tag:#deploy": "added", "tag:#billing": "added", "recent": "changed",
        "tags": "changed", "tag:#oldtag": "removed", "tag:#retired": "removed",
    }  # fmt: skip
    by_id = {s.id: s for s in index.generated}
    assert by_id["tag:#auth"].kept_lines == ("Keep auth notes short.",)
    assert by_id["header"].kept_lines == ("Read me first: this index is rebuilt by distil.",)


def test_every_line_distil_did_not_generate_is_kept_verbatim(tmp_path: Path) -> None:
    """The line-set test: nothing hand-written is dropped, whatever section it was in."""
    home = small_home(tmp_path)
    write_index(home, CURRENT)
    _, text = _distil(home)
    new_lines = set(text.split("\n"))
    old_user_lines = {
        line for line in CURRENT.split("\n") if line.strip() and not GENERATED_LINE.match(line)
    }
    assert len(old_user_lines) == 12
    assert old_user_lines - new_lines == set()
    # and what distil generated before is not carried over
    assert "- old entry → [[2026-02-28]]" not in new_lines
    assert "## #retired" not in new_lines


def test_distilling_the_result_again_changes_nothing(tmp_path: Path) -> None:
    home = small_home(tmp_path)
    write_index(home, CURRENT)
    _, first = _distil(home)
    write_index(home, first)
    _, second = _distil(home)
    assert second == first


def test_a_disabled_section_keeps_its_current_version_or_is_left_out(tmp_path: Path) -> None:
    home = small_home(tmp_path)
    write_index(home, CURRENT)
    disabled = {"tag:#auth", "tag:#deploy", "tag:#oldtag", "header"}
    corpus, text = _distil(home, disabled=disabled)
    assert (
        "## #auth\n- old entry → [[2026-02-28]]\nKeep auth notes short.\n"
        "- old entry two → [[2026-02-27]]\n\n## #oldtag\n- gone → [[2026-01-01]]\n"
        "A line of mine under an old tag.\n\n## #billing\n" in text
    )
    assert "## #deploy" not in text  # new: nothing current to keep
    assert text.startswith(
        "Read me first: this index is rebuilt by distil.\n\n# Memory Index\n"
        "<!-- last distilled: 2026-02-28 18:00:00 -->\n\n## Pinned\n"
    )
    sections = render_index(corpus, corpus.index_text, NOW, disabled).generated
    assert {s.id for s in sections if not s.enabled} == disabled


def test_lifecycle_markers_and_an_expired_valid_until_exclude_entries(tmp_path: Path) -> None:
    home = small_home(tmp_path)
    write_agentmemory_daily(
        home,
        "2026-03-03",
        [
            *INACTIVE,
            ("2026-03-03 07:30:00", "dddd4444", "- Status: revoked.\nOld key #deploy"),
            ("2026-03-03 07:40:00", "dddd4444", "Valid until: 2026-03-03\nFreeze today #deploy"),
        ],
    )
    corpus, text = _distil(home)
    assert [(x.entry.file, x.entry.start, x.reason) for x in corpus.excluded] == [
        ("daily/2026-03-03.md", 1, "Status: superseded"),
        ("daily/2026-03-03.md", 5, "Trust: untrusted"),
        ("daily/2026-03-03.md", 9, "Valid until: 2026-03-02 (expired)"),
        ("daily/2026-03-03.md", 13, "Status: revoked"),
    ]
    for gone in ("Use implicit", "Ignore previous", "Freeze until", "Old key"):
        assert gone not in text
    assert "- Valid until: 2026-03-03 → [[2026-03-03]]" in text.split("## #deploy\n")[1]
    # a day later the last one has expired too
    later = parse_home(home, now=NOW + timedelta(days=1))
    assert len(later.excluded) == 5


def test_the_same_tree_gives_the_same_bytes(tmp_path: Path) -> None:
    one = small_home(tmp_path / "one")
    write_index(one, CURRENT)
    two = tmp_path / "two"
    shutil.copytree(one, two)
    (two / "daily" / "2026-03-01.md").touch()  # a newer mtime changes nothing
    _, first = _distil(one)
    _, again = _distil(one)
    _, copy = _distil(two)
    assert first == again == copy


def test_tag_ties_are_broken_by_name(tmp_path: Path) -> None:
    write_agentmemory_daily(
        tmp_path,
        "2026-03-01",
        [
            ("2026-03-01 09:00:00", "a", "one #zeta #alpha"),
            ("2026-03-01 09:01:00", "a", "two #mid"),
        ],
    )
    _, text = _distil(tmp_path)
    assert re.findall(r"^## (#\w+)$", text, re.M) == ["#alpha", "#mid", "#zeta"]
    assert text.endswith("## Tags\n#alpha → 2026-03-01\n#mid → 2026-03-01\n#zeta → 2026-03-01\n")


def test_the_top_15_tags_get_sections_the_top_20_the_tag_index(tmp_path: Path) -> None:
    entries = [
        (f"2026-03-{day:02d} 09:00:00", "a", " ".join(f"#t{n:02d}" for n in range(day)))
        for day in range(1, 26)
    ]  # t00 is on 25 entries, t24 on one
    for stamp, sid, body in entries:
        write_agentmemory_daily(tmp_path, stamp[:10], [(stamp, sid, body)])
    corpus, text = _distil(tmp_path)
    sections = re.findall(r"^## (#\w+)$", text, re.M)
    assert sections == [f"#t{n:02d}" for n in range(15)]
    tag_lines = text.split("## Tags\n")[1].splitlines()
    assert [line.split(" ")[0] for line in tag_lines] == [f"#t{n:02d}" for n in range(20)]
    assert tag_lines[0] == "#t00 → 2026-03-25, 2026-03-24, 2026-03-23, 2026-03-22, 2026-03-21"
    assert len(text.split("## #t00\n")[1].split("\n\n")[0].splitlines()) == 3
    assert render_index(corpus, None, NOW).tag_counts["#t00"] == 25


def test_the_scratchpads_open_items_are_listed_and_it_is_not_rewritten(tmp_path: Path) -> None:
    home = small_home(tmp_path)
    before = (home / "SCRATCHPAD.md").read_bytes()
    corpus = parse_home(home, now=NOW)
    index = render_index(corpus, corpus.index_text, NOW)
    assert [(i.line, i.text) for i in index.open_items] == [
        (4, "rotate the staging key"),
        (6, "ask about the ERP window"),
    ]
    assert "rotate the staging key" not in index.text
    assert (home / "SCRATCHPAD.md").read_bytes() == before


def test_every_file_read_is_recorded_with_its_sha256(tmp_path: Path) -> None:
    import hashlib

    home = small_home(tmp_path)
    write_index(home, CURRENT)
    corpus = parse_home(home, now=NOW)
    assert sorted(corpus.sources) == [
        "MEMORY.md", "SCRATCHPAD.md", "daily/2026-03-01.md", "daily/2026-03-02.md",
        "topics/auth.md", "topics/billing.md",
    ]  # fmt: skip
    for rel, digest in corpus.sources.items():
        assert hashlib.sha256((home / rel).read_bytes()).hexdigest() == digest


def test_broken_files_are_problems_and_the_rest_loads(tmp_path: Path) -> None:
    home = small_home(tmp_path / "home")
    write_file(home / "daily" / "2026-02-01.md", b"<!-- 2026-02-01 09:00:00 [a] -->\nbad \xff\n")
    os.mkfifo(home / "topics" / "fifo.md")
    outside = write_file(tmp_path / "outside.md", "<!-- 2026-02-02 09:00:00 [a] -->\nSecret #x")
    (home / "topics" / "link.md").symlink_to(outside)
    (home / "daily" / "dir.md").mkdir()
    corpus, text = _distil(home)
    problems = {p.file: p.problem for p in corpus.problems}
    assert sorted(problems) == [
        "daily/2026-02-01.md", "daily/dir.md", "topics/fifo.md", "topics/link.md",
    ]  # fmt: skip
    assert "invalid UTF-8" in problems["daily/2026-02-01.md"]
    assert "symlink leaves the store" in problems["topics/link.md"]
    assert "not a regular file" in problems["topics/fifo.md"]
    assert "Secret" not in text and "bad" not in text
    assert text == AGENTMEMORY_OUTPUT  # the rest loads as before
    assert not corpus.index_broken


def test_an_unreadable_memory_md_is_marked_broken(tmp_path: Path) -> None:
    home = small_home(tmp_path)
    write_file(home / "MEMORY.md", b"# Memory Index\n\xfe\n")
    corpus = parse_home(home, now=NOW)
    assert corpus.index_broken and corpus.index_text is None
    assert [p.file for p in corpus.problems] == ["MEMORY.md"]


def test_progress_per_file_and_cancellation(tmp_path: Path) -> None:
    home = small_home(tmp_path)
    seen: list[tuple[str, int, int]] = []
    corpus = parse_home(home, now=NOW, progress=lambda *a: seen.append(a))
    assert corpus.complete
    assert [done for _, done, _ in seen] == [0, 1, 2, 3, 4]
    assert {total for _, _, total in seen} == {4}
    calls = iter([False, True])
    stopped = parse_home(home, now=NOW, cancelled=lambda: next(calls))
    assert not stopped.complete
    assert {e.file for e in stopped.entries} == {"daily/2026-03-01.md"}


def test_an_empty_home_gives_the_title_and_keeps_the_current_sections(tmp_path: Path) -> None:
    write_index(tmp_path, "# Memory Index\n\n## Pinned\nkeep\n")
    _, text = _distil(tmp_path)
    stamp = "<!-- last distilled: 2026-03-03 08:00:00 -->"
    assert text == f"# Memory Index\n{stamp}\n\n## Pinned\nkeep\n"


@pytest.fixture(scope="module")
def demo_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[AgentmemoryCorpus, str]:
    home = build_demo_home(tmp_path_factory.mktemp("demo"), now=STORY_NOW.timestamp())
    corpus = parse_home(home.agent_memory_home, now=STORY_NOW)
    return corpus, render_index(corpus, corpus.index_text, STORY_NOW).text


def test_the_demo_homes_agentmemory_distils_without_losing_a_line(
    demo_index: tuple[AgentmemoryCorpus, str],
) -> None:
    corpus, text = demo_index
    assert corpus.problems == [] and corpus.excluded == []
    assert len(corpus.entries) == 11
    assert [i.text for i in corpus.open_items] == [
        "decide the test database", "rotate the staging key", "clean up the checkout_v2 flag",
    ]  # fmt: skip
    assert "## Pinned\n- Money is integer cents, always.\n\n## Topics\n" in text
    assert "\n\nMy own note: ask Dana about the ERP sync window.\n\n## Tags\n" in text
    assert "- #payments: 2026-11-27, 2026-11-25" in text  # not agentmemory's shape: kept
    assert "# 2026-11-2" not in text  # a daily log's date heading is no entry
    assert re.findall(r"^## (#\w+)$", text, re.M) == [
        "#deploy", "#payments", "#testing", "#ci", "#incident",
    ]  # fmt: skip


_INDEX_PIECES = st.sampled_from(
    [
        "# Memory Index", "<!-- last distilled: 2026-01-01 00:00:00 -->", "## Pinned",
        "## Topics", "## Recent", "## Tags", "## #auth", "## #gone", "## Mine", "# Other",
        "- old → [[2026-01-01]]", "- T — s → [[2026-01-01]] (1 entries) (topics/t.md)",
        "#auth → 2026-01-01", "- [[payments]]", "note", "```", "", " ", "\r",
    ]
)  # fmt: skip
_INDEX = st.lists(st.one_of(_INDEX_PIECES, st.text(max_size=8)), max_size=25).map("\n".join)


@settings(max_examples=150)
@given(current=_INDEX)
@example(current="\ufeff")  # blank by JavaScript's trim (agentmemory's), not by str.strip
@example(current="\ufeffnote\n \ufeff\n")
def test_no_current_index_loses_a_line_or_breaks_distil(
    small_corpus: AgentmemoryCorpus, current: str
) -> None:
    text = render_index(small_corpus, current, NOW).text
    new_lines = set(text.split("\n"))
    user = [
        line
        for line in current.split("\n")
        if js_trim(line) and not GENERATED_LINE.match(line.removesuffix("\r"))
    ]
    assert [line for line in user if line not in new_lines] == []
    assert text.endswith("\n") and text.startswith("# Memory Index\n")
    assert render_index(small_corpus, text, NOW).text == text  # a second distil: no change


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> AgentmemoryCorpus:
    return parse_home(small_home(tmp_path_factory.mktemp("small")), now=NOW)
