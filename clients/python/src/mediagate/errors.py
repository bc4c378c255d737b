"""Errors the client raises.

A gateway error carries the body's stable ``code`` (``insufficient_credit``, ``rate_limited``, ...;
branch on it, not on ``detail``), the status, and the request id; its class says what kind of
failure it is.
"""
import email.utils
import json
import time
from typing import Any, Dict, List, Mapping, Optional, Type

__all__ = [
    "MediagateError", "GatewayError", "AuthenticationError", "ForbiddenError", "InsufficientCreditError",
    "NotFoundError", "ConflictError", "ValidationError", "RateLimitError", "ServerError",
    "GatewayConnectionError", "WaitTimeoutError", "PredictionFailedError", "WebhookVerificationError",
]


class MediagateError(Exception):
    """Every error this client raises."""


class GatewayError(MediagateError):
    """The gateway answered with an error status."""

    def __init__(self, status: int, code: str, detail: str, request_id: Optional[str] = None,
                 retry_after: Optional[int] = None, issues: Optional[List[Dict[str, Any]]] = None, body: Any = None) -> None:
        super().__init__("%d %s: %s" % (status, code, detail))
        self.status = status
        self.code = code
        self.detail = detail
        self.request_id = request_id
        self.retry_after = retry_after
        self.issues = issues or []
        self.body = body


class AuthenticationError(GatewayError):
    """401: no credential, or one the gateway refused (unknown, revoked, expired)."""


class ForbiddenError(GatewayError):
    """403: a valid credential that may not do this (scope, role, IP restriction)."""


class InsufficientCreditError(GatewayError):
    """402: the wallet, or the key's spend limit, cannot cover the price."""


class NotFoundError(GatewayError):
    """404: no such resource for this caller (another account's ids are not found too)."""


class ConflictError(GatewayError):
    """409 or 410: the request conflicts with the resource's state."""


class ValidationError(GatewayError):
    """400, 413, 415, 422: the input was refused; ``issues`` lists the fields of a 422."""


class RateLimitError(GatewayError):
    """429: a rate limit; ``retry_after`` says when to try again, in seconds."""


class ServerError(GatewayError):
    """503 and other 5xx: the gateway or a dependency is unavailable."""


class GatewayConnectionError(MediagateError, ConnectionError):
    """The gateway could not be reached, or the connection broke."""


class WaitTimeoutError(MediagateError, TimeoutError):
    """A request or a wait outlived its time limit; ``prediction`` is the last state seen."""

    def __init__(self, message: str, prediction: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.prediction = prediction


class PredictionFailedError(MediagateError):
    """``run`` ended on a prediction that failed or was cancelled."""

    def __init__(self, prediction: Dict[str, Any]) -> None:
        error = prediction.get("error")
        super().__init__("prediction %s %s%s" % (prediction.get("id"), prediction.get("status"), ": %s" % error if error else ""))
        self.prediction = prediction


class WebhookVerificationError(MediagateError):
    """A webhook request whose signature or timestamp does not check out."""


_CODE_FOR_STATUS = {
    400: "invalid_input", 401: "unauthorized", 402: "insufficient_credit", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 408: "request_timeout", 409: "conflict", 410: "gone", 413: "payload_too_large",
    415: "unsupported_media_type", 422: "validation_failed", 429: "rate_limited", 431: "headers_too_large",
    500: "internal", 501: "not_implemented", 502: "bad_gateway", 503: "unavailable", 504: "timeout",
}


def _class_for(status: int) -> Type[GatewayError]:
    if status == 401:
        return AuthenticationError
    if status == 402:
        return InsufficientCreditError
    if status == 403:
        return ForbiddenError
    if status == 404:
        return NotFoundError
    if status in (409, 410):
        return ConflictError
    if status == 429:
        return RateLimitError
    if status in (400, 413, 415, 422):
        return ValidationError
    if status >= 500:
        return ServerError
    return GatewayError


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return int(value)
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0, int(at - (time.time() if now is None else now) + 0.999))


def error_from_response(status: int, headers: Mapping[str, str], text: str) -> GatewayError:
    """The error of an answer: ``{"detail", "code"}``, a 422's list, an OAuth ``{"error"}``, or no JSON."""
    body: Any = text
    try:
        body = json.loads(text)
    except ValueError:
        pass
    code = _CODE_FOR_STATUS.get(status, "internal" if status >= 500 else "invalid_input")
    detail = "the gateway answered %d" % status
    issues: Optional[List[Dict[str, Any]]] = None
    if isinstance(body, dict):
        if isinstance(body.get("code"), str):
            code = body["code"]
        elif isinstance(body.get("error"), str):
            code = body["error"]
        if isinstance(body.get("detail"), str):
            detail = body["detail"]
        elif isinstance(body.get("detail"), list):
            issues = [i for i in body["detail"] if isinstance(i, dict) and isinstance(i.get("loc"), list)]
            parts = [".".join(str(x) for x in (i["loc"][1:] or i["loc"])) + ": " + str(i.get("msg", "invalid")) for i in issues]
            detail = "; ".join(parts) or detail
        elif isinstance(body.get("error_description"), str):
            detail = body["error_description"]
    elif isinstance(text, str) and text.strip():
        detail = text.strip()[:200]
    lower = {k.lower(): v for k, v in headers.items()}
    return _class_for(status)(
        status, code, detail,
        request_id=lower.get("x-request-id"),
        retry_after=parse_retry_after(lower.get("retry-after")),
        issues=issues,
        body=body,
    )
