"""Choose the pairs of the judge home to label after the fact (see ``merge.py``).

    python bench/judge_labels/select.py

Every candidate pair (``memtui.core.judge.finder.judge_candidates``) that no label of
``memtui/core/demo/judge_home.py`` names and whose memories are at a cosine of at least 0.5,
whatever the judge says of it, and the unlabelled pairs the judge listed below that cosine (so
every listed pair is labelled). Shuffled with a fixed seed, numbered, written without any
verdict to ``pairs.json`` and in two overlapping shares (30 pairs in both) to
``chunk-a.json`` / ``chunk-b.json``, one per reader.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))

import judge_quality as jq  # noqa: E402  (bench/judge_quality.py)

from memtui.core.demo.judge_home import build_judge_home, store_dirs  # noqa: E402
from memtui.core.demo.writers import STORY_NOW  # noqa: E402
from memtui.core.judge import engine  # noqa: E402
from memtui.core.judge.finder import judge_candidates  # noqa: E402
from memtui.core.judge.items import CLAUDE_MD  # noqa: E402
from memtui.core.judge.local import LocalJudge, run_context  # noqa: E402
from memtui.core.judge.quality import side_of  # noqa: E402
from memtui.core.judge.verdicts import NEEDS_ACTION, JudgeItem  # noqa: E402

COSINE = 0.5
OVERLAP = 30


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home = build_judge_home(Path(tmp))
        dirs = store_dirs(home.ctx)
        items = jq.items_of(home)
        candidates = judge_candidates(items)
        given = LocalJudge().judge(candidates, items=items)
        vectors, _ = run_context(candidates, items)
        assert vectors is not None
        labelled = {t.key for t in jq.truths(home)}

        def side(item: JudgeItem) -> dict[str, object]:
            if item.kind == CLAUDE_MD:
                return {"store": "CLAUDE.md", "file": "CLAUDE.md (one bullet of its rules)",
                        "description": "", "body": item.body, "days_ago": None}
            path = Path(item.file)
            store = next(s for s, d in sorted(dirs.items(), key=lambda kv: -len(str(kv[1])))
                         if path.parent == d)
            return {"store": store, "file": path.name, "description": item.description,
                    "body": item.body,
                    "days_ago": round((STORY_NOW.timestamp() - item.mtime) / 86400)}

        out = []
        for candidate, verdict in zip(candidates, given, strict=True):
            if frozenset((side_of(candidate.a), side_of(candidate.b))) in labelled:
                continue
            cosine = engine.read(candidate.a, candidate.b, [], [], vectors).pair
            listed = verdict is not None and verdict.relation in NEEDS_ACTION
            if cosine >= COSINE or listed:
                out.append({"a": side(candidate.a), "b": side(candidate.b)})
    random.Random(7).shuffle(out)
    for i, pair in enumerate(out):
        pair["id"] = f"p{i:03d}"
    half = len(out) // 2
    for name, rows in (("pairs.json", out), ("chunk-a.json", out[:half + OVERLAP // 2]),
                       ("chunk-b.json", out[half - OVERLAP // 2:])):
        (HERE / name).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(f"{len(out)} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
