"""The local judge's rarity of words (every item's statements read, a third of a second at
1,000 memories) is made on a thread of its own while a cold run finds its pairs
(:class:`memtui.core.judge.session.Ahead`): the verdicts are those of a run that makes it
when it judges, and a run whose items changed since makes it again."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import demo_context

from memtui.core.config import JudgeConfig
from memtui.core.demo.build import DemoHome
from memtui.core.judge import engine
from memtui.core.judge.session import JudgeSession
from memtui.core.stores.locations import Context


@pytest.fixture
def ctx(demo: DemoHome, tmp_path: Path) -> Context:
    return demo_context(demo, MEMTUI_NO_CACHE="1", XDG_STATE_HOME=str(tmp_path / "state"))


def verdicts(session: JudgeSession) -> dict[str, tuple[str, float, str]]:
    session.send()
    return {p.candidate.id: (p.verdict.relation.value, p.verdict.confidence, p.verdict.reason)
            for p in session.run.pairs if p.verdict is not None}


def test_the_rarity_made_ahead_gives_the_verdicts_made_in_line(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[int] = []
    real = engine.Vectors.__init__

    def counted(self: engine.Vectors, *args: object, **kwargs: object) -> None:
        made.append(1)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.Vectors, "__init__", counted)
    ahead = JudgeSession.start(ctx, JudgeConfig(), managed=tmp_path / "none",
                               ledger=None)
    assert ahead.rarity is not None and ahead.rarity[0] is ahead.run.items
    assert ahead.rarity[1].get() is not None and made == [1]
    got = verdicts(ahead)
    assert made == [1] and ahead.rarity is None  # taken, not made again
    (tmp_path / "state").rename(tmp_path / "state-1")  # an empty ledger again
    inline = JudgeSession.start(ctx, JudgeConfig(), managed=tmp_path / "none")
    inline.rarity = None  # made when judging, as before
    assert verdicts(inline) == got and len(got) > 10
    assert made == [1, 1, 1]


def test_a_run_whose_items_changed_makes_its_rarity_again(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = JudgeSession.start(ctx, JudgeConfig(), managed=tmp_path / "none")
    assert session.rarity is not None
    stale = session.rarity[1].get()
    session.run.items = list(session.run.items)  # as a reread replaces them
    used: list[object] = []
    from memtui.core.judge import local

    real = local.run_context

    def spy(*args: object, **kwargs: object) -> object:
        used.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(local, "run_context", spy)
    session.send()
    assert used == [1] and stale is not None  # made again from the run's items
