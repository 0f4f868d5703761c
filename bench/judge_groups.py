"""Group sizes on the labelled home (issue 22, item 3): how the pairs needing a decision fall
into groups, as connected components (``link_share`` 0, what groups were) and as the dense
clusters ``memtui.core.judge.groups.group_pairs`` makes now.

    python bench/judge_groups.py

Builds ``memtui/core/demo/judge_home.py``'s home in a temporary directory, takes the
candidates ``memtui judge`` takes and the local judge's verdicts, and prints per grouping the
number of groups, the distribution of their sizes (members) and the largest ones."""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_quality import items_of

from memtui.core.demo.judge_home import build_judge_home
from memtui.core.judge.finder import judge_candidates
from memtui.core.judge.groups import LINK_SHARE, group_pairs
from memtui.core.judge.local import LocalJudge
from memtui.core.judge.verdicts import JudgedPair


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="memtui-judge-groups-") as tmp:
        home = build_judge_home(Path(tmp))
        items = items_of(home)
        candidates = judge_candidates(items)
        verdicts = LocalJudge().judge(candidates, items=items)
        pairs = [JudgedPair(c, v, "judged") for c, v in zip(candidates, verdicts, strict=True)
                 if v is not None]
    for name, share in (("connected components", 0.0), (f"dense (link share {LINK_SHARE})",
                                                          LINK_SHARE)):
        groups = group_pairs(pairs, link_share=share)
        sizes = Counter(len(g.members) for g in groups)
        largest = sorted(((len(g.members), len(g.pairs)) for g in groups), reverse=True)[:5]
        print(f"== {name}: {len(groups)} groups, {sum(len(g.pairs) for g in groups)} pairs")
        print("   members: " + ", ".join(f"{k}×{v}" for k, v in sorted(sizes.items())))
        print("   largest (members, pairs): " + ", ".join(f"({m}, {p})" for m, p in largest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
