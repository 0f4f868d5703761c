"""JavaScript's spelling of the values Claude Code puts in a recall manifest: a file's
``mtimeMs`` as Node computes it, ``Date.prototype.toISOString`` of it, and ``String(value)`` of
a frontmatter value (what a template literal prints). Pure functions, no I/O."""

from __future__ import annotations

import math

MAX_TIME_MS = 8.64e15
"""The largest time value a JS ``Date`` holds (ECMA-262 TimeClip)."""


def node_mtime_ms(mtime_ns: int) -> float:
    """``fs.Stats.mtimeMs``: Node builds it from the seconds and nanoseconds of the stat as
    ``sec * 1e3 + nsec / 1e6`` in double arithmetic
    (docs/claude-code-rules.md#the-header-scan-and-the-recall-manifest), so it can differ from
    ``mtime_ns / 1e6`` in the last bit."""
    sec, nsec = divmod(mtime_ns, 1_000_000_000)
    return float(sec) * 1e3 + float(nsec) / 1e6


def iso_from_ms(ms: float) -> str | None:
    """``new Date(ms).toISOString()``: the time value clipped to whole milliseconds toward
    zero, printed ``YYYY-MM-DDTHH:MM:SS.sssZ`` (six digits and a sign outside years 0-9999).
    None where JS throws (an invalid date)."""
    if math.isnan(ms) or abs(ms) > MAX_TIME_MS:
        return None
    whole = int(ms)  # ToIntegerOrInfinity truncates toward zero
    days, rest = divmod(whole, 86_400_000)
    year, month, day = _civil_from_days(days)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    sign = "" if 0 <= year <= 9999 else ("-" if year < 0 else "+")
    year_text = f"{sign}{abs(year):0{6 if sign else 4}d}"
    return (f"{year_text}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}"
            f".{millis:03d}Z")


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """Year, month, day of ``days`` since 1970-01-01 in the proleptic Gregorian calendar
    (Howard Hinnant's ``civil_from_days``; works for the whole range a JS Date holds)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def js_number(value: float) -> str:
    """``String(number)`` for the numbers YAML gives (``1.0`` → ``1``, ``1e21`` → ``1e+21``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)  # the shortest round-trip digits, as JS chooses them
    mantissa, _, exponent = text.partition("e")
    if not exponent:
        return text
    exp = int(exponent)
    if -7 < exp < 21:  # JS writes these without an exponent
        return format(value, "f").rstrip("0").rstrip(".") if "." in format(value, "f") else text
    return f"{mantissa}e{'+' if exp > 0 else '-'}{abs(exp)}"


def js_string(value: object) -> str:
    """``String(value)`` of a YAML value as a template literal prints it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ",".join("" if item is None else js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def js_truthy(value: object) -> bool:
    """Whether JS takes ``value`` as true (``x || null``)."""
    if value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True
