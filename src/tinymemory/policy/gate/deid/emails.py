"""E-mail addresses, plain and obfuscated, and whether one is an organisation's role address.

Plain: `local@domain`, with or without a top-level domain ("refunds@acme" is an address people type).
Obfuscated: the "@" written as "[at]", "(at)", "{at}", "<at>", " @ " or the word "at", the dots as
"[dot]", "(dot)", " dot " or ".". The word "at" is ordinary English ("meet at noon at the office"), so
an address with it must look like one: a mailbox-like local part (a dot, underscore, plus or digit in
it), a mail provider's domain ("jane at gmail"), the dots spelled out ("acme dot com") or a mail word
before it ("write to jane at acme.com"), and a real top-level domain when one is written ("HQ dot
points" is not one); a bracketed "[at]" is an obfuscation whatever surrounds it.

Organisational rule: an address is an organisation's when its local part is a role word (help, support,
info, sales, billing, refunds, ...), optionally with a suffix ("support-de", "help.desk"); any other
address ("jane.doe@...") is a person's, whatever the sentence says.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tinymemory.policy.gate.deid.text import Span

ROLE_LOCAL = re.compile(
    r"^(?:help|helpdesk|support|info|information|contact|contacts|hello|hi|sales|billing|invoices?|"
    r"accounts|accounting|finance|service|services|customerservice|care|office|admin|team|noreply|no-reply|"
    r"donotreply|press|media|hr|jobs|careers|recruiting|privacy|security|abuse|webmaster|postmaster|orders?|"
    r"returns|refunds|shop|store|booking|bookings|reservations|events|feedback|legal|compliance|it|ops|"
    r"facilities|reception|frontdesk|newsletter|marketing|partners|dpo|gdpr)"
    r"(?:[._-][a-z0-9]+)*$",
    re.I,
)

_PLAIN = re.compile(
    r"(?<![\w.+-])([\w+-][\w.+-]{0,63})@([a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9][a-z0-9-]{0,62}){0,6})", re.I
)

_AT = (
    r"(?P<bracket>[ ]{0,2}[\[({<][ ]?(?:at|@)[ ]?[\])}>][ ]{0,2})"
    r"|(?P<spaced>[ ]{1,2}@[ ]{0,2}|@[ ]{1,2})"
    r"|(?P<word>[ ]{1,2}at[ ]{1,2})"
)
_DOT = r"(?:[ ]{0,2}[\[({<][ ]?(?:dot|\.)[ ]?[\])}>][ ]{0,2}|[ ]{1,2}dot[ ]{1,2}|[ ]{1,2}\.[ ]{1,2}|\.)"
_OBFUSCATED = re.compile(
    rf"(?<![\w.+-])(?=(?P<local>[\w+-]{{1,64}}(?:{_DOT}[\w+-]{{1,64}}){{0,4}})(?:{_AT})"
    rf"(?P<domain>[a-z0-9][a-z0-9-]{{0,62}})(?P<tld>(?:{_DOT}[a-z]{{2,12}}(?![\w-])){{0,3}}))",
    re.I,
)
_DOT_TOKEN = re.compile(_DOT, re.I)
_MAILBOX_LIKE = re.compile(r"[a-z0-9]{2,}[._+][a-z0-9]|[0-9]", re.I)

_PROVIDERS = {
    "gmail", "googlemail", "yahoo", "ymail", "hotmail", "outlook", "live", "msn", "icloud", "aol", "gmx",
    "web", "t-online", "freenet", "posteo", "mailbox", "proton", "protonmail", "pm", "tutanota", "tuta",
    "yandex", "mail", "qq", "163", "126", "orange", "free", "laposte", "wanadoo", "libero", "virgilio",
    "btinternet", "sky", "comcast", "verizon", "zoho", "fastmail", "hey", "seznam", "wp", "onet", "arcor",
}  # fmt: skip
# Top-level domains people write ("noon.Then" and "HQ dot points" are not addresses).
_TLDS = {
    "com", "net", "org", "edu", "gov", "mil", "int", "info", "biz", "name", "pro", "io", "co", "ai", "app",
    "dev", "me", "tv", "eu", "uk", "de", "fr", "es", "it", "nl", "be", "ch", "at", "se", "no", "dk", "fi",
    "pl", "pt", "ie", "cz", "sk", "hu", "ro", "bg", "gr", "tr", "ru", "ua", "us", "ca", "au", "nz", "jp",
    "cn", "in", "br", "mx", "ar", "za", "kr", "sg", "hk", "tw", "il", "ae", "sa", "lu", "li", "is", "ee",
    "lv", "lt", "si", "hr", "rs", "ba", "mk", "al", "md", "by", "kz", "cl", "pe", "ve", "uy", "ec", "cr",
    "pa", "do", "ph", "th", "vn", "my", "id", "pk", "ng", "ke", "eg", "ma", "tn", "online", "site", "shop",
    "store", "tech", "cloud", "xyz", "email", "mail", "page", "blog",
}  # fmt: skip
# A word before " at " that is a person or a place, not a mailbox ("reach us at acme dot com").
# "write to jane at acme.com": after these, "x at domain.tld" is an address even with a plain x.
_MAIL_VERB = re.compile(r"\b(?:to|e-?mail|mail|write|contact|reach|cc|bcc|ping|message|from)[ ]{1,2}$", re.I)
_NOT_LOCAL = {"us", "we", "you", "me", "him", "her", "them", "it", "one", "this", "that", "here", "there"}


def _tld_ok(tld: str) -> bool:
    labels = [label for label in _DOT_TOKEN.split(tld) if label]
    return bool(labels) and labels[-1].casefold() in _TLDS


def _accepted(v: str, m: re.Match[str]) -> bool:
    local, domain, tld = m.group("local"), m.group("domain").casefold(), m.group("tld")
    if not any(c.isalpha() for c in local) or not any(c.isalpha() for c in domain):
        return False
    if m.group("bracket"):
        return True
    provider = domain in _PROVIDERS
    if m.group("spaced"):
        return provider or _tld_ok(tld)
    if local.casefold() in _NOT_LOCAL:
        return False
    obfuscated_dot = bool(tld) and not tld.startswith(".")
    mailbox = _MAILBOX_LIKE.search(_DOT_TOKEN.sub(".", local)) is not None
    if tld:
        return _tld_ok(tld) and (
            obfuscated_dot or mailbox or provider or _MAIL_VERB.search(v, 0, m.start()) is not None
        )
    return provider


# A local part typed one character at a time ("j a n e . d o e @ gmail . com"): the patterns above see
# only its last character, so a one-character local part takes the spaced characters before it too.
_LETTER_SPACED_TAIL = re.compile(r"(?<!\S)(?:[\w.+-][ ]{1,2}){1,64}\Z")


def _spaced_start(v: str, start: int, local: str) -> int:
    """Where the address really starts when its local part was typed letter-spaced."""
    if len(local) != 1:
        return start
    window = max(0, start - 192)
    m = _LETTER_SPACED_TAIL.search(v, window, start)
    return m.start() if m else start


def email_spans(v: str) -> Iterator[Span]:
    """Every e-mail address of the view `v`, each flagged organisational when its local part is a role."""
    for m in _PLAIN.finditer(v):
        start = _spaced_start(v, m.start(), m.group(1))
        local = re.sub(r"[ ]", "", v[start : m.start(1)]) + m.group(1)
        yield Span(start, m.end(), "email", bool(ROLE_LOCAL.match(local)))
    last_end = 0
    for m in _OBFUSCATED.finditer(v):
        if m.start() < last_end or not _accepted(v, m):
            continue
        end = m.end("tld") if m.group("tld") else m.end("domain")
        start = _spaced_start(v, m.start(), m.group("local"))
        local = re.sub(r"[ ]", "", v[start : m.start()]) + _DOT_TOKEN.sub(".", m.group("local"))
        last_end = end
        yield Span(start, end, "email", bool(ROLE_LOCAL.match(local)))
