"""JavaScript ``new Date(string).getTime()``, computed the way Claude Code's runtime does it.

Bun runs JavaScriptCore with V8's date parser switched on (``useV8DateParser``), and Node is V8,
so both share one algorithm, ported here: an ES5 ISO string is tried first
(``[±YY]YYYY[-MM[-DD]][THH:mm[:ss[.s…]][Z|±HH:mm|±HHmm]]``), and whatever it cannot finish goes
to V8's legacy parser (``2026/01/02``, ``2026-01-01 10:00``, ``Tue, 01 Dec 2026 10:00:00 GMT``,
``Jan 5 2026``…). Date-only ISO forms are UTC; every other form without a zone is local time
(the ``TZ`` of this process). Like Bun, the parser reads the UTF-8 bytes of the string.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass

__all__ = ["parse_js_date"]

_KNONE = 0x7FFFFFFF  # V8's kNone: "no value"
_MAX_SIGNIFICANT_DIGITS = 9
_INT32_MAX = 0x7FFFFFFF

_MS_PER_DAY = 86_400_000.0
_MAX_TIME_MS = 8.64e15
_MAX_TIME_BEFORE_UTC_MS = _MAX_TIME_MS + 30 * _MS_PER_DAY

# Token tags (keywords use their keyword type, which is >= 0).
_TAG_INVALID = -6
_TAG_UNKNOWN = -5
_TAG_WHITESPACE = -4
_TAG_NUMBER = -3
_TAG_SYMBOL = -2
_TAG_END = -1

_KW_INVALID = 0
_KW_MONTH = 1
_KW_ZONE = 2
_KW_TIME_SEPARATOR = 3
_KW_AM_PM = 4

_KEYWORDS: tuple[tuple[bytes, int, int], ...] = (
    (b"jan", _KW_MONTH, 1),
    (b"feb", _KW_MONTH, 2),
    (b"mar", _KW_MONTH, 3),
    (b"apr", _KW_MONTH, 4),
    (b"may", _KW_MONTH, 5),
    (b"jun", _KW_MONTH, 6),
    (b"jul", _KW_MONTH, 7),
    (b"aug", _KW_MONTH, 8),
    (b"sep", _KW_MONTH, 9),
    (b"oct", _KW_MONTH, 10),
    (b"nov", _KW_MONTH, 11),
    (b"dec", _KW_MONTH, 12),
    (b"am\0", _KW_AM_PM, 0),
    (b"pm\0", _KW_AM_PM, 12),
    (b"ut\0", _KW_ZONE, 0),
    (b"utc", _KW_ZONE, 0),
    (b"z\0\0", _KW_ZONE, 0),
    (b"gmt", _KW_ZONE, 0),
    (b"cdt", _KW_ZONE, -5),
    (b"cst", _KW_ZONE, -6),
    (b"edt", _KW_ZONE, -4),
    (b"est", _KW_ZONE, -5),
    (b"mdt", _KW_ZONE, -6),
    (b"mst", _KW_ZONE, -7),
    (b"pdt", _KW_ZONE, -7),
    (b"pst", _KW_ZONE, -8),
    (b"t\0\0", _KW_TIME_SEPARATOR, 0),
)

_WHITESPACE = frozenset(b" \t\n\r\f")


def parse_js_date(s: str) -> float | None:
    """Milliseconds since the epoch, as ``new Date(s).getTime()``; None where JS gives NaN."""
    text = s.replace("\u202f", " ")  # JSC turns narrow no-break spaces into spaces first
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogate: JSC's UTF-8 conversion fails -> NaN
        return None
    data = data.split(b"\0", 1)[0]  # the C parser stops at the first NUL
    fields = _Parser(data).parse()
    if fields is None:
        return None
    return _to_time_value(fields)


# --- time arithmetic (V8's: docs/claude-code-rules.md#snapshot-status) ----------------------


def _to_integer(x: float) -> float:
    if math.isnan(x) or x == 0.0:
        return 0.0
    if math.isinf(x):
        return x
    return float(math.floor(x) if x > 0 else math.ceil(x)) + 0.0


def _c_div(a: int, b: int) -> int:
    """C integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _days_from_year(y: int) -> int:
    delta = 399999  # keeps the operands positive for every year JS can represent
    yd = y + delta
    return 365 * yd + _c_div(yd, 4) - _c_div(yd, 100) + _c_div(yd, 400)


_BASE_DAY = _days_from_year(1970)
_DAYS_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_DAYS_BEFORE_MONTH_LEAP = (0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335)


def _make_day(year: float, month: float, date: float) -> float:
    if not (-1e6 <= year <= 1e6 and -1e7 <= month <= 1e7 and math.isfinite(date)):
        return math.nan
    y = int(year) + _c_div(int(month), 12)
    m = int(month) - 12 * _c_div(int(month), 12)
    if m < 0:
        m += 12
        y -= 1
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    table = _DAYS_BEFORE_MONTH_LEAP if leap else _DAYS_BEFORE_MONTH
    day_from_year = _days_from_year(y) - _BASE_DAY + table[m]
    return float(day_from_year - 1) + _to_integer(date)


def _make_time(hour: float, minute: float, sec: float, ms: float) -> float:
    parts = (hour, minute, sec, ms)
    if not all(math.isfinite(p) for p in parts):
        return math.nan
    h, mi, s, milli = (_to_integer(p) for p in parts)
    return h * 3_600_000.0 + mi * 60_000.0 + s * 1000.0 + milli


def _time_clip(t: float) -> float | None:
    if -_MAX_TIME_MS <= t <= _MAX_TIME_MS:
        return _to_integer(t)
    return None


def _to_time_value(fields: _Fields) -> float | None:
    day = _make_day(fields.year, fields.month, fields.day)
    time_ms = _make_time(fields.hour, fields.minute, fields.second, fields.millisecond)
    if not (math.isfinite(day) and math.isfinite(time_ms)):
        return None
    date = time_ms + day * _MS_PER_DAY
    if fields.utc_offset is not None:
        return _time_clip(date - fields.utc_offset * 1000.0)
    if not -_MAX_TIME_BEFORE_UTC_MS <= date <= _MAX_TIME_BEFORE_UTC_MS:
        return None
    offset = _local_offset_ms(date)
    if offset is None:
        return None
    return _time_clip(date - offset)


# --- local time -----------------------------------------------------------------------------

_EPOCH = _dt.datetime(1970, 1, 1)
_DAYS_PER_400_YEARS = 146_097
_MIN_SAFE_DAY = _dt.date(2, 1, 1).toordinal() - _EPOCH.toordinal()
_MAX_SAFE_DAY = _dt.date(9998, 12, 31).toordinal() - _EPOCH.toordinal()


def _local_offset_ms(local_ms: float) -> float | None:
    """UTC offset of the local wall time ``local_ms``; for a skipped or repeated wall time the
    offset before the transition wins (ICU's FORMER/FORMER, as JS engines use).

    Python's ``datetime`` covers years 1..9999; wall times outside are moved by whole 400-year
    Gregorian cycles (same calendar) to compute the offset.
    """
    seconds = math.floor(local_ms / 1000.0)
    days, second_of_day = divmod(seconds, 86_400)
    shift = 0
    if days < _MIN_SAFE_DAY:
        shift = math.ceil((_MIN_SAFE_DAY - days) / _DAYS_PER_400_YEARS) * _DAYS_PER_400_YEARS
    elif days > _MAX_SAFE_DAY:
        shift = -math.ceil((days - _MAX_SAFE_DAY) / _DAYS_PER_400_YEARS) * _DAYS_PER_400_YEARS
    try:
        wall = _EPOCH + _dt.timedelta(days=days + shift, seconds=second_of_day)
        utc_seconds = wall.timestamp()
    except (OverflowError, OSError, ValueError):
        return None
    return ((days + shift) * 86_400 + second_of_day - utc_seconds) * 1000.0


# --- the parser (V8's: docs/claude-code-rules.md#snapshot-status) --------------------------


@dataclass(frozen=True, slots=True)
class _Token:
    tag: int
    length: int
    value: int

    @property
    def is_number(self) -> bool:
        return self.tag == _TAG_NUMBER

    @property
    def is_keyword(self) -> bool:
        return self.tag >= 0

    @property
    def is_end(self) -> bool:
        return self.tag == _TAG_END

    @property
    def is_sign(self) -> bool:
        return self.tag == _TAG_SYMBOL and self.value in (ord("-"), ord("+"))

    @property
    def is_keyword_z(self) -> bool:
        return self.tag == _KW_ZONE and self.length == 1 and self.value == 0

    @property
    def sign(self) -> int:
        return 44 - self.value  # '+' -> 1, '-' -> -1

    def is_symbol(self, symbol: str) -> bool:
        return self.tag == _TAG_SYMBOL and self.value == ord(symbol)

    def is_fixed_number(self, length: int) -> bool:
        return self.tag == _TAG_NUMBER and self.length == length


_END = _Token(_TAG_END, 0, -1)
_INVALID = _Token(_TAG_INVALID, 0, -1)


class _Reader:
    """V8's InputReader over bytes; ``ch`` is 0 at the end."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.position = 0
        self.ch = 0
        self.next()

    def next(self) -> None:
        self.ch = self._data[self.position] if self.position < len(self._data) else 0
        self.position += 1

    def is_digit(self) -> bool:
        return 0x30 <= self.ch <= 0x39

    def is_word_char(self) -> bool:
        return self.ch >= 0x41 and self.ch not in _WHITESPACE

    def skip(self, symbol: str) -> bool:
        if self.ch == ord(symbol):
            self.next()
            return True
        return False

    def read_unsigned_numeral(self) -> int:
        n = 0
        count = 0
        while self.ch == 0x30:
            self.next()
        while self.is_digit():
            if count < _MAX_SIGNIFICANT_DIGITS:
                n = n * 10 + self.ch - 0x30
            count += 1
            self.next()
        return n

    def read_word(self) -> tuple[bytes, int]:
        """Lower-cased 3-byte prefix (zero padded) and the word's length in bytes."""
        prefix = bytearray(3)
        length = 0
        while self.is_word_char():
            if length < 3:
                prefix[length] = (self.ch | 0x20) & 0xFF
            length += 1
            self.next()
        return bytes(prefix), length

    def skip_whitespace(self) -> bool:
        if self.ch in _WHITESPACE:
            self.next()
            return True
        return False

    def skip_parentheses(self) -> bool:
        if self.ch != ord("("):
            return False
        balance = 0
        while True:
            if self.ch == ord(")"):
                balance -= 1
            elif self.ch == ord("("):
                balance += 1
            self.next()
            if balance <= 0 or self.ch == 0:
                return True


def _lookup_keyword(prefix: bytes, length: int) -> _Token:
    for word, kind, value in _KEYWORDS:
        if prefix == word and (length <= 3 or kind == _KW_MONTH):
            return _Token(kind, length, value)
    return _Token(_KW_INVALID, length, 0)


class _Tokenizer:
    def __init__(self, reader: _Reader) -> None:
        self._in = reader
        self._next = self._scan()

    def next(self) -> _Token:
        result = self._next
        self._next = self._scan()
        return result

    def peek(self) -> _Token:
        return self._next

    def skip_symbol(self, symbol: str) -> bool:
        if self._next.is_symbol(symbol):
            self._next = self._scan()
            return True
        return False

    def _scan(self) -> _Token:
        reader = self._in
        start = reader.position
        if reader.ch == 0:
            return _END
        if reader.is_digit():
            n = reader.read_unsigned_numeral()
            return _Token(_TAG_NUMBER, reader.position - start, n)
        for symbol in ":-+.)":
            if reader.skip(symbol):
                return _Token(_TAG_SYMBOL, 1, ord(symbol))
        if reader.is_word_char():
            return _lookup_keyword(*reader.read_word())
        if reader.skip_whitespace():
            return _Token(_TAG_WHITESPACE, reader.position - start, -1)
        if not reader.skip_parentheses():
            reader.next()
        return _Token(_TAG_UNKNOWN, 1, -1)


def _read_milliseconds(token: _Token) -> int:
    """The first three significant digits of a fraction, as milliseconds."""
    number, length = token.value, token.length
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    length = min(length, _MAX_SIGNIFICANT_DIGITS)
    return number // 10 ** (length - 3) if length > 3 else number


def _between(x: int, lo: int, hi: int) -> bool:
    return lo <= x <= hi


def _is_minute(x: int) -> bool:
    return _between(x, 0, 59)


def _is_hour(x: int) -> bool:
    return _between(x, 0, 23)


def _is_month(x: int) -> bool:
    return _between(x, 1, 12)


def _is_day(x: int) -> bool:
    return _between(x, 1, 31)


@dataclass
class _Fields:
    year: int
    month: int  # 0-based
    day: int
    hour: int
    minute: int
    second: int
    millisecond: int
    utc_offset: int | None  # seconds east of UTC; None = local time


class _DayComposer:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.named_month = _KNONE
        self.iso = False

    def add(self, n: int) -> bool:
        if len(self.comp) < 3:
            self.comp.append(n)
            return True
        return False

    def write(self) -> tuple[int, int, int] | None:
        """(year, 0-based month, day), or None when invalid."""
        if not self.comp:
            return None
        # Missing components become 1; V8 then always reads all three slots, so a missing
        # year is 1 (that is 2001), as in ``new Date("Jan 5")``.
        comp = self.comp + [1] * (3 - len(self.comp))
        year, month, day = self._order(comp)
        if not self.iso:
            if _between(year, 0, 49):
                year += 2000
            elif _between(year, 50, 99):
                year += 1900
        if not (_is_month(month) and _is_day(day)):
            return None
        return year, month - 1, day

    def _order(self, comp: list[int]) -> tuple[int, int, int]:
        if self.named_month == _KNONE:
            if self.iso or not _is_day(comp[0]):
                return comp[0], comp[1], comp[2]  # YMD
            return comp[2], comp[0], comp[1]  # MDY
        if not _is_day(comp[0]):
            return comp[0], self.named_month, comp[1]  # YMD, MYD or YDM
        return comp[1], self.named_month, comp[0]  # DMY, MDY or DYM


class _TimeComposer:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.hour_offset = _KNONE

    @property
    def empty(self) -> bool:
        return not self.comp

    def is_expecting(self, n: int) -> bool:
        index = len(self.comp)
        return (
            (index == 1 and _is_minute(n))
            or (index == 2 and _is_minute(n))
            or (index == 3 and _between(n, 0, 999))
        )

    def add(self, n: int) -> bool:
        if len(self.comp) < 4:
            self.comp.append(n)
            return True
        return False

    def add_final(self, n: int) -> None:
        if self.add(n):
            self.comp += [0] * (4 - len(self.comp))

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, milli = self.comp + [0] * (4 - len(self.comp))
        if self.hour_offset != _KNONE:
            if not _between(hour, 0, 12):
                return None
            hour = hour % 12 + self.hour_offset
        in_range = (
            _is_hour(hour) and _is_minute(minute) and _is_minute(second) and _between(milli, 0, 999)
        )
        if not in_range and (hour, minute, second, milli) != (24, 0, 0, 0):
            return None
        return hour, minute, second, milli


class _ZoneComposer:
    def __init__(self) -> None:
        self.sign = _KNONE
        self.hour = _KNONE
        self.minute = _KNONE

    def set_hours(self, offset_in_hours: int) -> None:
        self.sign = -1 if offset_in_hours < 0 else 1
        self.hour = abs(offset_in_hours)
        self.minute = 0

    def is_expecting(self, n: int) -> bool:
        return self.hour != _KNONE and self.minute == _KNONE and _is_minute(n)

    @property
    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    @property
    def empty(self) -> bool:
        return self.hour == _KNONE

    def write(self) -> tuple[bool, int | None]:
        """(ok, offset in seconds or None for local time)."""
        if self.sign == _KNONE:
            return True, None
        hour = 0 if self.hour == _KNONE else self.hour
        minute = 0 if self.minute == _KNONE else self.minute
        total = (hour * 3600 + minute * 60) & 0xFFFFFFFF  # V8 does this in unsigned 32-bit
        if total > _INT32_MAX:
            return False, None
        return True, -total if self.sign < 0 else total


class _Parser:
    """V8's ``DateParser::Parse``: the ES5 ISO pass, then the legacy pass on what is left."""

    def __init__(self, data: bytes) -> None:
        self.scanner = _Tokenizer(_Reader(data))
        self.day = _DayComposer()
        self.time = _TimeComposer()
        self.tz = _ZoneComposer()
        self.has_read_number = False

    def parse(self) -> _Fields | None:
        token = self._parse_es5()
        if token.tag == _TAG_INVALID:
            return None
        self.has_read_number = bool(self.day.comp)
        while not token.is_end:
            if not self._legacy_token(token):
                return None
            token = self.scanner.next()
        return self._compose()

    def _compose(self) -> _Fields | None:
        day = self.day.write()
        if day is None:
            return None
        time = self.time.write()
        if time is None:
            return None
        ok, offset = self.tz.write()
        if not ok:
            return None
        return _Fields(*day, *time, utc_offset=offset)

    # ES5 ISO ---------------------------------------------------------------------------------

    def _parse_es5(self) -> _Token:
        """Returns END when the whole string was ISO, INVALID when it cannot be a date, else
        the next token for the legacy pass."""
        scanner = self.scanner
        stop = self._es5_year()
        if stop is not None:
            return stop
        if scanner.skip_symbol("-"):
            peek = scanner.peek()
            if not (peek.is_fixed_number(2) and _is_month(peek.value)):
                return scanner.next()
            self.day.add(scanner.next().value)
            if scanner.skip_symbol("-"):
                peek = scanner.peek()
                if not (peek.is_fixed_number(2) and _is_day(peek.value)):
                    return scanner.next()
                self.day.add(scanner.next().value)
        if scanner.peek().tag != _KW_TIME_SEPARATOR:
            if not scanner.peek().is_end:
                return scanner.next()
        else:
            scanner.next()
            if not self._es5_time():
                return _INVALID
        if self.tz.empty and self.time.empty:
            self.tz.set_hours(0)  # date-only forms are UTC
        self.day.iso = True
        return _END

    def _es5_year(self) -> _Token | None:
        scanner = self.scanner
        if scanner.peek().is_sign:
            sign_token = scanner.next()
            if not scanner.peek().is_fixed_number(6):
                return sign_token
            year = scanner.next().value
            if sign_token.sign < 0 and year == 0:
                return sign_token
            self.day.add(sign_token.sign * year)
            return None
        if scanner.peek().is_fixed_number(4):
            self.day.add(scanner.next().value)
            return None
        return scanner.next()

    def _es5_time(self) -> bool:
        """``HH:mm[:ss[.s…]]`` and an optional zone, up to the end of the input."""
        scanner = self.scanner
        peek = scanner.peek()
        if not (peek.is_fixed_number(2) and _between(peek.value, 0, 24)):
            return False
        hour_is_24 = peek.value == 24
        self.time.add(scanner.next().value)
        if not scanner.skip_symbol(":"):
            return False
        if not self._es5_time_field(hour_is_24):
            return False
        if scanner.skip_symbol(":"):
            if not self._es5_time_field(hour_is_24):
                return False
            if scanner.skip_symbol("."):
                peek = scanner.peek()
                if not peek.is_number or (hour_is_24 and peek.value > 0):
                    return False
                self.time.add(_read_milliseconds(scanner.next()))
        if not self._es5_zone():
            return False
        return scanner.peek().is_end

    def _es5_time_field(self, hour_is_24: bool) -> bool:
        peek = self.scanner.peek()
        if not peek.is_fixed_number(2) or not _is_minute(peek.value):
            return False
        if hour_is_24 and peek.value > 0:
            return False
        self.time.add(self.scanner.next().value)
        return True

    def _es5_zone(self) -> bool:
        scanner = self.scanner
        if scanner.peek().is_keyword_z:
            scanner.next()
            self.tz.set_hours(0)
            return True
        if not scanner.peek().is_sign:
            return True
        self.tz.sign = scanner.next().sign
        if scanner.peek().is_fixed_number(4):
            hourmin = scanner.next().value
            hour, minute = divmod(hourmin, 100)
            if not (_is_hour(hour) and _is_minute(minute)):
                return False
            self.tz.hour, self.tz.minute = hour, minute
            return True
        if not (scanner.peek().is_fixed_number(2) and _is_hour(scanner.peek().value)):
            return False
        self.tz.hour = scanner.next().value
        if not scanner.skip_symbol(":"):
            return False
        if not (scanner.peek().is_fixed_number(2) and _is_minute(scanner.peek().value)):
            return False
        self.tz.minute = scanner.next().value
        return True

    # legacy ----------------------------------------------------------------------------------

    def _legacy_token(self, token: _Token) -> bool:
        if token.is_number:
            return self._legacy_number(token.value)
        if token.is_keyword:
            return self._legacy_word(token)
        if token.is_sign and (self.tz.is_utc or not self.time.empty):
            return self._legacy_offset(token.sign)
        # An extra sign or ')' after a number is illegal; anything else is ignored.
        return not ((token.is_sign or token.is_symbol(")")) and self.has_read_number)

    def _legacy_number(self, n: int) -> bool:
        scanner, time = self.scanner, self.time
        self.has_read_number = True
        if scanner.skip_symbol(":"):
            if scanner.skip_symbol(":"):  # n + "::"
                if not time.empty:
                    return False
                time.add(n)
                time.add(0)
                return True
            if not time.add(n):
                return False
            if scanner.peek().is_symbol("."):
                scanner.next()
            return True
        if scanner.skip_symbol(".") and time.is_expecting(n):
            time.add(n)
            if not scanner.peek().is_number:
                return False
            time.add_final(_read_milliseconds(scanner.next()))
            return True
        if self.tz.is_expecting(n):
            self.tz.minute = n
            return True
        if time.is_expecting(n):
            time.add_final(n)
            peek = scanner.peek()
            # the time must be followed by the end, white space, "Z", "+" or "-"
            return peek.is_end or peek.tag == _TAG_WHITESPACE or peek.is_keyword_z or peek.is_sign
        if not self.day.add(n):
            return False
        scanner.skip_symbol("-")
        return True

    def _legacy_word(self, token: _Token) -> bool:
        if token.tag == _KW_AM_PM and not self.time.empty:
            self.time.hour_offset = token.value
        elif token.tag == _KW_MONTH:
            self.day.named_month = token.value
            self.scanner.skip_symbol("-")
        elif token.tag == _KW_ZONE and self.has_read_number:
            self.tz.set_hours(token.value)
        elif self.has_read_number or self.scanner.peek().is_number:
            # garbage words are only allowed before the first number, and apart from it
            return False
        return True

    def _legacy_offset(self, sign: int) -> bool:
        scanner, tz = self.scanner, self.tz
        tz.sign = sign
        n = length = 0
        if scanner.peek().is_number:
            number = scanner.next()
            n, length = number.value, number.length
        self.has_read_number = True
        if scanner.peek().is_symbol(":"):
            tz.hour, tz.minute = n, _KNONE
        elif length in (1, 2):
            tz.hour, tz.minute = n, 0
        elif length in (3, 4):
            tz.hour, tz.minute = divmod(n, 100)
        else:
            return False
        return True
