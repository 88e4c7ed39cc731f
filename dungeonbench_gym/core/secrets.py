"""Keep secrets (API keys, tokens) out of every file the harness writes.

A model can echo its API key back, an error message can quote a header, a config dump can hold a
token. Rather than trust every writer to be careful, writers pass what they write through
`scrub()`, which replaces every known secret with "[REDACTED]".

Known secrets are
- the ones registered with `register_secret()` (each LLM client registers the key it was built with);
- the values of environment variables whose name looks secret (contains KEY, TOKEN, SECRET or
  PASSWORD, in any case) and whose value looks like a credential (one word, not a path), read
  afresh on every call so keys exported later are covered too.
Strings shorter than 8 characters are never treated as secrets: redacting "1" or "true" everywhere
would mangle ordinary text and hide nothing worth hiding.
"""

from __future__ import annotations

import os
import re
import threading

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8
_SECRET_NAME_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")

_registered: set[str] = set()
_lock = threading.Lock()
# The compiled pattern and the secret set it was built from; rebuilt only when the set changes.
_cached_secrets: frozenset[str] = frozenset()
_cached_pattern: re.Pattern[str] | None = None


def register_secret(secret: str) -> None:
    """Remember `secret` so that `scrub()` removes it; empty or short strings are ignored."""
    if isinstance(secret, str) and len(secret) >= MIN_SECRET_LENGTH:
        with _lock:
            _registered.add(secret)


def _looks_like_credential(value: str) -> bool:
    # A key or token is one long word; a path or a sentence in a variable such as
    # KEYRING_PATH is not, and redacting it would only mangle the files written.
    return (len(value) >= MIN_SECRET_LENGTH and not any(c.isspace() for c in value)
            and not value.startswith(("/", "./", "~")))


def known_secrets() -> frozenset[str]:
    """Registered secrets plus the values of secret-looking environment variables."""
    from_env = {
        value
        for name, value in os.environ.items()
        if any(word in name.upper() for word in _SECRET_NAME_WORDS) and _looks_like_credential(value)
    }
    with _lock:
        return frozenset(_registered | from_env)


def _pattern() -> re.Pattern[str] | None:
    """One regex matching any known secret (None when there is none), rebuilt only when
    the set changed; the pattern returned always belongs to the set just read."""
    global _cached_secrets, _cached_pattern
    secrets = known_secrets()
    with _lock:
        if secrets == _cached_secrets:
            return _cached_pattern
    # Longest first, so a secret that contains another is removed whole, not half.
    ordered = sorted(secrets, key=lambda s: (-len(s), s))
    pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
    with _lock:
        _cached_secrets, _cached_pattern = secrets, pattern
    return pattern


def _scrub_with(value, pattern: re.Pattern[str] | None):
    if isinstance(value, str):
        return pattern.sub(REDACTED, value) if pattern is not None else value
    if isinstance(value, dict):
        # Keys are scrubbed too: a secret can end up as a dict key (e.g. a header map).
        return {_scrub_with(k, pattern): _scrub_with(v, pattern) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_with(v, pattern) for v in value]
    if isinstance(value, tuple):
        items = [_scrub_with(v, pattern) for v in value]
        # a NamedTuple (an Option, say) keeps its type; a plain tuple stays a tuple
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


def scrub(value):
    """A copy of `value` with every known secret replaced by "[REDACTED]".

    `value` may be a str or a dict/list/tuple nesting them; other types come back unchanged.
    One precompiled alternation per call keeps the cost linear in the text's length.
    """
    # Containers are copied even when there is nothing to redact, so callers may always mutate the result.
    return _scrub_with(value, _pattern())
