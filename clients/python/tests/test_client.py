"""The Python client against a listening gateway.

Run by test/clients/python.test.ts, which starts two gateways (one with a worker running the
local models, one without, where predictions stay queued until cancelled), makes the accounts,
and passes them in MEDIAGATE_TEST_* variables.
"""
import ast
import http.server
import json
import os
import pathlib
import tempfile
import threading
import time
import unittest
import urllib.request

import mediagate
from mediagate import (AuthenticationError, ConflictError, ForbiddenError, GatewayError, InsufficientCreditError,
                       Mediagate, MediagateError, NotFoundError, PredictionFailedError, RateLimitError, ServerError,
                       ValidationError, WaitTimeoutError, WebhookVerificationError, verify_webhook)
from mediagate._http import backoff

ENV = os.environ
BASE = ENV["MEDIAGATE_TEST_BASE_URL"]
IDLE = ENV["MEDIAGATE_TEST_IDLE_URL"]
MODEL = "canvas-v1-fast-text-to-image"
SMALL = {"width": 64, "height": 64}
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201d2ea1e5b0000000049454e44ae426082")


def live() -> Mediagate:
    return Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_KEY"])


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url) as res:
        return res.read()


def wait_until(check, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


class Receiver:
    """A local webhook receiver that records what it is sent."""

    def __init__(self) -> None:
        received = self.received = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                received.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/hook" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Answering:
    """A local server that records every request (method and headers) and answers it as ``answer()`` says."""

    def __init__(self, answer) -> None:
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self) -> None:
                length = int(self.headers.get("content-length") or "0")
                if length:
                    self.rfile.read(length)
                seen.append({"method": self.command, "headers": {k.lower(): v for k, v in self.headers.items()}})
                status, headers = answer()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", "0")
                self.end_headers()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = answer  # noqa: N815 (the stdlib's names)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class PredictionsTest(unittest.TestCase):
    def test_run_follows_the_stream_with_progress_and_returns_the_outputs_at_the_quoted_price(self) -> None:
        client = live()
        before = client.account.balance()
        quote = client.quote(MODEL, dict(SMALL, prompt="a red fox"))
        seen = []
        result = client.run(MODEL, dict(SMALL, prompt="a red fox"), on_progress=lambda p: seen.append(p["status"]))
        self.assertEqual(result["status"], "completed")
        self.assertEqual(result["price"], quote["cost"])
        self.assertEqual(seen[-1], "completed")
        self.assertEqual(fetch(result["outputs"][0])[1:4], b"PNG")
        after = client.account.balance()
        self.assertEqual(after["balance"], before["balance"] - quote["cost"])

    def test_stream_yields_each_state_up_to_the_terminal_one(self) -> None:
        client = live()
        submitted = client.submit(MODEL, dict(SMALL, prompt="streamed"))
        self.assertEqual(submitted["status"], "queued")
        states = [p["status"] for p in client.stream(submitted["request_id"])]
        self.assertEqual(states[-1], "completed")
        self.assertNotIn("completed", states[:-1])
        self.assertEqual([p["status"] for p in client.stream(submitted["request_id"])], ["completed"])
        self.assertEqual(client.get(submitted["request_id"])["status"], "completed")

    def test_wait_by_polling_reaches_the_end_and_a_sandbox_key_runs_for_nothing(self) -> None:
        sandbox = Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_SANDBOX_KEY"])
        seen = []
        result = sandbox.run(MODEL, {"prompt": "sandbox"}, mode="poll", poll_interval=0.05, on_progress=lambda p: seen.append(p["status"]))
        self.assertEqual((result["status"], result["price"]), ("completed", 0))
        self.assertEqual(seen, ["completed"])
        client = live()
        submitted = client.submit(MODEL, dict(SMALL, prompt="polled"))
        self.assertEqual(client.wait(submitted["request_id"], mode="poll", poll_interval=0.05)["status"], "completed")

    def test_a_submit_whose_answer_is_lost_is_retried_with_the_same_idempotency_key(self) -> None:
        client = Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_KEY"], base_delay=0.01)
        keys = []
        real_send = client._t.send

        def drop_first_answer(method, url, data, headers, timeout):
            res = real_send(method, url, data, headers, timeout)
            if method == "POST" and "/api/v1/" + MODEL in url:
                keys.append(headers["idempotency-key"])
                if len(keys) == 1:  # the gateway ran it; the answer never reaches the client
                    raise mediagate.GatewayConnectionError("connection reset")
            return res

        client._t.send = drop_first_answer
        before = client.history.list(model=MODEL, page_size=100)["total"]
        result = client.run(MODEL, dict(SMALL, prompt="once"))
        self.assertEqual(result["status"], "completed")
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])
        self.assertEqual(client.history.list(model=MODEL, page_size=100)["total"], before + 1, "one prediction")
        # the same key with the same request again is the same prediction; with another request, a conflict
        self.assertEqual(client.submit(MODEL, dict(SMALL, prompt="once"), idempotency_key=keys[0])["request_id"], result["id"])
        with self.assertRaises(ConflictError):
            client.submit(MODEL, dict(SMALL, prompt="another"), idempotency_key=keys[0])

    def test_cancel_ends_a_queued_prediction_and_a_second_cancel_is_a_conflict(self) -> None:
        client = Mediagate(IDLE, api_key=ENV["MEDIAGATE_TEST_IDLE_KEY"])
        submitted = client.submit(MODEL, dict(SMALL, prompt="never runs"))
        self.assertEqual(client.cancel(submitted["request_id"])["status"], "cancelled")
        with self.assertRaises(ConflictError) as caught:
            client.cancel(submitted["request_id"])
        self.assertEqual(caught.exception.code, "conflict")

    def test_a_wait_that_outlasts_its_limit_raises_with_the_last_state_and_the_prediction_goes_on(self) -> None:
        client = Mediagate(IDLE, api_key=ENV["MEDIAGATE_TEST_IDLE_KEY"])
        submitted = client.submit(MODEL, dict(SMALL, prompt="slow"))
        with self.assertRaises(WaitTimeoutError) as caught:
            client.wait(submitted["request_id"], timeout=0.3)
        self.assertEqual(caught.exception.prediction["status"], "queued")
        self.assertEqual(client.get(submitted["request_id"])["status"], "queued")
        # a run cancelled while waiting fails
        client.cancel(submitted["request_id"])
        with self.assertRaises(PredictionFailedError) as failed:
            client.run(MODEL, dict(SMALL, prompt="x"), timeout=30, on_progress=lambda p: client.cancel(p["id"]) if p["status"] == "queued" else None)
        self.assertEqual(failed.exception.prediction["status"], "cancelled")


class RetriesTest(unittest.TestCase):
    def test_a_429_is_retried_after_the_retry_after_the_gateway_sent(self) -> None:
        owner = Mediagate(IDLE, api_key=ENV["MEDIAGATE_TEST_IDLE_KEY"])
        limited = owner.keys.create(name="one at a time", max_concurrent=1)
        first = Mediagate(IDLE, api_key=limited["key"]).submit(MODEL, dict(SMALL, prompt="first"))
        client = Mediagate(IDLE, api_key=limited["key"])
        real_send = client._t.send
        seen = []

        def cancel_on_refusal(method, url, data, headers, timeout):
            res = real_send(method, url, data, headers, timeout)
            if method == "POST":
                seen.append((res.status, time.monotonic(), headers.get("idempotency-key")))
                if res.status == 429 and len(seen) == 1:
                    owner.cancel(first["request_id"])
            return res

        client._t.send = cancel_on_refusal
        second = client.submit(MODEL, dict(SMALL, prompt="second"))
        self.assertEqual([s[0] for s in seen], [429, 200])
        self.assertEqual(seen[0][2], seen[1][2])
        # a lower bound only: the client waited at least the second the gateway asked for
        self.assertGreaterEqual(seen[1][1] - seen[0][1], 1.0)
        owner.cancel(second["request_id"])

    def test_a_retry_after_longer_than_the_client_waits_is_a_rate_limit_error(self) -> None:
        owner = Mediagate(IDLE, api_key=ENV["MEDIAGATE_TEST_IDLE_KEY"])
        limited = owner.keys.create(name="one a minute", rate_limit_per_minute=1)
        client = Mediagate(IDLE, api_key=limited["key"], max_delay=0.2)
        # one a clock minute: a submit in a minute that already had one is refused (a third covers a
        # minute that ended between the first two)
        admitted = []
        with self.assertRaises(RateLimitError) as caught:
            for i in range(3):
                admitted.append(client.submit(MODEL, dict(SMALL, prompt="n%d" % i))["request_id"])
        self.assertIn(len(admitted), (1, 2))
        self.assertEqual((caught.exception.status, caught.exception.code), (429, "rate_limited"))
        self.assertGreaterEqual(caught.exception.retry_after, 1)
        for request_id in admitted:
            owner.cancel(request_id)

    def test_backoff_doubles_with_jitter_in_its_upper_half_and_is_capped(self) -> None:
        self.assertEqual(backoff(0, 0.1, 1.0, lambda: 0.0), 0.05)
        self.assertEqual(backoff(2, 0.1, 1.0, lambda: 1.0), 0.4)
        self.assertEqual(backoff(10, 0.1, 1.0, lambda: 1.0), 1.0)


class ErrorsTest(unittest.TestCase):
    def test_errors_are_typed_by_the_gateways_code(self) -> None:
        broke = Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_BROKE_KEY"])
        with self.assertRaises(InsufficientCreditError) as credit:
            broke.submit(MODEL, dict(SMALL, prompt="x"))
        self.assertEqual((credit.exception.status, credit.exception.code), (402, "insufficient_credit"))
        with self.assertRaises(ValidationError) as invalid:
            broke.quote(MODEL, {"prompt": "x", "width": 99999})
        self.assertEqual(invalid.exception.code, "validation_failed")
        self.assertEqual([i["loc"] for i in invalid.exception.issues], [["body", "input", "width"]])
        with self.assertRaises(AuthenticationError) as auth:
            Mediagate(BASE, api_key="mg_live_not-a-key").account.balance()
        self.assertEqual(auth.exception.code, "unauthorized")
        self.assertTrue(auth.exception.request_id)
        theirs = Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_OTHER_KEY"]).submit(MODEL, {"prompt": "mine"})
        with self.assertRaises(NotFoundError):
            broke.get(theirs["request_id"])
        with self.assertRaises(ServerError) as unavailable:
            Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_KEY"], max_retries=0).submit("veloce-v2-fast-text-to-video", {"prompt": "x"})
        self.assertEqual(unavailable.exception.code, "unavailable")
        with self.assertRaises(NotFoundError):
            broke.models.get("no-such-model")
        with self.assertRaises(mediagate.GatewayConnectionError):
            Mediagate("http://127.0.0.1:9", api_key="x", max_retries=0).account.balance()


class RedirectTest(unittest.TestCase):
    def test_a_redirect_is_not_followed_no_credential_reaches_the_address_it_names(self) -> None:
        # a base URL whose server sends every request on to another origin (a moved domain, a proxy's rule)
        elsewhere = Answering(lambda: (200, {"content-type": "application/json"}))
        self.addCleanup(elsewhere.close)
        target = elsewhere.url + "/moved"
        status = [307]
        redirector = Answering(lambda: (status[0], {"location": target}))
        self.addCleanup(redirector.close)
        secrets = ["mg_live_only_for_the_first_address", "a-bearer-token-for-the-first-address", "oauth-secret-for-the-first-address"]
        key = Mediagate(redirector.url, api_key=secrets[0], base_delay=0.001)
        calls = [
            ("balance", lambda: key.account.balance()),
            ("submit", lambda: key.submit(MODEL, {"prompt": "moved"})),
            ("wait (the event stream)", lambda: key.wait("abc", timeout=5)),
            ("upload (its address)", lambda: key.upload(PNG, filename="dot.png")),
            ("bearer token", lambda: Mediagate(redirector.url, bearer_token=secrets[1]).account.balance()),
            ("OAuth token request", lambda: Mediagate(redirector.url, oauth_client_id="cli_first", oauth_client_secret=secrets[2]).account.balance()),
        ]
        for what, call in calls:
            for code in (307, 302):
                status[0] = code
                before = len(redirector.seen)
                with self.subTest(what, status=code):
                    with self.assertRaises(MediagateError) as refused:
                        call()
                    message = str(refused.exception)
                    self.assertNotIsInstance(refused.exception, GatewayError)
                    self.assertIn("redirect (%d)" % code, message)
                    self.assertIn(target, message, "the error names where it was sent")
                    self.assertIn("base_url", message)
                    self.assertEqual(len(redirector.seen), before + 1, "asked once, not retried")
        self.assertEqual(elsewhere.seen, [], "nothing reached the other origin")
        for secret in secrets:
            self.assertNotIn(secret, json.dumps(elsewhere.seen))


class FilesAndAccountTest(unittest.TestCase):
    def test_upload_takes_bytes_a_path_or_a_file_and_the_url_serves_the_bytes(self) -> None:
        client = live()
        from_bytes = client.upload(PNG, filename="dot.png")
        self.assertEqual((from_bytes["content_type"], from_bytes["media_type"], from_bytes["bytes"]), ("image/png", "image", len(PNG)))
        self.assertEqual(fetch(from_bytes["url"]), PNG)
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d, "from-disk.png")
            path.write_bytes(PNG)
            self.assertEqual(fetch(client.upload(path)["url"]), PNG)
            with open(path, "rb") as f:
                self.assertEqual(fetch(client.upload(f)["url"]), PNG)
        sandbox = Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_SANDBOX_KEY"])
        self.assertEqual(sandbox.run("lumen-dev-i2i", {"prompt": "sharper", "image_url": from_bytes["url"]})["status"], "completed")
        with self.assertRaises(ValidationError):
            client.upload(PNG, filename="page.html")
        with self.assertRaises(mediagate.MediagateError):
            client.upload(PNG)

    def test_models_account_keys_and_history_read_what_the_gateway_has(self) -> None:
        client = live()
        models = client.models.list(category="text-to-image")
        self.assertTrue(any(m["slug"] == MODEL and m["available"] for m in models))
        self.assertTrue(all(m["category"] == "text-to-image" for m in models))
        self.assertEqual(client.models.get(MODEL)["output"], "image")
        self.assertEqual(client.account.details()["email"], ENV["MEDIAGATE_TEST_EMAIL"])
        created = client.keys.create(name="py", is_test=True)
        self.assertTrue(created["key"].startswith("mg_test_"))
        listed = client.keys.list()
        self.assertTrue(any(k["id"] == created["id"] for k in listed))
        self.assertNotIn(created["key"], json.dumps(listed))
        self.assertEqual(client.keys.update(created["id"], name="py-renamed")["name"], "py-renamed")
        client.keys.revoke(created["id"])
        with self.assertRaises(AuthenticationError):
            Mediagate(BASE, api_key=created["key"]).account.balance()
        run = client.run(MODEL, dict(SMALL, prompt="history"))
        self.assertEqual(client.history.list()["items"][0]["id"], run["id"])
        self.assertEqual(client.history.list(status="failed")["items"], [])
        self.assertEqual(client.history.get(run["id"])["id"], run["id"])
        ledger = client.account.transactions()
        self.assertTrue(any(r["request_id"] == run["id"] and r["amount"] == -run["price"] for r in ledger["items"]))

    def test_oauth_client_credentials_share_one_token_and_renew_it_before_it_expires(self) -> None:
        now = [time.time()]
        client = Mediagate(BASE, oauth_client_id=ENV["MEDIAGATE_TEST_OAUTH_ID"], oauth_client_secret=ENV["MEDIAGATE_TEST_OAUTH_SECRET"],
                           clock=lambda: now[0])
        real_send = client._t.send
        calls = []

        def record(method, url, data, headers, timeout):
            res = real_send(method, url, data, headers, timeout)
            calls.append((url, res.status))
            return res

        client._t.send = record
        token_calls = lambda: len([c for c in calls if c[0].endswith("/oauth/token")])  # noqa: E731
        threads = [threading.Thread(target=client.account.balance) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(token_calls(), 1)
        self.assertEqual(client.run(MODEL, dict(SMALL, prompt="machine"))["status"], "completed")
        self.assertEqual(token_calls(), 1)
        now[0] += 59 * 60  # the token lives an hour: renewed a minute before, not after a refusal
        client.account.balance()
        self.assertEqual(token_calls(), 2)
        self.assertNotIn(401, [c[1] for c in calls])
        with self.assertRaises(ForbiddenError) as scoped:
            client.keys.list()
        self.assertEqual(scoped.exception.code, "insufficient_scope")
        with self.assertRaises(AuthenticationError) as wrong:
            Mediagate(BASE, oauth_client_id=ENV["MEDIAGATE_TEST_OAUTH_ID"], oauth_client_secret="mgcs_wrong").account.balance()
        self.assertEqual(wrong.exception.code, "invalid_client")


class WebhooksTest(unittest.TestCase):
    def test_verify_webhook_accepts_a_real_delivery_both_secrets_after_a_rotation_and_refuses_forgeries(self) -> None:
        client = live()
        receiver = Receiver()
        self.addCleanup(receiver.close)
        old = client.webhooks.secret()["secret"]
        run = client.run(MODEL, dict(SMALL, prompt="hooked"), webhook=receiver.url)
        first = wait_until(lambda: receiver.received[:1], "the delivery")[0]
        payload = verify_webhook(first["body"], first["headers"], old)
        self.assertEqual((payload["id"], payload["status"], payload["outputs"]), (run["id"], "completed", run["outputs"]))

        new = client.webhooks.rotate_secret()["secret"]
        self.assertNotEqual(new, old)
        client.run(MODEL, dict(SMALL, prompt="rotated"), webhook=receiver.url)
        second = wait_until(lambda: receiver.received[1:2], "the second delivery")[0]
        self.assertEqual(len(second["headers"]["webhook-signature"].split(" ")), 2)
        self.assertEqual(verify_webhook(second["body"], second["headers"], old)["status"], "completed")
        self.assertEqual(verify_webhook(second["body"], second["headers"], new)["status"], "completed")
        self.assertEqual(verify_webhook(second["body"].decode("utf-8"), second["headers"], [old, new])["status"], "completed")
        with self.assertRaisesRegex(WebhookVerificationError, "no webhook-signature matches"):
            verify_webhook(second["body"].replace(b"completed", b"failed"), second["headers"], new)
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            verify_webhook(second["body"], second["headers"], new, now=time.time() + 600)
        with self.assertRaisesRegex(WebhookVerificationError, "missing"):
            verify_webhook(second["body"], {"webhook-id": "x"}, new)

    def test_sandbox_true_reads_and_rotates_the_sandbox_secret_alone_which_signs_sandbox_deliveries(self) -> None:
        client = live()
        sandbox_key = Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_SANDBOX_KEY"])
        production = client.webhooks.secret()
        self.assertIs(production["sandbox"], False)
        self.assertEqual(client.webhooks.secret(sandbox=False), production)
        sandbox = client.webhooks.secret(sandbox=True)
        self.assertIs(sandbox["sandbox"], True)
        self.assertNotEqual(sandbox["secret"], production["secret"])
        # a sandbox key gets the sandbox secret without asking, and is refused the production one
        self.assertEqual(sandbox_key.webhooks.secret(), sandbox)
        with self.assertRaises(ForbiddenError):
            sandbox_key.webhooks.secret(sandbox=False)

        rotated = client.webhooks.rotate_secret(sandbox=True)
        self.assertIs(rotated["sandbox"], True)
        self.assertNotEqual(rotated["secret"], sandbox["secret"])
        self.assertEqual(len(rotated["previous"]), 1)
        self.assertEqual(client.webhooks.secret()["secret"], production["secret"], "the production secret is unchanged")

        # a sandbox prediction's delivery verifies with the sandbox secret, never the production one
        receiver = Receiver()
        self.addCleanup(receiver.close)
        run = sandbox_key.run(MODEL, dict(SMALL, prompt="sandbox hook"), webhook=receiver.url)
        delivery = wait_until(lambda: receiver.received[:1], "the sandbox delivery")[0]
        self.assertEqual(verify_webhook(delivery["body"], delivery["headers"], rotated["secret"])["id"], run["id"])
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(delivery["body"], delivery["headers"], production["secret"])

        # with team_id, the team's own
        team = int(ENV["MEDIAGATE_TEST_TEAM_ID"])
        team_sandbox = client.webhooks.secret(sandbox=True, team_id=team)
        self.assertIs(team_sandbox["sandbox"], True)
        self.assertNotEqual(team_sandbox["secret"], rotated["secret"])
        self.assertNotEqual(client.webhooks.rotate_secret(sandbox=True, team_id=team)["secret"], team_sandbox["secret"])
        self.assertEqual(client.webhooks.secret(sandbox=True)["secret"], rotated["secret"], "the account's sandbox secret is unchanged")

    def test_send_test_with_sandbox_true_is_signed_with_the_sandbox_secret_alone(self) -> None:
        client = live()
        sandbox_key = Mediagate(BASE, api_key=ENV["MEDIAGATE_TEST_SANDBOX_KEY"])
        production = client.webhooks.secret()["secret"]
        sandbox = client.webhooks.secret(sandbox=True)["secret"]
        receiver = Receiver()
        self.addCleanup(receiver.close)

        def received(result):
            return next(r for r in receiver.received if r["headers"]["webhook-id"] == result["webhook_id"])

        result = client.webhooks.send_test(receiver.url, sandbox=True)
        self.assertIs(result["delivered"], True)
        event = received(result)
        self.assertEqual(verify_webhook(event["body"], event["headers"], sandbox)["type"], "webhook.test")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(event["body"], event["headers"], production)
        plain = received(client.webhooks.send_test(receiver.url))
        verify_webhook(plain["body"], plain["headers"], production)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(plain["body"], plain["headers"], sandbox)
        # a sandbox key signs with the sandbox secret, and is refused the production one
        by_key = received(sandbox_key.webhooks.send_test(receiver.url))
        verify_webhook(by_key["body"], by_key["headers"], sandbox)
        with self.assertRaises(ForbiddenError):
            sandbox_key.webhooks.send_test(receiver.url, sandbox=False)
        # with a team, the team's sandbox secret
        team = int(ENV["MEDIAGATE_TEST_TEAM_ID"])
        team_sandbox = client.webhooks.secret(sandbox=True, team_id=team)["secret"]
        for_team = received(client.webhooks.send_test(receiver.url, sandbox=True, team_id=team))
        verify_webhook(for_team["body"], for_team["headers"], team_sandbox)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(for_team["body"], for_team["headers"], sandbox)

    def test_webhook_events_ask_for_the_start_before_the_result(self) -> None:
        client = live()
        receiver = Receiver()
        self.addCleanup(receiver.close)
        secret = client.webhooks.secret()["secret"]
        run = client.run(MODEL, dict(SMALL, prompt="started"), webhook=receiver.url, webhook_events=["start", "completed"])
        both = wait_until(lambda: receiver.received[:2] if len(receiver.received) >= 2 else None, "the start and the result")
        start, result = (verify_webhook(d["body"], d["headers"], secret) for d in both)
        self.assertEqual((start["id"], start["event"]), (run["id"], "start"))
        self.assertEqual((result["id"], result["status"]), (run["id"], "completed"))
        self.assertNotIn("event", result)
        with self.assertRaises(ValidationError):
            client.submit(MODEL, SMALL, webhook=receiver.url, webhook_events=["finished"])

    def test_verify_webhook_agrees_with_the_reference_implementation(self) -> None:
        vector = json.loads(ENV["MEDIAGATE_TEST_WEBHOOK_VECTOR"])
        self.assertEqual(verify_webhook(vector["body"], vector["headers"], vector["secret"])["id"], "p")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(vector["body"], vector["headers"], "whsec_" + "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=")

    def test_verify_webhook_refuses_a_timestamp_of_other_digits_as_a_verification_error(self) -> None:
        vector = json.loads(ENV["MEDIAGATE_TEST_WEBHOOK_VECTOR"])
        for odd in ("\u00b2", "\u0661\u0667\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0660", "+1700000000", " 1700000000"):
            with self.assertRaisesRegex(WebhookVerificationError, "not a number of seconds"):
                verify_webhook(vector["body"], dict(vector["headers"], **{"webhook-timestamp": odd}), vector["secret"])


class CompatibilityTest(unittest.TestCase):
    def test_the_package_parses_as_python_3_9_and_uses_no_union_operator_in_annotations(self) -> None:
        package = pathlib.Path(mediagate.__file__).parent
        files = sorted(package.glob("*.py"))
        self.assertGreater(len(files), 3)
        for f in files:
            tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f), feature_version=(3, 9))
            for node in ast.walk(tree):
                annotations = []
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    annotations = [a.annotation for a in node.args.args + node.args.kwonlyargs if a.annotation] + ([node.returns] if node.returns else [])
                elif isinstance(node, ast.AnnAssign):
                    annotations = [node.annotation]
                for a in annotations:
                    self.assertFalse(any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) for n in ast.walk(a)),
                                     "%s:%d uses X | Y, which Python 3.9 cannot evaluate" % (f.name, a.lineno))


if __name__ == "__main__":
    unittest.main()
