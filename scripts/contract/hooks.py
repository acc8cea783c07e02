"""Schemathesis hooks for the contract fuzzing (loaded by scripts/contract-test.mjs).

Idempotency keys: the description says one key must not be reused for a different request (that
is 422 by design). A JSON schema cannot say "unique per request", so a generated key of valid
form is replaced with a fresh key of the same length; keys of invalid form stay as generated so
that negative tests still see them.
"""
import re
import uuid

import schemathesis

_VALID_KEY = re.compile(r"^[\x21-\x7e]{16,128}$")


def _fresh_key(length: int) -> str:
    out = ""
    while len(out) < length:
        out += uuid.uuid4().hex
    return out[:length]


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    """Runs right before every request, in every phase (examples, coverage, fuzzing, stateful)."""
    body = case.body
    if isinstance(body, dict):
        key = body.get("idempotency_key")
        if isinstance(key, str) and _VALID_KEY.match(key):
            body["idempotency_key"] = _fresh_key(len(key))
