"""Verifying the gateway's webhook deliveries (Standard Webhooks v1).

``webhook-signature`` is one or more space-separated ``v1,<base64 HMAC-SHA256>`` of
``"<webhook-id>.<webhook-timestamp>.<raw body>"``, keyed with the bytes of the secret (the base64
after ``whsec_``). After a secret rotation the gateway sends two signatures for a while, one per
secret; a delivery is genuine when any signature matches any of the receiver's secrets.
"""
import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from .errors import WebhookVerificationError

__all__ = ["verify_webhook"]


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            if isinstance(value, (list, tuple)):
                return " ".join(str(v) for v in value)
            return str(value)
    return None


def _secret_bytes(secret: str) -> bytes:
    encoded = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise WebhookVerificationError("the webhook secret is not base64 (it looks like whsec_ followed by base64)")


def verify_webhook(body: Union[bytes, str], headers: Mapping[str, Any], secret: Union[str, Sequence[str]],
                   tolerance: int = 300, now: Optional[float] = None) -> Dict[str, Any]:
    """Checks a delivery and returns its parsed body.

    ``body`` must be the raw bytes (or text) as received, before any JSON parsing; ``secret`` the
    account's (or team's) ``whsec_…`` secret, or a list of them while a receiver moves from one to
    the next. Raises WebhookVerificationError when the headers are missing, the timestamp is more
    than ``tolerance`` seconds away, or no signature matches.
    """
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
    if not (timestamp.isascii() and timestamp.isdigit()):
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds")
    current = int(time.time() if now is None else now)
    sent = int(timestamp)
    if sent < current - tolerance:
        raise WebhookVerificationError("webhook-timestamp is too old: a replayed or long-delayed delivery")
    if sent > current + tolerance:
        raise WebhookVerificationError("webhook-timestamp is in the future")

    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    content = ("%s.%s." % (msg_id, timestamp)).encode("utf-8") + raw
    offered = []
    for part in signatures.split(" "):
        version, _, value = part.partition(",")
        if version != "v1" or not value:
            continue
        try:
            offered.append(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            continue  # a malformed entry cannot match; the others may
    secrets = [secret] if isinstance(secret, str) else list(secret)
    for s in secrets:
        expected = hmac.new(_secret_bytes(s), content, hashlib.sha256).digest()
        if any(hmac.compare_digest(expected, o) for o in offered):
            try:
                parsed = json.loads(raw.decode("utf-8"))
            except ValueError:
                raise WebhookVerificationError("the signed body is not JSON")
            if not isinstance(parsed, dict):
                raise WebhookVerificationError("the signed body is not a JSON object")
            return parsed
    raise WebhookVerificationError("no webhook-signature matches the secret")
