"""The ``format`` values of OpenAPI 3.0 (and the common JSON Schema ones) for strings.

Per both specifications a format this module does not know is not an error: it is only a hint.
"""

from __future__ import annotations

import re
import typing as t

# Patterns are compiled (and the re module caches them) only when a value of their format is
# checked: every call imports this module, few use every format.
_DATE = r"\d{4}-\d{2}-\d{2}"
_DATE_TIME = r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
_BYTE = r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
_EMAIL = r"[^@\s]+@[^@\s]+\.[^@\s]+"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_URI = r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*"
_HOSTNAME = r"(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"


def _matches(pattern: str) -> t.Callable[[str], bool]:
    return lambda value: re.fullmatch(pattern, value) is not None


def _date(value: str) -> bool:
    import datetime

    if not re.fullmatch(_DATE, value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _date_time(value: str) -> bool:
    import datetime

    if not re.fullmatch(_DATE_TIME, value):
        return False
    try:
        datetime.datetime.fromisoformat(value[:10] + "T" + value[11:].upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _ip(version: int) -> t.Callable[[str], bool]:
    def check(value: str) -> bool:
        import ipaddress

        try:
            return ipaddress.ip_address(value).version == version
        except ValueError:
            return False

    return check


#: format -> (check, what a valid value is, for the error message)
CHECKS: dict[str, tuple[t.Callable[[str], bool], str]] = {
    "date": (_date, "a date (YYYY-MM-DD)"),
    "date-time": (_date_time, "a date-time (RFC 3339, e.g. 2025-01-31T12:00:00Z)"),
    "byte": (_matches(_BYTE), "base64-encoded bytes"),
    "email": (_matches(_EMAIL), "an email address"),
    "uuid": (_matches(_UUID), "a UUID"),
    "uri": (_matches(_URI), "an absolute URI"),
    "hostname": (_matches(_HOSTNAME), "a host name"),
    "ipv4": (_ip(4), "an IPv4 address"),
    "ipv6": (_ip(6), "an IPv6 address"),
}


def check_string_format(fmt: str, value: str) -> str | None:
    """What ``value`` should have been, when it is not a valid ``fmt``; None when it is (or
    when ``fmt`` is not one this module checks)."""
    entry = CHECKS.get(fmt)
    if entry is None or entry[0](value):
        return None
    return entry[1]
