"""``mask_data`` on large JSON (a judge's output names each memory in many pairs): each
distinct string searched once, on its own, never one text joining them all; the same bytes out
as the joined search it replaced."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import SAMPLES

from memtui.core.secrets import mask
from memtui.core.secrets.mask import mask_data, mask_secrets, output_findings


def _strings(value: Any, out: list[str]) -> list[str]:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _strings(key, out)
            _strings(item, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _strings(item, out)
    return out


def _old_masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, dict):
        return {_old_masked(key): _old_masked(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_old_masked(item) for item in value]
    return value


def old_mask_data(value: Any) -> Any:
    """The implementation before: every string joined into one text, searched once."""
    strings = _strings(value, [])
    if not strings or not output_findings("\n".join(strings)):
        return value
    return _old_masked(value)


def judge_like(secrets: list[str], pairs: int = 40) -> dict[str, Any]:
    """A judge's JSON: items repeated over many pairs, secrets in names, paths, quotes."""
    items = [{"key": f"/h/auto/{n}.md", "name": f"note-{n}", "body": f"Body {n}: use ruff."}
             for n in range(6)]
    for n, secret in enumerate(secrets):
        items[n % 6]["name"] = secret
        items[(n + 1) % 6]["body"] += f"\ntoken {secret} here"
    return {"provider": "local", "n": 3, "flags": [True, None, 1.5],
            "pairs": [{"id": f"p{k}", "a": items[k % 6], "b": items[(k + 1) % 6],
                       "evidence": [items[k % 6]["body"], "the same"],
                       secrets[k % len(secrets)] if secrets else "k": [k]}
                      for k in range(pairs)]}


def dumped(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.rule)
def test_the_same_bytes_as_the_joined_search(sample: Any) -> None:
    for secrets in ([sample.secret], [sample.line, sample.secret], []):
        data = judge_like(secrets)
        new = mask_data(data)
        assert dumped(new) == dumped(old_mask_data(data))
        if secrets:
            assert sample.secret not in dumped(new)
        else:
            assert new is data


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(st.text(max_size=60), max_size=8),
       picks=st.lists(st.sampled_from(SAMPLES), max_size=3))
def test_the_same_bytes_on_any_strings(texts: list[str], picks: list[Any]) -> None:
    data = {"a": texts, "b": [{t: p.line} for t, p in zip(texts, picks, strict=False)],
            "c": [p.secret for p in picks] * 3}
    assert dumped(mask_data(data)) == dumped(old_mask_data(data))


def test_each_distinct_string_is_searched_once_and_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = next(s for s in SAMPLES if s.rule == "github-pat").secret
    data = judge_like([secret], pairs=200)
    searched: list[str] = []
    real = mask.output_findings

    def counting(text: str, **kwargs: Any) -> Any:
        searched.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(mask, "output_findings", counting)
    shown = mask_data(data)
    assert secret not in dumped(shown)
    distinct = set(_strings(data, []))
    assert sorted(searched) == sorted(distinct)  # each once
    assert max(map(len, searched)) == max(map(len, distinct))  # no text joining them
