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


# The signed webhook receivers: a request without a valid signature is 401 before anything else
# is looked at, so the fuzzing signs each request the way an internal service would (the spec's
# scheme, with the secret the server was started with), and makes X-Service-Event-Id/-Type agree
# with the body. Cases whose headers are deliberately broken (negative mode) are left as they
# are, so that they still test the refusals.
import hashlib
import hmac
import json
import os
import time

from schemathesis.core.parameters import ParameterLocation

_RECEIVER_SECRETS = {
    "/api/webhooks/backend": "WEBHOOK_SIGNING_SECRET",
    "/api/webhooks/scraper-monitor": "SERVICE_SCRAPER_SIGNING_SECRET",
}


def _sign_receiver_request(case):
    secret = os.environ.get(_RECEIVER_SECRETS.get(case.path, ""), "")
    meta = case.meta
    if not secret or case.query or (meta is not None and meta.is_negative_at(ParameterLocation.HEADER)):
        return
    try:
        # What `requests` sends for `json=body`.
        raw = json.dumps(case.body, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError):
        return
    headers = dict(case.headers or {})
    body = case.body
    if isinstance(body, dict) and (meta is None or not meta.is_negative_at(ParameterLocation.BODY)):
        if isinstance(body.get("id"), str):
            headers["X-Service-Event-Id"] = body["id"]
        if isinstance(body.get("type"), str):
            headers["X-Service-Event-Type"] = body["type"]
    t = int(time.time())
    signed = f"v1:{t}.POST.{case.formatted_path}.{hashlib.sha256(raw).hexdigest()}"
    headers["X-Service-Signature"] = f"t={t},v1={hmac.new(secret.encode(), signed.encode(), hashlib.sha256).hexdigest()}"
    case.headers = headers


@schemathesis.hook("before_call")
def sign_webhook_receivers(ctx, case, **kwargs):
    if case.path in _RECEIVER_SECRETS:
        _sign_receiver_request(case)


# The archive media types of POST /imports (an export's bytes, as downloaded: ZIP, gzip, tar, a Bluesky CAR) and the image types
# of POST /media, and application/javascript (a bare tweets.js as browsers' file pickers type it): schemathesis has no serializer of its own for them, and the description's named
# examples of these bodies are strings (a placeholder for the bytes). They go on the wire as
# bytes, as for application/octet-stream; the server reads the content, and refuses one that is
# no export or no image with the documented 422.
@schemathesis.serializer("application/zip", "application/gzip", "application/x-tar", "application/vnd.ipld.car", "application/javascript", "image/jpeg", "image/png", "image/webp", "image/gif")
def archive_bytes(ctx, value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value).encode("utf-8")


# The least-privilege passes (scripts/contract-test.mjs runs them after the full one): the token
# holds only the scopes in CONTRACT_TOKEN_SCOPES. An operation whose `x-required-scope` it lacks
# must answer 403 forbidden with suggested_action request_scope, whatever the request: never a
# 2xx, never anything that did the work (the bearer check refuses before validation, idempotency
# or a handler; docs/security.md). The full pass leaves the variable unset: the check is idle.
@schemathesis.check
def answers_within_token_scopes(ctx, response, case):
    held = os.environ.get("CONTRACT_TOKEN_SCOPES")
    if held is None:
        return None
    scope = case.operation.definition.raw.get("x-required-scope", "admin")
    if scope == "none" or scope in held.split(","):
        return None
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    if response.status_code != 403 or error.get("code") != "forbidden" or error.get("suggested_action") != "request_scope":
        raise AssertionError(
            f"{case.operation.label} needs the scope '{scope}', which this token (scopes: {held}) lacks: "
            f"expected 403 forbidden with suggested_action request_scope, got {response.status_code} "
            f"{error.get('code')!r} / {error.get('suggested_action')!r}"
        )
    if f"'{scope}'" not in str(error.get("message", "")):
        raise AssertionError(f"{case.operation.label}: the 403 does not name the missing scope '{scope}': {error.get('message')!r}")
    return None


# The token a pass runs with stays valid to its end: the stateful phase follows listTokens' ids
# into revokeToken, and once it revoked the pass's own token every later request was a 401 that
# tested nothing (and the token could make no other). A revocation of that token's id is sent for
# an id no token has (404, a documented answer); every other revocation is sent as generated.
import urllib.request

_own_token_id = None


def _running_token_id():
    global _own_token_id
    if _own_token_id is None:
        request = urllib.request.Request(
            f"{os.environ['CONTRACT_BASE_URL']}/api/agent/v1/tokens/current",
            headers={"Authorization": f"Bearer {os.environ['CONTRACT_TOKEN']}"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            _own_token_id = json.load(response)["id"]
    return _own_token_id


@schemathesis.hook("before_call")
def keep_own_token(ctx, case, **kwargs):
    if case.operation.definition.raw.get("operationId") != "revokeToken" or "CONTRACT_TOKEN" not in os.environ:
        return
    params = case.path_parameters
    if isinstance(params, dict) and params.get("id") == _running_token_id():
        params["id"] = "tok_no_such_token_0"
