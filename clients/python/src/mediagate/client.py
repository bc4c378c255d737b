"""The client: a gateway's documented routes as calls.

Models are run by slug with the input their schema declares; a submit carries an Idempotency-Key
(so its retries are safe), and ``run`` follows the prediction over its event stream (polling when
it cannot) to the end.
"""
import json
import mimetypes
import os
import socket
import time
import urllib.parse
import uuid
from typing import IO, Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

from ._http import OAuthToken, Transport
from .errors import (AuthenticationError, GatewayConnectionError, MediagateError, NotFoundError, PredictionFailedError,
                     WaitTimeoutError, error_from_response)
from .types import (TERMINAL_STATUSES, ApiKey, Balance, CreatedApiKey, ModelEntry, Page, Prediction, Quote, Submitted,
                    Uploaded, UserDetails, WebhookSecret, WebhookTestResult)

__all__ = ["Mediagate"]

#: what ``upload`` takes: bytes, a path, or a binary file object
UploadSource = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", IO[bytes]]

DEFAULT_WAIT = 600.0


class _StreamUnavailable(MediagateError):
    """The event stream cannot be used here; the caller polls instead."""


class Mediagate:
    """A client of one gateway.

    Give one credential: ``api_key`` (``mg_live_…``, or a sandbox ``mg_test_…``), ``oauth_client_id``
    with ``oauth_client_secret`` (the client fetches and renews its access token), or
    ``bearer_token`` (a token already held). ``team_id`` acts for a team on every call that takes one.
    """

    def __init__(self, base_url: str, *, api_key: Optional[str] = None, oauth_client_id: Optional[str] = None,
                 oauth_client_secret: Optional[str] = None, oauth_scope: Optional[str] = None,
                 bearer_token: Optional[str] = None, team_id: Optional[int] = None, timeout: float = 60.0,
                 max_retries: int = 3, base_delay: float = 0.5, max_delay: float = 30.0,
                 headers: Optional[Dict[str, str]] = None, clock: Callable[[], float] = time.time) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise MediagateError("base_url must be the gateway's http(s) address, e.g. https://gateway.example.com")
        given = [x for x in (api_key, oauth_client_id, bearer_token) if x is not None]
        if len(given) > 1:
            raise MediagateError("give one credential: api_key, oauth_client_id/oauth_client_secret or bearer_token")
        if (oauth_client_id is None) != (oauth_client_secret is None):
            raise MediagateError("oauth_client_id and oauth_client_secret go together")
        fixed = dict(headers or {})
        if api_key is not None:
            fixed["x-api-key"] = api_key
        if bearer_token is not None:
            fixed["authorization"] = "Bearer " + bearer_token
        oauth = OAuthToken(oauth_client_id, oauth_client_secret, oauth_scope) if oauth_client_id and oauth_client_secret else None
        self.base_url = base_url.rstrip("/")
        self.team_id = team_id
        self._t = Transport(self.base_url, fixed, oauth, timeout, max_retries, base_delay, max_delay, clock)
        self.models = _Models(self)
        self.account = _Account(self)
        self.keys = _Keys(self)
        self.history = _History(self)
        self.webhooks = _Webhooks(self)

    def _team(self, team_id: Optional[int]) -> Dict[str, Any]:
        team = team_id if team_id is not None else self.team_id
        return {} if team is None else {"team_id": team}

    # -------------------------------------------------------------------------------- predictions

    def submit(self, model: str, input: Dict[str, Any], *, webhook: Optional[str] = None,
               webhook_events: Optional[Sequence[str]] = None,
               idempotency_key: Optional[str] = None, team_id: Optional[int] = None) -> Submitted:
        """Submits a model run; answers at once with its ``request_id``, state and price held.

        ``webhook_events`` (with ``webhook``) picks the events sent to it: any of ``start``,
        ``progress``, ``logs`` and ``completed`` (the result); without it only the result is sent.
        """
        query = dict(self._team(team_id))
        if webhook is not None:
            query["webhook"] = webhook
        if webhook_events is not None:
            query["webhook_events_filter"] = ",".join(webhook_events)
        return self._t.request("POST", "/api/v1/" + urllib.parse.quote(model, safe=""), query, input,
                               headers={"idempotency-key": idempotency_key or str(uuid.uuid4())}, idempotent=True)

    def get(self, id: str, *, team_id: Optional[int] = None) -> Prediction:
        """The prediction as it is now."""
        return self._t.request("GET", "/api/v1/predictions/%s/result" % urllib.parse.quote(id, safe=""), self._team(team_id))

    def cancel(self, id: str, *, team_id: Optional[int] = None) -> Prediction:
        """Cancels a queued or running prediction (ConflictError once it has finished)."""
        return self._t.request("POST", "/app/cancel_prediction/%s" % urllib.parse.quote(id, safe=""), self._team(team_id), idempotent=True)

    def stream(self, id: str, *, team_id: Optional[int] = None, timeout: Optional[float] = None,
               max_reconnects: int = 3) -> Iterator[Prediction]:
        """Each state of the prediction from now to its end, from the gateway's event stream.

        Reconnects when a stream ends before the end (the gateway caps a stream's length; a
        reconnection starts with the current state, so nothing is missed). ``timeout`` bounds the
        whole stream, in seconds.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        failures = 0
        reauthenticated = False
        while True:
            try:
                for prediction in self._connect(id, team_id, deadline):
                    failures = 0
                    yield prediction
                    if prediction.get("status") in TERMINAL_STATUSES:
                        return
            except AuthenticationError:
                # an OAuth token that lapsed early: one more connection with a fresh one
                if reauthenticated or self._t.oauth is None or not self._t.oauth.forget():
                    raise
                reauthenticated = True
            except GatewayConnectionError:
                failures += 1
                if failures > max_reconnects:
                    raise
                time.sleep(min(0.25 * 2 ** failures, 5.0))

    def _connect(self, id: str, team_id: Optional[int], deadline: Optional[float]) -> Iterator[Prediction]:
        url = self._t.url("/api/v1/predictions/%s/stream" % urllib.parse.quote(id, safe=""), self._team(team_id))
        headers = {"accept": "text/event-stream", **self._t.auth_headers()}
        # keep-alive comments come every 15 s: a read that waits much longer is a dead connection
        read_timeout = 45.0 if deadline is None else max(0.05, min(45.0, deadline - time.monotonic()))
        raw = self._t.open("GET", url, None, headers, read_timeout)
        try:
            status = getattr(raw, "status", None) or raw.code
            if status >= 400:
                error = error_from_response(status, dict(raw.headers.items()), raw.read().decode("utf-8", errors="replace"))
                if error.code == "embed_operation_not_allowed":
                    raise _StreamUnavailable(str(error))
                raise error
            if not (raw.headers.get("content-type") or "").startswith("text/event-stream"):
                raise _StreamUnavailable("the event stream answered %s, not text/event-stream" % raw.headers.get("content-type"))
            data: List[str] = []
            while True:
                if deadline is not None and time.monotonic() >= deadline:
                    raise WaitTimeoutError("the event stream of %s outlasted its time limit" % id)
                try:
                    line = raw.readline()
                except socket.timeout:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise WaitTimeoutError("the event stream of %s outlasted its time limit" % id)
                    raise GatewayConnectionError("the event stream of %s went silent" % id)
                except OSError as err:
                    raise GatewayConnectionError("the event stream of %s broke: %s" % (id, err))
                if not line:
                    return  # the gateway ended the stream
                text = line.decode("utf-8").rstrip("\r\n")
                # Server-Sent Events: `data:` lines accumulate until a blank line dispatches them
                if text == "":
                    if data:
                        try:
                            prediction = json.loads("\n".join(data))
                        except ValueError:
                            raise MediagateError("the event stream of %s sent data that is not JSON" % id)
                        data = []
                        yield prediction
                elif text.startswith("data:"):
                    data.append(text[5:][1:] if text[5:].startswith(" ") else text[5:])
        finally:
            raw.close()

    def wait(self, id: str, *, timeout: float = DEFAULT_WAIT, on_progress: Optional[Callable[[Prediction], None]] = None,
             mode: str = "auto", poll_interval: float = 1.0, team_id: Optional[int] = None) -> Prediction:
        """Follows the prediction until it is completed, failed or cancelled, and returns it.

        ``mode`` ``auto`` uses the event stream and polls when it cannot be had; ``poll`` only polls.
        Raises WaitTimeoutError after ``timeout`` seconds (the prediction goes on).
        """
        deadline = time.monotonic() + timeout
        last: Dict[str, Any] = {}
        seen = [""]

        def report(p: Prediction) -> None:
            last["p"] = p
            key = "%s|%s|%s" % (p.get("status"), p.get("queue_position"), p.get("progress"))
            if key != seen[0]:
                seen[0] = key
                if on_progress is not None:
                    on_progress(p)

        def timed_out() -> WaitTimeoutError:
            if "p" not in last:
                try:  # no state seen in time: read it once, so the error says where it stands
                    last["p"] = self.get(id, team_id=team_id)
                except MediagateError:
                    pass
            p = last.get("p")
            return WaitTimeoutError("prediction %s is still %s after %s s; wait for it again, or cancel it"
                                    % (id, p.get("status") if p else "unfinished", timeout), p)

        if mode == "auto":
            try:
                for p in self.stream(id, team_id=team_id, timeout=max(0.0, deadline - time.monotonic())):
                    report(p)
                    if p.get("status") in TERMINAL_STATUSES:
                        return p
            except WaitTimeoutError:
                raise timed_out()
            except (_StreamUnavailable, GatewayConnectionError):
                pass  # the result route still answers
        while True:
            if time.monotonic() >= deadline:
                raise timed_out()
            p = self.get(id, team_id=team_id)
            report(p)
            if p.get("status") in TERMINAL_STATUSES:
                return p
            time.sleep(max(0.0, min(poll_interval, deadline - time.monotonic())))

    def run(self, model: str, input: Dict[str, Any], *, webhook: Optional[str] = None,
            webhook_events: Optional[Sequence[str]] = None, idempotency_key: Optional[str] = None, team_id: Optional[int] = None, timeout: float = DEFAULT_WAIT,
            on_progress: Optional[Callable[[Prediction], None]] = None, mode: str = "auto",
            poll_interval: float = 1.0) -> Prediction:
        """Submits and waits: the completed prediction, with its ``outputs`` (and the ``price`` held).

        Raises PredictionFailedError when it fails or is cancelled, WaitTimeoutError when it outlasts
        ``timeout`` seconds (it keeps running; ``error.prediction["id"]`` says which).
        """
        submitted = self.submit(model, input, webhook=webhook, webhook_events=webhook_events,
                                idempotency_key=idempotency_key, team_id=team_id)
        if submitted["status"] in TERMINAL_STATUSES:
            # born finished (a sandbox key): the progress callback still sees the end
            prediction = self.get(submitted["request_id"], team_id=team_id)
            if on_progress is not None:
                on_progress(prediction)
        else:
            prediction = self.wait(submitted["request_id"], timeout=timeout, on_progress=on_progress, mode=mode,
                                   poll_interval=poll_interval, team_id=team_id)
        if prediction["status"] != "completed":
            raise PredictionFailedError(prediction)
        prediction["price"] = submitted["price"]
        return prediction

    # -------------------------------------------------------------------------------- files

    def upload(self, file: UploadSource, *, filename: Optional[str] = None, team_id: Optional[int] = None) -> Uploaded:
        """Uploads a file through the gateway's upload address (one PUT of the bytes) and returns the
        stored file's URL, to pass as a model input. The extension of ``filename`` (default: the
        path's or the file object's name) selects the content type."""
        if isinstance(file, (bytes, bytearray, memoryview)):
            data = bytes(file)
            name = filename
        elif isinstance(file, (str, os.PathLike)):
            with open(file, "rb") as f:
                data = f.read()
            name = filename or os.path.basename(os.fspath(file))
        elif hasattr(file, "read"):
            data = file.read()
            name = filename or os.path.basename(str(getattr(file, "name", "")))
        else:
            raise MediagateError("upload takes bytes, a path or a binary file object")
        if not name:
            raise MediagateError("upload needs a filename (its extension selects the content type)")
        query = dict(self._team(team_id), filename=name)
        if data:
            query["size_bytes"] = len(data)
        address = self._t.request("GET", "/app/get_file_upload_url", query)
        headers = dict(address.get("headers") or {})
        if not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = address.get("content_type") or mimetypes.guess_type(name)[0] or "application/octet-stream"
        # the upload address's own headers only: never the credential (it may be a storage service's),
        # and no retry (the gateway's own addresses are single-use)
        res = self._t.send(address.get("method") or "PUT", address["upload_url"], data, headers, None, gateway=False)
        if res.status >= 300:
            raise error_from_response(res.status, res.headers, res.text)
        return {"url": address["file_url"], "content_type": address["content_type"], "media_type": address["media_type"], "bytes": len(data)}

    # -------------------------------------------------------------------------------- prices

    def quote(self, model: str, input: Dict[str, Any], *, team_id: Optional[int] = None) -> Quote:
        """The price of a run with this input (the gateway's own price rule, discounts included) and
        whether the balance covers it."""
        return self._t.request("POST", "/app/calculate_dynamic_cost", self._team(team_id), {"model": model, "input": input}, idempotent=True)


class _Models:
    def __init__(self, client: Mediagate) -> None:
        self._c = client

    def list(self, *, category: Optional[str] = None, tier: Optional[str] = None) -> List[ModelEntry]:
        """Every model of the gateway (public: no credential needed)."""
        return self._c._t.request("GET", "/api/v1/models", {"category": category, "tier": tier}, anonymous=True)["models"]

    def get(self, slug: str) -> ModelEntry:
        """One model: its input schema, price rule and whether production keys can run it here."""
        for m in self.list():
            if m["slug"] == slug:
                return m
        raise NotFoundError(404, "not_found", 'the gateway has no model "%s"' % slug)


class _Account:
    def __init__(self, client: Mediagate) -> None:
        self._c = client

    def balance(self, *, team_id: Optional[int] = None) -> Balance:
        """Credits available and held by running predictions (1000 credits = 1 USD)."""
        return self._c._t.request("GET", "/account/balance", self._c._team(team_id))

    def details(self) -> UserDetails:
        """The account the credential acts for."""
        return self._c._t.request("GET", "/app/user_details")

    def transactions(self, *, page: Optional[int] = None, page_size: Optional[int] = None, team_id: Optional[int] = None) -> Page:
        """The wallet's ledger, newest first."""
        return self._c._t.request("GET", "/app/credit_transactions", dict(self._c._team(team_id), page=page, page_size=page_size))


class _Keys:
    def __init__(self, client: Mediagate) -> None:
        self._c = client

    def _base(self, team_id: Optional[int]) -> Optional[int]:
        return team_id if team_id is not None else self._c.team_id

    def list(self, *, team_id: Optional[int] = None) -> List[ApiKey]:
        team = self._base(team_id)
        return self._c._t.request("GET", "/app/get_user_keys" if team is None else "/app/teams/%d/keys" % team)

    def create(self, *, name: Optional[str] = None, is_test: bool = False, team_id: Optional[int] = None, **fields: Any) -> CreatedApiKey:
        """Creates a key; its secret (``key``) is in this answer only. ``fields``: ``ip_whitelist``,
        ``expires_at``, ``spend_limit``, ``spend_limit_period``, ``rate_limit_per_minute``, ``max_concurrent``."""
        team = self._base(team_id)
        body: Dict[str, Any] = dict(fields, is_test=is_test)
        if name is not None:
            body["name"] = name
        return self._c._t.request("POST", "/api/v1/keys" if team is None else "/app/teams/%d/keys" % team, body=body)

    def update(self, key_id: int, *, team_id: Optional[int] = None, **changes: Any) -> ApiKey:
        team = self._base(team_id)
        if team is None:
            return self._c._t.request("PUT", "/app/update_api_key/%d" % key_id, body=changes, idempotent=True)
        return self._c._t.request("PATCH", "/app/teams/%d/keys/%d" % (team, key_id), body=changes, idempotent=True)

    def revoke(self, key_id: int, *, team_id: Optional[int] = None) -> None:
        """Revokes a key; it is refused from its next use on."""
        team = self._base(team_id)
        self._c._t.request("DELETE", "/app/delete_api_keys/%d" % key_id if team is None else "/app/teams/%d/keys/%d" % (team, key_id))


class _History:
    def __init__(self, client: Mediagate) -> None:
        self._c = client

    def list(self, *, page: Optional[int] = None, page_size: Optional[int] = None, status: Optional[str] = None,
             model: Optional[str] = None, team_id: Optional[int] = None) -> Page:
        """Past predictions, newest first; ``status`` or ``model`` filter them."""
        query: Dict[str, Any] = dict(self._c._team(team_id), page=page, page_size=page_size)
        if status is None and model is None:
            return self._c._t.request("GET", "/app/get_run_history_data", query)
        query.update(status=status, model_name=model)
        return self._c._t.request("GET", "/app/get_run_history_data_by_search", query)

    def get(self, id: str, *, team_id: Optional[int] = None) -> Dict[str, Any]:
        """One prediction with its input, cost and webhook deliveries."""
        return self._c._t.request("GET", "/app/prediction_response/%s" % urllib.parse.quote(id, safe=""), self._c._team(team_id))


class _Webhooks:
    def __init__(self, client: Mediagate) -> None:
        self._c = client

    def secret(self, *, sandbox: Optional[bool] = None, team_id: Optional[int] = None) -> WebhookSecret:
        """The signing secret of the account (or the team's) that verify_webhook needs: the production
        one, or with ``sandbox=True`` the one sandbox predictions' deliveries are signed with
        (``sandbox`` in the answer says which). A sandbox key always gets the sandbox one."""
        return self._c._t.request("GET", "/app/webhook_secret", self._query(sandbox, team_id))

    def rotate_secret(self, *, sandbox: Optional[bool] = None, team_id: Optional[int] = None) -> WebhookSecret:
        """Issues a new secret of that kind (``sandbox=True``: the sandbox one; the other is unchanged);
        for a while deliveries carry a signature for each of the two."""
        return self._c._t.request("POST", "/app/webhook_secret/rotate", self._query(sandbox, team_id))

    def send_test(self, url: str, *, sandbox: Optional[bool] = None, team_id: Optional[int] = None) -> WebhookTestResult:
        """Sends one signed ``webhook.test`` event to ``url`` at once and answers what the receiver did:
        signed with the production secret, or with ``sandbox=True`` the sandbox one (as sandbox
        predictions' deliveries are). A sandbox key always signs with the sandbox one."""
        return self._c._t.request("POST", "/app/webhook_test", self._query(sandbox, team_id), {"url": url})

    def _query(self, sandbox: Optional[bool], team_id: Optional[int]) -> Dict[str, Any]:
        # left out (None), nothing is sent: the production secret, or a sandbox key's own
        return dict(self._c._team(team_id), sandbox=sandbox)

