"""The anthropic judge judges groups (issue 22, item 6): the candidate pairs that share
memories go in one request that carries each memory once, with its date, and lists the pairs
among them; a cluster over the token budget is split; the shared prefix is marked cached and
priced so. Through the real SDK against the mocked Messages API (no network)."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from core.judge.homes import Note, store_dir, write_home
from core.judge.mock_api import MODEL, FakeMessagesAPI, asked

from memtui.core.config import JudgeConfig
from memtui.core.demo.writers import write_memory
from memtui.core.judge import anthropic_judge
from memtui.core.judge.anthropic_judge import AnthropicJudge, clusters, price_of
from memtui.core.judge.candidates import find_candidates
from memtui.core.judge.items import memory_items, newer
from memtui.core.judge.providers import load_judge
from memtui.core.judge.verdicts import Candidate, Relation
from memtui.core.scan.scanner import scan

SECRET = "ghp_" + "PLANTEDgroupSECRET" + "0123456789abcdefgh"
"""A fake GitHub token (gitleaks' github-pat shape), built so no literal sits in the repo."""

DESCRIPTION = "Test database: what tests run against"
GROUP = [
    Note("auto", "test-db.md", DESCRIPTION,
         f"Integration tests run against a real Postgres 16; never SQLite.\nCI token: {SECRET}\n",
         40),
    Note("team", "test-database.md", DESCRIPTION,
         "Integration tests run against SQLite in memory so the suite stays fast.", 2),
    Note("agent-user:reviewer", "test-db.md", DESCRIPTION,
         "Integration tests run against a real Postgres 16 in Docker.", 20),
    Note("agent-project:planner", "test-db.md", DESCRIPTION,
         "Integration tests run against Postgres, never mocks.", 10),
]
MODIFIED = (date.today() - timedelta(days=1)).isoformat()
"""The ``modified`` date written in the team memory's frontmatter: yesterday, so newer than
every other memory's mtime here (10 days ago and older) on whatever day the suite runs (a
fixed date stopped being the newest side once the clock passed it)."""


def make_judge(api: FakeMessagesAPI, model: str = "", **options: Any) -> AnthropicJudge:
    judge = load_judge("anthropic", JudgeConfig(provider="anthropic", model=model),
                       env={"ANTHROPIC_API_KEY": "sk-test"}, http_client=api.client(),
                       **options)
    assert isinstance(judge, AnthropicJudge)
    return judge


def group_home(root: Path) -> list[Candidate]:
    ctx = write_home(root, GROUP)
    team = GROUP[1]
    write_memory(store_dir(root, "team"), team.rel, description=team.description,
                 type=team.type, body=team.body, extra={"modified": MODIFIED},
                 mtime_days_ago=team.days_ago)
    return find_candidates(memory_items(scan(ctx)))


@pytest.fixture
def group(tmp_path: Path) -> list[Candidate]:
    found = group_home(tmp_path)
    assert len(found) == 6 and len(clusters(found)) == 1  # 4 memories, every pair near
    return found


def sent(api: FakeMessagesAPI) -> list[dict[str, Any]]:
    """The Messages requests sent (not the token counts)."""
    bodies = [json.loads(b) for b in api.bodies]
    return [b for b in bodies if "max_tokens" in b]


def content(body: dict[str, Any]) -> str:
    text: str = body["messages"][0]["content"]
    return text


def test_a_group_of_four_memories_goes_in_one_request_and_gives_six_verdicts(
    group: list[Candidate],
) -> None:
    api = FakeMessagesAPI()
    verdicts = make_judge(api).judge(group)
    assert api.calls == 1
    assert len(verdicts) == 6
    assert all(v is not None and v.judge == MODEL and v.fallback is None for v in verdicts)
    [body] = sent(api)
    text = content(body)
    assert text.count("<memory ") == 4 and len(asked(text)) == 6
    for note in GROUP[1:]:  # each memory's body once, however many pairs it is in
        assert text.count(note.body) == 1
    assert {frozenset(p) for p in asked(text)} == {
        frozenset((f"m{i}", f"m{j}")) for i in range(1, 5) for j in range(i + 1, 5)
    }
    for store in ("auto", "team", "agent"):
        assert f'store="{store}"' in text


def test_the_request_marks_the_instructions_and_the_tool_cached_and_forces_the_tool(
    group: list[Candidate],
) -> None:
    api = FakeMessagesAPI()
    make_judge(api).judge(group)
    [body] = sent(api)
    [system] = body["system"]
    assert system["cache_control"] == {"type": "ephemeral"}
    assert "groups of memories" in system["text"]
    [tool] = body["tools"]
    assert tool["cache_control"] == {"type": "ephemeral"}
    assert body["tool_choice"] == {"type": "tool", "name": "record_verdicts"}
    entry = tool["input_schema"]["properties"]["verdicts"]["items"]
    assert entry["properties"]["relation"]["enum"] == [r.value for r in Relation]
    assert {"a", "b", "winner", "confidence", "reason"} <= set(entry["required"])
    assert "evidence_a" in entry["properties"] and "evidence_b" in entry["properties"]
    # the cached prefix is the same in every request: nothing of the memories in it
    assert "Postgres" not in json.dumps([body["system"], body["tools"]])


def test_the_dates_are_in_the_request(group: list[Candidate]) -> None:
    api = FakeMessagesAPI()
    make_judge(api).judge(group)
    text = content(sent(api)[0])
    assert f'modified="{MODIFIED}"' in text  # the frontmatter's date
    assert len(re.findall(r'mtime="\d{4}-\d\d-\d\dT\d\d:\d\dZ"', text)) == 3  # else the mtime


def test_a_supersession_comes_back_with_its_direction(group: list[Candidate]) -> None:
    api = FakeMessagesAPI(relation="supersedes", winner="newer")
    verdicts = make_judge(api).judge(group)
    assert all(v is not None and v.relation is Relation.SUPERSEDES for v in verdicts)
    for candidate, verdict in zip(group, verdicts, strict=True):
        assert verdict is not None and verdict.winner is not None
        kept = candidate.a if verdict.winner == "a" else candidate.b
        if candidate.a.modified is None and candidate.b.modified is None:
            assert verdict.winner == newer(candidate.a, candidate.b)  # by the mtimes sent
        else:
            assert kept.modified == MODIFIED  # the dated side: newer than any mtime here


def test_a_reply_naming_a_pair_b_first_is_turned_to_the_pairs_sides(
    group: list[Candidate],
) -> None:
    straight = make_judge(FakeMessagesAPI(winner="a")).judge(group)
    flipped = make_judge(FakeMessagesAPI(script=["flipped"], winner="a")).judge(group)
    assert [(v.winner, v.evidence) for v in straight if v] == \
        [(v.winner, v.evidence) for v in flipped if v]
    assert all(v is not None and v.winner == "a" and v.evidence[0] == "never SQLite"
               for v in flipped)


def test_a_supersession_without_a_side_is_no_verdict(group: list[Candidate]) -> None:
    api = FakeMessagesAPI(relation="supersedes", winner="none")
    judge = make_judge(api)
    verdicts = judge.judge(group)
    assert api.calls == 2  # asked again, then judged locally
    assert all(v is not None and v.judge == "local" for v in verdicts)
    assert all(v is not None and v.fallback == "a malformed reply (asked twice)"
               for v in verdicts)


def test_pairs_the_model_leaves_out_get_the_local_verdict_with_a_note(
    group: list[Candidate],
) -> None:
    api = FakeMessagesAPI(script=["partial", "partial"])
    judge = make_judge(api)
    verdicts = judge.judge(group)
    assert api.calls == 2
    again = content(sent(api)[1])
    assert len(asked(again)) == 5  # the pairs it lacked, with only their memories
    by_model = [v for v in verdicts if v is not None and v.judge == MODEL]
    local = [v for v in verdicts if v is not None and v.judge == "local"]
    assert len(by_model) == 2 and len(local) == 4
    assert all(v.fallback == "a partial reply (asked twice)" for v in local)
    assert judge.notes == ["4 pairs judged locally: a partial reply (asked twice)"]


def test_a_verdict_for_a_pair_not_asked_is_left_out(group: list[Candidate]) -> None:
    api = FakeMessagesAPI(script=["extra"])
    verdicts = make_judge(api).judge(group)
    assert api.calls == 1 and all(v is not None and v.judge == MODEL for v in verdicts)


def test_no_group_request_holds_the_planted_secret(group: list[Candidate]) -> None:
    api = FakeMessagesAPI()
    judge = make_judge(api)
    estimate = judge.estimate(group)
    judge.judge(group)
    assert estimate.redactions == 1  # the secret is in one memory, sent once
    assert api.bodies
    for body in api.bodies:
        assert SECRET not in body and SECRET[4:20] not in body
    assert "[REDACTED:github-pat]" in content(sent(api)[0])


# ---------------------------------------------------------------------- the budget


def near_copies(root: Path, count: int) -> list[Candidate]:
    """``count`` reworded copies of one rule, across two stores: one large cluster."""
    notes = [
        Note("auto" if n % 2 else "team", f"lint-{n}.md", "Lint before every commit",
             f"Run make lint before every commit (copy {n}); the hook runs ruff and mypy, "
             "and a commit that fails lint is never pushed.", 5 + n)
        for n in range(count)
    ]
    return find_candidates(memory_items(scan(write_home(root, notes))))


def test_the_budget_splits_a_large_cluster_into_several_requests(tmp_path: Path) -> None:
    found = near_copies(tmp_path, 10)
    assert len(clusters(found)) == 1 and len(found) >= 20
    api = FakeMessagesAPI()
    judge = make_judge(api, token_budget=300)
    plan = judge.plan(found)
    verdicts = judge.judge(found)
    assert api.calls == len(plan) > 2
    assert all(v is not None and v.judge == MODEL for v in verdicts)
    listed: list[frozenset[str]] = []
    for body in sent(api):
        text = content(body)
        carried = set(re.findall(r'<memory id="(m\d+)"', text))
        pairs = asked(text)
        assert {m for pair in pairs for m in pair} <= carried  # each pair's memories carried
        listed += [frozenset(re.findall(r'path="([^"]+)"', text))]
    assert sum(len(r.candidates) for r in plan) == len(found)  # every pair asked once
    assert len({c.id for r in plan for c in r.candidates}) == len(found)
    for request in plan:  # under the budget, but for a piece of one pair
        memories = content(request.params).split("<memories>")[1]
        assert len(memories) / 3.5 <= 300 + 50 or len(request.candidates) == 1
    whole = make_judge(FakeMessagesAPI(), pairs_per_request=len(found)).plan(found)
    assert len(whole) == 1  # the default budget holds the cluster whole


def test_small_clusters_share_a_request_and_the_pair_limit_splits_them(
    tmp_path: Path,
) -> None:
    found = group_home(tmp_path / "one") + near_copies(tmp_path / "two", 3)
    assert len(clusters(found)) == 2
    api = FakeMessagesAPI()
    judge = make_judge(api)
    [request] = judge.plan(found)
    assert request.groups == 2 and len(request.candidates) == len(found)
    apart = make_judge(FakeMessagesAPI(), pairs_per_request=6).plan(found)
    assert [r.groups for r in apart] == [1, 1]


def test_the_estimate_matches_the_requests_sent(tmp_path: Path) -> None:
    found = near_copies(tmp_path, 10)
    api = FakeMessagesAPI()
    judge = make_judge(api, token_budget=300)
    estimate = judge.estimate(found)
    assert api.counted == estimate.requests + 1  # each request, and the shared prefix once
    counted = [json.loads(b) for b in api.bodies]
    judge.judge(found)
    messages = sent(api)
    assert estimate.requests == len(messages) == judge.usage.requests
    assert estimate.pairs == len(found) == sum(len(asked(content(b))) for b in messages)
    assert estimate.groups == estimate.requests  # pieces of one cluster
    assert estimate.output_tokens == sum(b["max_tokens"] for b in messages)
    for count, body in zip(counted, messages, strict=False):  # the same bodies counted
        assert count["messages"] == body["messages"] and count["system"] == body["system"]
    assert f"in {estimate.requests} requests ({estimate.groups} groups)" in estimate.describe()


def test_the_estimate_prices_the_cached_prefix_as_the_api_bills_it(tmp_path: Path) -> None:
    found = near_copies(tmp_path, 10)
    model = "claude-opus-5"  # caches a prefix of 512 tokens or more
    api = FakeMessagesAPI()
    judge = make_judge(api, token_budget=300, model=model)
    estimate = judge.estimate(found)
    prefix_body = json.loads(api.bodies[-1])
    assert prefix_body["messages"] == [{"role": "user", "content": "-"}]
    prefix = 1000 + len(api.bodies[-1].encode()) // 4  # what the mock counts for it
    n = estimate.requests
    assert (estimate.cache_write_tokens, estimate.cache_read_tokens) == (prefix, prefix * (n - 1))
    price_in, price_out = price_of(model)
    plain = estimate.input_tokens - prefix * n
    assert estimate.cost_usd == pytest.approx((
        plain * price_in + prefix * price_in * 1.25 + prefix * (n - 1) * price_in * 0.1
        + estimate.output_tokens * price_out) / 1e6)
    assert any("priced as cached" in note for note in estimate.notes)
    assert f"({prefix * n:,} of them cached)" in estimate.describe()

    short = make_judge(FakeMessagesAPI(), token_budget=300, model="claude-haiku-4-5")
    uncached = short.estimate(found)  # the prefix is under Haiku 4.5's 4,096 tokens
    assert prefix < anthropic_judge.MIN_CACHED_TOKENS["claude-haiku-4-5"]
    assert uncached.cache_read_tokens == uncached.cache_write_tokens == 0
    unknown = make_judge(FakeMessagesAPI(), token_budget=300).estimate(found)
    assert unknown.cache_read_tokens == 0  # not known to cache: never priced below full


def test_a_batch_has_one_entry_per_group_request(tmp_path: Path) -> None:
    found = near_copies(tmp_path / "two", 10) + group_home(tmp_path / "one")
    api = FakeMessagesAPI()
    judge = make_judge(api, token_budget=300, poll_seconds=0.0)
    judge.batch = True
    plan = judge.plan(found)
    verdicts = judge.judge(found)
    [entries] = api.batches.values()
    assert len(entries) == len(plan) > 2
    assert [len(asked(e["params"]["messages"][0]["content"])) for e in entries] == \
        [len(r.candidates) for r in plan]
    assert all(e["params"]["system"][0]["cache_control"] == {"type": "ephemeral"}
               for e in entries)
    assert all(v is not None and v.judge == MODEL for v in verdicts)
    assert all(SECRET not in body for body in api.bodies)
