"""Fake App Store Server API on 127.0.0.1 for the App Store tests (real HTTP), driven by the tests.

Serves the App Store Server API's Get All Subscription Statuses and Get Transaction Info
(GET /inApps/v1/transactions/{transactionId}, the coin wallet's) for two environments on one port, under
the path prefixes /production and /sandbox, so a service configured with
`api_url = http://127.0.0.1:PORT/production` and `sandbox_api_url = .../sandbox` calls them as it
would call Apple. Each environment answers per original transaction id as a test scripted it:

  POST /_control/script {"originalTransactionId", "environment": "production"|"sandbox",
                         "mode", "status", "transaction": {...}, "renewal": {...},
                         "retryAfterSeconds", "delaySeconds", "responseEnvironment",
                         "route": "subscriptions" (default) | "transactions"}
  With route "transactions", "originalTransactionId" is the transaction id looked up, and ok
  answers {"signedTransactionInfo": ...}: a consumable transaction signed by the test PKI with
  the script's "transaction" fields over it.
  mode: ok (200, the status entry with transaction and renewal info signed by the test PKI),
        nosuch (200 naming no subscription), 401, 403, 404, 429 (Retry-After: a UNIX time in
        milliseconds, retryAfterSeconds ahead), 500, 503, garbage, huge and hugechunked (over
        1 MiB, with and without Content-Length), hugeerror (a 503 page over 1 MiB), slow
        (delaySeconds, then ok)
  GET  /_control/requests  -> every status request received: environment, id, token verdict
  POST /_control/reset     -> forgets scripts and requests
  POST /_control/clock {"nowMs"} -> the fake's clock from now on (tokens, signedDate, Retry-After),
                              for a service running under libfaketime

An unscripted id is answered 404 {"errorCode": 4040010}, as Apple answers an id its environment
does not hold. Every request's bearer token is checked with PyJWT, not the service's code: ES256
over the configured public key, `kid`, `iss`, `aud` appstoreconnect-v1, `bid`, and `iat` and `exp`
against the fake's clock;
a token that fails is answered 401 without a body, as Apple does.

Usage: fake_appstore.py PKI_DIR API_KEY_PUB_PEM KEY_ID ISSUER_ID BUNDLE_ID. Prints "port N" once
listening; exits when standard input closes (the test ended) or after 40 minutes.
"""
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

from peer_server import serve

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import serialization

import appstore_peer

PKI_DIR, PUBLIC_PEM, KEY_ID, ISSUER_ID, BUNDLE = sys.argv[1:6]
APP_APPLE_ID = 1234567890
PREFIX = "/inApps/v1/subscriptions/"
TRANSACTIONS = "/inApps/v1/transactions/"
lock = threading.Lock()
scripts = {}          # (route, environment, id) -> script
requests_seen = []


def load_pki():
    pki = appstore_peer.PKI.__new__(appstore_peer.PKI)
    read = lambda f: open(os.path.join(PKI_DIR, f), "rb").read()
    pki.root = x509.load_der_x509_certificate(read("root.der"))
    pki.intermediate = x509.load_der_x509_certificate(read("intermediate.der"))
    pki.leaf = x509.load_der_x509_certificate(read("leaf.der"))
    pki.leaf_key = serialization.load_pem_private_key(read("leaf-key.pem"), None)
    return pki


PKI = load_pki()
PUBLIC_KEY = serialization.load_pem_public_key(open(PUBLIC_PEM, "rb").read())


def token_verdict(header):
    """None when the bearer token is one Apple would accept, else why not."""
    if not header or not header.startswith("Bearer "):
        return "no bearer token"
    token = header[len("Bearer "):]
    try:
        # Times are checked below against the fake's clock, which a test may set (a service under libfaketime).
        claims = jwt.decode(token, PUBLIC_KEY, algorithms=["ES256"], audience="appstoreconnect-v1",
                            options={"require": ["iss", "iat", "exp", "aud", "bid"], "verify_exp": False,
                                     "verify_iat": False, "verify_nbf": False})
        head = jwt.get_unverified_header(token)
    except jwt.PyJWTError as e:
        return "token: " + type(e).__name__
    now = now_ms() // 1000
    if not isinstance(claims["iat"], int) or not isinstance(claims["exp"], int):
        return "iat or exp is not an integer"
    if claims["iat"] > now + 60:
        return "token issued in the future"
    if claims["exp"] <= now:
        return "token expired"
    if head.get("kid") != KEY_ID:
        return "kid is not the key id"
    if claims["iss"] != ISSUER_ID:
        return "iss is not the issuer id"
    if claims["bid"] != BUNDLE:
        return "bid is not the bundle id"
    if claims["exp"] - claims["iat"] > 3600:
        return "token lives longer than an hour"
    return None


clock_offset_ms = 0  # set by /_control/clock: the fake's now is the service's (fake) now


def now_ms():
    return int(time.time() * 1000) + clock_offset_ms


def signed_transaction_info(environment, transaction_id, script):
    apple_env = "Sandbox" if environment == "sandbox" else "Production"
    t = appstore_peer.transaction(transactionId=transaction_id, originalTransactionId=transaction_id, bundleId=BUNDLE,
                                  environment=apple_env, signedDate=now_ms(), purchaseDate=now_ms() - 60000,
                                  originalPurchaseDate=now_ms() - 60000, webOrderLineItemId=None)
    for k, v in (script.get("transaction") or {}).items():
        if v is None:
            t.pop(k, None)
        else:
            t[k] = v
    return {"signedTransactionInfo": appstore_peer.jws(t, PKI)}


def signed_entry(environment, original, script):
    apple_env = "Sandbox" if environment == "sandbox" else "Production"
    t = appstore_peer.subscription(originalTransactionId=original, bundleId=BUNDLE, environment=apple_env,
                                   signedDate=now_ms())
    for k, v in (script.get("transaction") or {}).items():
        if v is None:
            t.pop(k, None)
        else:
            t[k] = v
    r = {"originalTransactionId": original, "productId": t.get("productId"), "autoRenewProductId": t.get("productId"),
         "autoRenewStatus": 1, "signedDate": now_ms(), "environment": t.get("environment", apple_env)}
    for k, v in (script.get("renewal") or {}).items():
        if v is None:
            r.pop(k, None)
        else:
            r[k] = v
    return {"originalTransactionId": original, "status": script.get("status", 1),
            "signedTransactionInfo": appstore_peer.jws(t, PKI), "signedRenewalInfo": appstore_peer.jws(r, PKI)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def reply(self, status, obj, headers=()):
        self.reply_raw(status, b"" if obj is None else json.dumps(obj).encode(), "application/json", headers)

    def reply_raw(self, status, data, ctype, headers=()):
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def reply_chunked(self, data):
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(data), 65536):
                part = data[i:i + 65536]
                self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        path = urllib.parse.urlparse(self.path).path
        if path == "/_control/requests":
            with lock:
                return self.reply(200, requests_seen)
        environment, _, rest = path.lstrip("/").partition("/")
        rest = "/" + rest
        route = "transactions" if rest.startswith(TRANSACTIONS) else "subscriptions"
        if environment not in ("production", "sandbox") or not (rest.startswith(PREFIX) or rest.startswith(TRANSACTIONS)):
            return self.reply(404, {"errorCode": 4040000, "errorMessage": "no such route"})
        original = rest[len(TRANSACTIONS if route == "transactions" else PREFIX):]
        refused = token_verdict(self.headers.get("Authorization"))
        with lock:
            requests_seen.append({"environment": environment, "originalTransactionId": original, "route": route,
                                  "tokenAccepted": refused is None, "tokenRefusal": refused,
                                  "accept": self.headers.get("Accept")})
            script = dict(scripts.get((route, environment, original)) or {})
        if refused is not None:
            return self.reply_raw(401, b"", "text/plain")
        mode = script.get("mode", "404" if not script else "ok")
        if mode == "slow":
            time.sleep(float(script.get("delaySeconds", 5)))
            mode = "ok"
        if mode == "ok" and route == "transactions":
            return self.reply(200, signed_transaction_info(environment, original, script))
        if mode == "ok":
            document = {"environment": script.get("responseEnvironment",
                                                  "Sandbox" if environment == "sandbox" else "Production"),
                        "bundleId": BUNDLE, "appAppleId": APP_APPLE_ID,
                        "data": [{"subscriptionGroupIdentifier": "21000001",
                                  "lastTransactions": [signed_entry(environment, original, script)]}]}
            return self.reply(200, document)
        if mode == "nosuch":
            return self.reply(200, {"environment": "Sandbox" if environment == "sandbox" else "Production",
                                    "bundleId": BUNDLE, "appAppleId": APP_APPLE_ID, "data": []})
        if mode == "401":
            return self.reply_raw(401, b"", "text/plain")
        if mode == "403":
            return self.reply(403, {"errorCode": 4030000, "errorMessage": "forbidden"})
        if mode == "404":
            return self.reply(404, {"errorCode": 4040010, "errorMessage": "Transaction id not found."})
        if mode == "429":
            after = now_ms() + int(float(script.get("retryAfterSeconds", 60)) * 1000)
            return self.reply(429, {"errorCode": 4290000, "errorMessage": "Rate limit exceeded."},
                              headers=[("Retry-After", str(after))])
        if mode in ("500", "503"):
            return self.reply(int(mode), {"errorCode": 5000000, "errorMessage": "An unknown error occurred."})
        if mode == "garbage":
            return self.reply_raw(200, b"<html>not json at all", "text/html")
        if mode == "huge":
            return self.reply_raw(200, b"{\"pad\":\"" + b"x" * ((1 << 20) + 64) + b"\"}", "application/json")
        if mode == "hugeerror":
            return self.reply_raw(503, b"<html>" + b"x" * ((1 << 20) + 64) + b"</html>", "text/html")
        if mode == "hugechunked":
            return self.reply_chunked(b"{\"pad\":\"" + b"x" * ((1 << 20) + 64) + b"\"}")
        return self.reply(500, {"errorCode": 5000000, "errorMessage": "unknown fake mode " + mode})

    def do_POST(self):
        path = urllib.parse.urlparse(self.path).path
        raw = self.body()
        if path == "/_control/script":
            req = json.loads(raw)
            with lock:
                scripts[(req.get("route", "subscriptions"), req.get("environment", "production"),
                         req["originalTransactionId"])] = req
            return self.reply(200, {"ok": True})
        if path == "/_control/clock":
            global clock_offset_ms
            clock_offset_ms = int(json.loads(raw)["nowMs"]) - int(time.time() * 1000)
            return self.reply(200, {"ok": True})
        if path == "/_control/reset":
            with lock:
                scripts.clear()
                requests_seen.clear()
            return self.reply(200, {"ok": True})
        self.reply(404, {"errorCode": 4040000, "errorMessage": "no such route"})


if __name__ == "__main__":
    serve(Handler, lifetime=2400)
