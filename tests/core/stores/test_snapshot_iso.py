"""Dates as Claude Code writes them (``toISOString``) are compared as strings, without the
JavaScript date parser: the order and equality must be the parser's (issue 25)."""

from __future__ import annotations

import itertools
import random

import pytest

from memtui.core.parse.jsdate import parse_js_date
from memtui.core.stores.snapshot import _compare, iso_instant

EDGES = [
    "0000-01-01T00:00:00.000Z", "0000-02-29T23:59:59.999Z", "1969-12-31T23:59:59.999Z",
    "1970-01-01T00:00:00.000Z", "1999-12-31T23:59:59.999Z", "2000-02-29T00:00:00.000Z",
    "2024-02-29T12:00:00.000Z", "2026-03-01T12:00:00.000Z", "2026-03-01T12:00:00.001Z",
    "2026-11-20T10:00:00.000Z", "9999-12-31T23:59:59.999Z",
]


def random_iso(rng: random.Random) -> str:
    year = rng.choice([rng.randrange(0, 10_000), rng.randrange(1990, 2040)])
    month = rng.randrange(1, 13)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return (f"{year:04d}-{month:02d}-{rng.randrange(1, days + 1):02d}T"
            f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}."
            f"{rng.randrange(1000):03d}Z")


def test_iso_dates_compare_as_the_parser_orders_them() -> None:
    rng = random.Random(25)
    samples = EDGES + [random_iso(rng) for _ in range(300)]
    samples += [s[:20] + "000Z" for s in samples[:50]]  # equal but for the milliseconds
    parsed: dict[str, float] = {}
    for text in samples:
        assert iso_instant(text), text
        ms = parse_js_date(text)
        assert ms is not None, text
        parsed[text] = ms
    for a, b in itertools.combinations(samples, 2):
        ms_a, ms_b = parsed[a], parsed[b]
        assert (a > b) == (ms_a > ms_b) and (a == b) == (ms_a == ms_b), (a, b)


@pytest.mark.parametrize("text", [
    "2026-02-29T00:00:00.000Z", "2100-02-29T00:00:00.000Z", "2026-04-31T00:00:00.000Z",
    "2026-13-01T00:00:00.000Z", "2026-00-01T00:00:00.000Z", "2026-01-00T00:00:00.000Z",
    "2026-01-01T24:00:00.000Z", "2026-01-01T00:60:00.000Z", "2026-01-01T00:00:60.000Z",
    "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000+00:00", "2026-01-01 00:00:00.000Z",
    "2026-01-01T00:00:00.000z", "+02026-01-01T00:00:0.000Z", "2026-01-01T00:00:00.0000",
    "２０２６-01-01T00:00:00.000Z", "2026-1-01T00:00:00.0000Z", "",
])
def test_other_forms_go_to_the_parser(text: str) -> None:
    assert not iso_instant(text)


def test_a_mixed_pair_is_compared_by_the_parser() -> None:
    iso, other = "2026-11-20T10:00:00.000Z", "Fri, 20 Nov 2026 10:00:00 GMT"
    assert _compare(iso, other)[2] == (
        "up to date: snapshot 2026-11-20T10:00:00.000Z is the same time as synced "
        "Fri, 20 Nov 2026 10:00:00 GMT")
    assert _compare("2026-11-20T10:00:00.001Z", "2026-11-20T10:00:00.000Z")[0] == "prompt-update"
    assert _compare("2026-11-20T10:00:00.000Z", "2026-11-20T10:00:00.000Z")[2].endswith(
        "is the same time as synced 2026-11-20T10:00:00.000Z")
