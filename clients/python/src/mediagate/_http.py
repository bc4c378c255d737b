"""One JSON request to the gateway: credentials, a time limit, and retries with backoff on 429 and
503 that honour Retry-After.

What is retried: a 429 always (the gateway refused it before doing anything); a 502, 503, 504 or a
connection failure only when repeating the request is safe: a read, a DELETE, or a write that
carries an Idempotency-Key (the gateway answers a repeat with the first answer, charged once).
"""
import base64
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .errors import GatewayConnectionError, GatewayError, MediagateError, WaitTimeoutError, error_from_response

USER_AGENT = "mediagate-python/0.1.0"
_RETRY_WHEN_SAFE = (502, 503, 504)
#: renew an OAuth token this long before it expires
_RENEW_BEFORE = 60.0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # the API never redirects; urllib's default handler would resend every header but the content
    # type and length (the API key, the bearer token) to wherever it points. The redirect becomes
    # an answer, which Transport.open refuses.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


def _status(raw: Any) -> int:
    return raw.status if getattr(raw, "status", None) is not None else raw.code


def _refuse_redirect(base_url: str, url: str, raw: Any) -> None:
    """Raises when the gateway's answer is a redirect: the credential goes to no other address."""
    status = _status(raw)
    if not 300 <= status < 400:
        return
    location = raw.headers.get("location")
    raw.close()
    where = urllib.parse.urljoin(url, location) if location else "another address"
    raise MediagateError("the gateway at %s answered a redirect (%d) to %s; redirects are not followed, so the credential "
                         "goes to no other address: if that is the gateway, use it as base_url" % (base_url, status, where))


class Response:
    def __init__(self, status: int, headers: Mapping[str, str], text: str) -> None:
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.text = text

    def json(self) -> Any:
        if not self.text:
            return None
        try:
            return json.loads(self.text)
        except ValueError:
            raise MediagateError("the gateway answered %d with a body that is not JSON" % self.status)


def backoff(attempt: int, base: float, cap: float, rand: Callable[[], float] = random.random) -> float:
    """Seconds before retry ``attempt`` (0-based): half fixed, half random ("equal jitter"), capped."""
    step = min(cap, base * (2 ** attempt))
    return step / 2 + rand() * (step / 2)


class OAuthToken:
    """OAuth 2.0 client credentials: a token from the gateway's token endpoint, renewed before it expires."""

    def __init__(self, client_id: str, client_secret: str, scope: Optional[str] = None) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.scope = scope
        self._token: Optional[Tuple[str, float]] = None
        self._lock = threading.Lock()

    def forget(self) -> bool:
        had = self._token is not None
        self._token = None
        return had

    def get(self, transport: "Transport") -> str:
        with self._lock:  # threads share one token request
            if self._token is not None and transport.clock() < self._token[1]:
                return self._token[0]
            form = {"grant_type": "client_credentials"}
            if self.scope:
                form["scope"] = self.scope
            # RFC 6749 2.3.1: id and secret are form-urlencoded before the Basic encoding
            pair = "%s:%s" % (urllib.parse.quote(self.client_id, safe=""), urllib.parse.quote(self.client_secret, safe=""))
            started = transport.clock()
            res = transport.send("POST", transport.base_url + "/oauth/token", urllib.parse.urlencode(form).encode("ascii"), {
                "authorization": "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii"),
                "content-type": "application/x-www-form-urlencoded",
                "accept": "application/json",
            }, transport.timeout)
            if res.status >= 400:
                raise error_from_response(res.status, res.headers, res.text)
            body = res.json()
            if not isinstance(body, dict) or not isinstance(body.get("access_token"), str) or not isinstance(body.get("expires_in"), (int, float)):
                raise MediagateError("the token endpoint answered without access_token and expires_in")
            lifetime = float(body["expires_in"])
            # a short-lived token is renewed at 90% of its life rather than a minute before
            self._token = (body["access_token"], started + max(lifetime - _RENEW_BEFORE, lifetime * 0.9))
            return body["access_token"]


class Transport:
    def __init__(self, base_url: str, headers: Dict[str, str], oauth: Optional[OAuthToken], timeout: float,
                 max_retries: int, base_delay: float, max_delay: float, clock: Callable[[], float]) -> None:
        self.base_url = base_url
        self.fixed_headers = headers
        self.oauth = oauth
        self.timeout = timeout
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.clock = clock
        self.opener = urllib.request.build_opener(_NoRedirect())

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        pairs = [(k, _text(v)) for k, v in (query or {}).items() if v is not None]
        return self.base_url + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def auth_headers(self) -> Dict[str, str]:
        headers = dict(self.fixed_headers)
        if self.oauth is not None:
            headers["authorization"] = "Bearer " + self.oauth.get(self)
        return headers

    def open(self, method: str, url: str, data: Optional[bytes], headers: Mapping[str, str], timeout: Optional[float],
             gateway: bool = True) -> Any:
        """The raw answer (a file-like HTTP response) of one request; error statuses are answers too.
        No redirect is followed; one from the gateway (``gateway``) raises MediagateError naming its target."""
        request = urllib.request.Request(url, data=data, method=method, headers={"user-agent": USER_AGENT, **headers})
        try:
            raw = self.opener.open(request, timeout=timeout)
        except urllib.error.HTTPError as err:
            raw = err
        except socket.timeout:
            raise WaitTimeoutError("%s %s got no answer within %s s" % (method, _path(url), timeout))
        except (urllib.error.URLError, ConnectionError, OSError) as err:
            reason = getattr(err, "reason", err)
            if isinstance(reason, socket.timeout):
                raise WaitTimeoutError("%s %s got no answer within %s s" % (method, _path(url), timeout))
            raise GatewayConnectionError("cannot reach the gateway at %s: %s" % (self.base_url, reason))
        if gateway:
            _refuse_redirect(self.base_url, url, raw)
        return raw

    def send(self, method: str, url: str, data: Optional[bytes], headers: Mapping[str, str], timeout: Optional[float],
             gateway: bool = True) -> Response:
        raw = self.open(method, url, data, headers, timeout, gateway)
        try:
            text = raw.read().decode("utf-8", errors="replace")
        except (socket.timeout, OSError) as err:
            raise GatewayConnectionError("the answer from %s broke off: %s" % (self.base_url, err))
        finally:
            raw.close()
        return Response(_status(raw), dict(raw.headers.items()), text)

    def request(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None,
                headers: Optional[Mapping[str, str]] = None, anonymous: bool = False, idempotent: Optional[bool] = None,
                timeout: Optional[float] = None) -> Any:
        safe = idempotent if idempotent is not None else method in ("GET", "DELETE")
        data = None if body is None else json.dumps(body).encode("utf-8")
        reauthenticated = False
        attempt = 0
        while True:
            h = {"accept": "application/json"}
            if not anonymous:
                h.update(self.auth_headers())
            if data is not None:
                h["content-type"] = "application/json"
            h.update(headers or {})
            try:
                res = self.send(method, self.url(path, query), data, h, timeout or self.timeout)
            except GatewayConnectionError:
                if safe and attempt < self.max_retries:
                    time.sleep(backoff(attempt, self.base_delay, self.max_delay))
                    attempt += 1
                    continue
                raise
            if res.status < 400:
                return res.json()
            error = error_from_response(res.status, res.headers, res.text)
            if res.status == 401 and not anonymous and not reauthenticated and self.oauth is not None and self.oauth.forget():
                reauthenticated = True  # a token that lapsed early: one more try with a fresh one
                continue
            retryable = res.status == 429 or (safe and res.status in _RETRY_WHEN_SAFE)
            if not retryable or attempt >= self.max_retries:
                raise error
            delay = self._delay(error, attempt)
            if delay is None:
                raise error
            time.sleep(delay)
            attempt += 1

    def _delay(self, error: GatewayError, attempt: int) -> Optional[float]:
        if error.retry_after is not None:
            if error.retry_after > self.max_delay:
                return None  # longer than this client waits: the caller decides
            # a little jitter on top, so clients told the same second do not come back together
            return error.retry_after + random.random() * min(1.0, self.base_delay)
        return backoff(attempt, self.base_delay, self.max_delay)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _path(url: str) -> str:
    return urllib.parse.urlsplit(url).path
