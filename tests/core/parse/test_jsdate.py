"""parse_js_date against JavaScript's ``new Date(s).getTime()``.

Every expected value below was produced by V8 (``node -e 'new Date(s).getTime()'``) under
TZ=UTC and TZ=America/New_York; Bun runs the same parser (JSC with ``useV8DateParser``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.parse.jsdate import parse_js_date

UTC = "UTC"
NEW_YORK = "America/New_York"


def _set_tz(name: str | None) -> None:
    if name is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = name
    time.tzset()


@contextmanager
def _zone(name: str) -> Iterator[None]:
    """The process's local time zone is ``name`` inside the block, restored after."""
    previous = os.environ.get("TZ")
    _set_tz(name)
    try:
        yield
    finally:
        _set_tz(previous)


@pytest.fixture(params=[UTC, NEW_YORK])
def local_tz(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs the test with the local time zone set to each zone in turn."""
    with _zone(request.param):
        yield str(request.param)


# Strings whose value does not depend on the local zone: date-only ISO forms (UTC), explicit
# zones, and strings JS rejects.
ZONED: list[tuple[str, int | None]] = [
    ("2026-11-20T10:00:00Z", 1795168800000),
    ("2026-11-20T10:00:00.000Z", 1795168800000),
    ("2026-11-20T10:00:00.5Z", 1795168800500),
    ("2026-11-20T10:00:00.1239Z", 1795168800123),  # extra digits are cut, not rounded
    ("2026-11-20T10:00Z", 1795168800000),
    ("2026-11-20T10:00:00+05:30", 1795149000000),
    ("2026-11-20T10:00:00-0800", 1795197600000),
    ("2026-11-20t10:00:00z", 1795168800000),
    ("2026-11-20", 1795132800000),
    ("2026-11", 1793491200000),
    ("2026", 1767225600000),
    ("+002026-11-20", 1795132800000),
    ("-000001-01-01", -62198755200000),
    ("2024-02-29", 1709164800000),
    ("2026-02-29", 1772323200000),  # day <= 31 rolls over: March 1
    ("2026-02-30", 1772409600000),
    ("2026-02-31", 1772496000000),
    ("2026-04-31", 1777593600000),
    ("2026-13-01", None),
    ("2026-00-10", None),
    ("2026-01-32", None),
    ("2026-01-00", None),
    ("2026-01-01T25:00Z", None),
    ("2026-01-01T24:00:00.000Z", 1767312000000),  # 24:00 is the next midnight
    ("2026-01-01T24:00Z", 1767312000000),
    ("2026-01-01T24:00:01Z", None),
    ("2026-01-01T24:01Z", None),
    ("2026-01-01T24:00:00.001Z", None),
    ("2026-01-01T10:60Z", None),
    ("2026-01-01T10:00:60Z", None),
    ("2026-01-01T1:00Z", None),
    ("2026-01-01T10:00:00+24:00", None),
    ("+275760-09-13T00:00:00Z", 8640000000000000),
    ("+275760-09-13T00:00:00.001Z", None),
    ("-271821-04-20T00:00:00Z", -8640000000000000),
    ("-271821-04-19T23:59:59.999Z", None),
    ("Tue, 01 Dec 2026 10:00:00 GMT", 1796119200000),
    ("01 Dec 2026 10:00:00 +0100", 1796115600000),
    ("Tue, 01 Dec 2026 10:00:00 EST", 1796137200000),
    ("Tue, 01 Dec 2026 10:00:00 UTC", 1796119200000),
    ("", None),
    ("not a date", None),
    ("2026-11-20T10:00:00Z junk", None),
    ("2026-11-20T10:00:00 Z", None),
    ("2026-11-20T10:00:00Z ", None),
    ("20261120", None),
    ("2026-11-20T", None),
    ("T10:00", None),
]

# Local-time strings: (text, value under TZ=UTC, value under TZ=America/New_York).
LOCAL: list[tuple[str, int | None, int | None]] = [
    ("2026-11-20T10:00", 1795168800000, 1795186800000),
    ("2026-11-20T10:00:00", 1795168800000, 1795186800000),
    ("2026-11-20T10:00:00.123", 1795168800123, 1795186800123),
    ("2026-11-20T10:00:00.1", 1795168800100, 1795186800100),
    ("2026/11/20", 1795132800000, 1795150800000),
    ("2026/11/20 10:00:00", 1795168800000, 1795186800000),
    ("2026-11-20 10:00:00", 1795168800000, 1795186800000),
    ("2026-11-20 10:00", 1795168800000, 1795186800000),
    ("Nov 20 2026", 1795132800000, 1795150800000),
    ("November 20, 2026 10:00 PM", 1795212000000, 1795230000000),
    ("11/20/2026", 1795132800000, 1795150800000),
    ("2026-03-08T02:30", 1772937000000, 1772955000000),  # New York: skipped hour, EST used
    ("2026-11-01T01:30", 1793496600000, 1793511000000),  # New York: repeated hour, EDT used
    ("2026-07-01T12:00", 1782907200000, 1782921600000),
    ("2026-01-01T24:00", 1767312000000, 1767330000000),
    ("1969-12-31T23:59:59.999", -1, 17999999),
    ("0001-01-01T00:00", -62135596800000, -62135579038000),  # New York LMT, -4:56:02
    ("-000000-01-01", 978307200000, 978325200000),  # not ISO: the legacy parser reads 2001
    ("Jan 5", 978652800000, 978670800000),  # a missing year is 2001, as in V8
]


@pytest.mark.parametrize(("text", "expected"), ZONED)
def test_zoned_and_invalid_vectors(local_tz: str, text: str, expected: int | None) -> None:
    assert parse_js_date(text) == expected


@pytest.mark.parametrize(("text", "in_utc", "in_new_york"), LOCAL)
def test_local_time_vectors(
    local_tz: str, text: str, in_utc: int | None, in_new_york: int | None
) -> None:
    expected = in_utc if local_tz == UTC else in_new_york
    assert parse_js_date(text) == expected


def test_result_is_a_float_of_whole_milliseconds() -> None:
    value = parse_js_date("2026-11-20T10:00:00.5Z")
    assert isinstance(value, float)
    assert value == 1795168800500.0


def test_lone_surrogate_and_nul() -> None:
    assert parse_js_date("2026-11-20\ud800") is None
    # Bun hands the parser a C string: it stops at the first NUL.
    assert parse_js_date("2026-11-20\0garbage") == 1795132800000


def test_narrow_no_break_space_counts_as_a_space(local_tz: str) -> None:
    assert parse_js_date("11/20/2026, 10:00\u202fPM") == parse_js_date("11/20/2026, 10:00 PM")
    assert parse_js_date("11/20/2026, 10:00 PM") is not None


# --- properties -----------------------------------------------------------------------------

_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()


def _utc_ms(day: dt.date, hour: int, minute: int, second: int, milli: int) -> int:
    days = day.toordinal() - _EPOCH_ORDINAL
    return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli


@given(
    st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31)),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
    st.integers(0, 999),
)
def test_iso_utc_matches_calendar_arithmetic(
    day: dt.date, hour: int, minute: int, second: int, milli: int
) -> None:
    text = f"{day.isoformat()}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z"
    assert parse_js_date(text) == _utc_ms(day, hour, minute, second, milli)


@given(st.integers(1, 9999), st.integers(1, 12), st.integers(1, 31))
def test_date_only_is_utc_and_rolls_over_like_js(year: int, month: int, day: int) -> None:
    first = dt.date(year, month, 1)
    expected = _utc_ms(first, 0, 0, 0, 0) + (day - 1) * 86_400_000
    assert parse_js_date(f"{year:04}-{month:02}-{day:02}") == expected


@settings(max_examples=300)
@given(st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2100, 12, 31)))
def test_local_date_time_follows_the_zone_rules(wall: dt.datetime) -> None:
    wall = wall.replace(microsecond=wall.microsecond // 1000 * 1000, fold=0)
    # zoneinfo with fold=0 picks the offset before a transition, as JS engines do.
    expected = round(wall.replace(tzinfo=ZoneInfo(NEW_YORK)).timestamp() * 1000)
    text = wall.strftime("%Y-%m-%dT%H:%M:%S.") + f"{wall.microsecond // 1000:03}"
    with _zone(NEW_YORK):
        assert parse_js_date(text) == expected


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_never_raises_and_stays_in_range(text: str) -> None:
    value = parse_js_date(text)
    assert value is None or (value == int(value) and abs(value) <= 8.64e15)


@given(st.text(alphabet="0123456789-+:.TZ /,()aAmMpPjJnNuUtTeEsS \t", max_size=30))
def test_date_like_noise_never_raises(text: str) -> None:
    value = parse_js_date(text)
    assert value is None or abs(value) <= 8.64e15


# --- optional cross-check against a real JavaScript engine ----------------------------------

_NODE = shutil.which("node")
_CROSS_CHECK = (
    [text for text, _ in ZONED]
    + [text for text, *_ in LOCAL]
    + [
        "12",
        "50",
        "13",
        "1/2/3",
        "-1",
        "Dec 1 00",
        "5 Jan 2026 10:00 pm",
        "2026-1-5",
        "2026-01-01 10:00 GMT+2",
        "10:00 2026/01/02",
        "2026/01/02 10:00:00 +0100",
        "(note) 2026/01/02 (again)",
        "2026-01-02T10:00:00.000+01:00",
        "Sat, 01 Jan 2000 00:00:00 GMT+0530",
        "1 Jan 2026 12:00 AM",
        "2026-06-15T12:00:00.123456789Z",
    ]
)


@pytest.mark.skipif(_NODE is None, reason="node is not installed")
def test_agrees_with_node(local_tz: str) -> None:
    script = (
        "const a=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "console.log(JSON.stringify(a.map(s=>{const t=new Date(s).getTime();"
        "return Number.isNaN(t)?null:t})))"
    )
    assert _NODE is not None
    result = subprocess.run(
        [_NODE, "-e", script],
        input=json.dumps(_CROSS_CHECK),
        capture_output=True,
        text=True,
        env={**os.environ, "TZ": local_tz},
        check=True,
        timeout=60,
    )
    expected = json.loads(result.stdout)
    got = [parse_js_date(text) for text in _CROSS_CHECK]
    assert got == expected
