"""The ``format`` values a call checks, each by the standard that defines it.

Per both specifications a format this module does not know is not an error: it is only a hint.
The table of which formats a call asserts, and where other validators read a format otherwise,
is in docs/formats.md ("Formats"); tests/test_schema_fidelity.py measures every difference.

- ``date``, ``time``, ``date-time``: RFC 3339 §5.6 (``T`` or ``t`` between date and time, never a
  space; a leap second, ``23:59:60`` in UTC, is valid).
- ``email``: an addr-spec whose local part is a dot-atom and whose domain is host names (the
  definition ajv-formats, Gemini CLI's validator, uses).
- ``hostname``: RFC 1123; ``ipv4``: dotted quad, no leading zeros; ``ipv6``: RFC 4291 text, no
  zone; ``uuid``: RFC 4122's 8-4-4-4-12 hex; ``uri``: an RFC 3986 absolute URI; ``byte``: RFC 4648
  base64.
- ``int32``, ``int64`` (numbers): an integer in the signed range.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # (a warm call checks formats without importing typing)
    import typing as t

# Patterns are compiled (and the re module caches them) only when a value of their format is
# checked: every call imports this module, few use every format. Every pattern is ASCII: Python's
# \d would match any Unicode digit.
_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_BYTE = r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
_EMAIL = (
    r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
)
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_HOSTNAME = r"(?=.{1,253}\.?\Z)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?"
# RFC 3986 §3: scheme ":" hier-part [ "?" query ] [ "#" fragment ], by its character classes.
_PCHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})"
_URI = (
    r"[A-Za-z][A-Za-z0-9+\-.]*:"
    r"(?://(?:(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*@)?"
    r"(?:\[[0-9A-Fa-f:.vV]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?"
    rf"(?:/{_PCHAR}*)*"
    rf"|/?(?:{_PCHAR}+(?:/{_PCHAR}*)*)?)"
    rf"(?:\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?"
)

_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _matches(pattern: str, flags: int = 0) -> t.Callable[[str], bool]:
    return lambda value: re.fullmatch(pattern, value, flags | re.ASCII) is not None


def _full_date(year: int, month: int, day: int) -> bool:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= month <= 12 and 1 <= day <= (29 if month == 2 and leap else _DAYS[month - 1])


def _full_time(match: re.Match[str]) -> bool:
    hour, minute, second = int(match["h"]), int(match["m"]), int(match["s"])
    offset_hours, offset_minutes = int(match["oh"] or 0), int(match["om"] or 0)
    if offset_hours > 23 or offset_minutes > 59 or hour > 23 or minute > 59 or second > 60:
        return False
    if second < 60:
        return True
    # A leap second is the last second of a UTC day: 23:59:60Z, or its local time.
    sign = -1 if match["sign"] == "-" else 1
    utc = (hour * 60 + minute - sign * (offset_hours * 60 + offset_minutes)) % (24 * 60)
    return utc == 23 * 60 + 59


_TIME_NAMED = r"(?P<h>\d{2}):(?P<m>\d{2}):(?P<s>\d{2})(?:\.\d+)?(?:[Zz]|(?P<sign>[+-])(?P<oh>\d{2}):(?P<om>\d{2}))"


def _date(value: str) -> bool:
    match = re.fullmatch(_DATE, value, re.ASCII)
    return match is not None and _full_date(*map(int, match.groups()))


def _time(value: str) -> bool:
    match = re.fullmatch(_TIME_NAMED, value, re.ASCII)
    return match is not None and _full_time(match)


def _date_time(value: str) -> bool:
    date, separator, time = value[:10], value[10:11], value[11:]
    return separator in ("T", "t") and _date(date) and _time(time)


def _ip(version: int) -> t.Callable[[str], bool]:
    def check(value: str) -> bool:
        import ipaddress  # (a call checks a format on its way: only an address's pays for it)

        if "%" in value:  # a zone (fe80::1%eth0) names an interface of one host, not an address
            return False
        try:
            return ipaddress.ip_address(value).version == version
        except ValueError:
            return False

    return check


#: format -> (check, what a valid value is, for the error message)
CHECKS: dict[str, tuple[t.Callable[[str], bool], str]] = {
    "date": (_date, "a date (RFC 3339 full-date, YYYY-MM-DD)"),
    "time": (_time, "a time (RFC 3339 full-time, e.g. 12:00:00Z)"),
    "date-time": (_date_time, "a date-time (RFC 3339, e.g. 2025-01-31T12:00:00Z)"),
    "byte": (_matches(_BYTE), "base64-encoded bytes"),
    "email": (_matches(_EMAIL, re.IGNORECASE), "an email address"),
    "uuid": (_matches(_UUID, re.IGNORECASE), "a UUID (8-4-4-4-12 hexadecimal digits)"),
    "uri": (_matches(_URI), "an absolute URI (RFC 3986)"),
    "hostname": (_matches(_HOSTNAME, re.IGNORECASE), "a host name"),
    "ipv4": (_ip(4), "an IPv4 address"),
    "ipv6": (_ip(6), "an IPv6 address"),
}


#: The formats whose check may take more than time linear in the value's length, on a value made
#: to (their patterns nest a repetition, which Python's ``re`` searches by backtracking).
SUPERLINEAR = frozenset({"email", "uri", "hostname"})


def check_string_format(fmt: str, value: str) -> str | None:
    """What ``value`` should have been, when it is not a valid ``fmt``; None when it is (or
    when ``fmt`` is not one this module checks)."""
    entry = CHECKS.get(fmt)
    if entry is None or entry[0](value):
        return None
    return entry[1]
