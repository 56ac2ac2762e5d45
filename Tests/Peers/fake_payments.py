"""Fake Stripe and BTCPay APIs on 127.0.0.1 for the payment tests (real HTTP), driven by the tests.

Serves the documented shapes (Stripe Checkout Sessions; BTCPay Greenfield invoices and payment
methods; their list calls, paginated: Stripe's `GET /v1/checkout/sessions` with `created[gte]`, `status`,
`limit` and `starting_after`, BTCPay's `GET /api/v1/stores/{storeId}/invoices` with `startDate`, `status`,
`skip` and `take`, newest first) and plays failures on demand: a 500, garbage, an oversized body (a success or
an error page), a hang past the client's timeout, a 401, a redirect to elsewhere on this fake (recorded if
followed), or a 500 on a list's later pages only. Webhook signatures come from the independent implementations, never
the service's code: `stripe.WebhookSignature.generate_signature_header` (PyPI `stripe`) and
Python's `hmac` for BTCPay-Sig.

Usage: fake_payments.py STRIPE_KEY BTCPAY_KEY BTCPAY_STORE. Prints "port N" once listening;
exits when standard input closes (the test ended) or after 15 minutes.
"""
import email.utils
import hashlib
import hmac
import itertools
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

from peer_server import serve

import stripe

STRIPE_KEY, BTCPAY_KEY, BTCPAY_STORE = sys.argv[1], sys.argv[2], sys.argv[3]
lock = threading.Lock()
counter = itertools.count(1)
# ok | 500 | garbage | huge | hugeerror | hang | 400 | 401 | redirect | later-pages-500 | 429 | 409 | 429-bare
modes = {"stripe": "ok", "btcpay": "ok"}
sessions_by_key = {}   # Idempotency-Key -> session
sessions_by_id = {}    # session id -> the same session
order = {}             # session or invoice id -> creation order, for lists newest first
requests_seen = {"stripe": [], "btcpay": [], "redirected": [], "lists": [], "failed": []}
btcpay_invoices = {}   # id -> invoice data


def failure(handler, provider, later_page=False):
    """Plays the provider's current failure mode; True when it answered. `later_page`: the call
    is a list's second page or later (`later-pages-500` fails only those)."""
    mode = modes[provider]
    if mode == "ok":
        return False
    if mode == "later-pages-500":
        if not later_page:
            return False
        mode = "500"
    requests_seen["failed"].append({"provider": provider, "mode": mode})
    if mode == "429":
        handler.reply(429, {"error": {"type": "invalid_request_error", "code": "rate_limit"}}, {"Retry-After": "120"})
    elif mode == "409":
        # Retry-After as an HTTP-date, 30 s ahead.
        at = email.utils.formatdate(time.time() + 30, usegmt=True)
        handler.reply(409, {"error": {"type": "idempotency_error", "code": "idempotency_key_in_use"}}, {"Retry-After": at})
    elif mode == "429-bare":
        handler.reply(429, {"error": {"type": "invalid_request_error", "code": "rate_limit"}})
    elif mode == "500":
        handler.reply(500, {"error": {"type": "api_error", "message": "fake outage"}})
    elif mode == "garbage":
        handler.reply_raw(200, b"<html>not json at all", "text/html")
    elif mode == "huge":
        handler.reply_raw(200, b"{\"pad\":\"" + b"x" * (3 << 20) + b"\"}", "application/json")
    elif mode == "hugeerror":
        handler.reply_raw(503, b"<html>" + b"x" * (3 << 20) + b"</html>", "text/html")
    elif mode == "redirect":
        # Elsewhere on this fake, which records what arrives there: a client that follows shows up.
        try:
            handler.send_response(307)
            handler.send_header("Location", f"http://127.0.0.1:{handler.server.server_address[1]}/_redirected")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            pass
    elif mode == "hang":
        time.sleep(8)
        handler.reply(500, {"late": True})
    elif mode == "400":
        handler.reply(400, {"error": {"type": "invalid_request_error", "code": "amount_too_small",
                                      "message": "Amount must be at least $0.50 usd"}})
    elif mode == "401":
        handler.reply(401, {"error": {"type": "invalid_request_error", "message": "bad key"}})
    return True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def reply(self, status, obj, headers=None):
        self.reply_raw(status, json.dumps(obj).encode(), "application/json", headers)

    def reply_raw(self, status, data, ctype, headers=None):
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        path = urllib.parse.urlparse(self.path).path
        if path == "/_redirected":
            return self.redirected()
        if path.startswith("/_control/requests/"):
            with lock:
                return self.reply(200, requests_seen[path.rsplit("/", 1)[1]])
        if path == "/v1/checkout/sessions":
            return self.list_sessions()
        if path == f"/api/v1/stores/{BTCPAY_STORE}/invoices":
            return self.list_invoices()
        prefix = f"/api/v1/stores/{BTCPAY_STORE}/invoices/"
        if path.startswith(prefix):
            if self.headers.get("Authorization") != "token " + BTCPAY_KEY:
                return self.reply(401, {"code": "unauthenticated", "message": "no"})
            if failure(self, "btcpay"):
                return
            rest = path[len(prefix):]
            invoice_id, _, tail = rest.partition("/")
            with lock:
                inv = btcpay_invoices.get(invoice_id)
                requests_seen["btcpay"].append({"method": "GET", "path": path})
            if inv is None:
                return self.reply(404, {"code": "invoice-not-found", "message": "no such invoice"})
            if tail == "payment-methods":
                method = inv["checkout"]["paymentMethods"][0]
                coin = method.split("-")[0]
                address = ("bc1qfake" if coin == "BTC" else "8Fake") + invoice_id.lower()
                return self.reply(200, [{
                    "paymentMethodId": method, "currency": coin, "destination": address,
                    "paymentLink": ("bitcoin:" if coin == "BTC" else "monero:") + address,
                    "rate": "50000.00", "paymentMethodPaid": "0", "totalPaid": "0", "due": inv["cryptoAmount"],
                    "amount": inv["cryptoAmount"], "paymentMethodFee": "0", "activated": True, "payments": [],
                }])
            return self.reply(200, inv)
        self.reply(404, {"error": "not found"})

    def query(self):
        return urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query, keep_blank_values=True)

    def list_sessions(self):
        """Stripe's list of Checkout Sessions: newest first, `created[gte]` and `status` filters,
        `limit` 1-100 (default 10), `starting_after` a session id of the previous page."""
        if self.headers.get("Authorization") != "Bearer " + STRIPE_KEY:
            return self.reply(401, {"error": {"type": "invalid_request_error", "message": "Invalid API Key"}})
        q = self.query()
        after = q.get("starting_after", [None])[0]
        if failure(self, "stripe", later_page=after is not None):
            return
        with lock:
            requests_seen["lists"].append({"provider": "stripe", "query": {k: v for k, v in q.items()}})
            try:
                limit = int(q.get("limit", ["10"])[0])
                since = int(q.get("created[gte]", ["0"])[0])
            except ValueError:
                return self.reply(400, {"error": {"type": "invalid_request_error", "message": "Invalid integer"}})
            if not 1 <= limit <= 100:
                return self.reply(400, {"error": {"type": "invalid_request_error", "param": "limit",
                                                  "message": "This value must be less than or equal to 100"}})
            status = q.get("status", [None])[0]
            chosen = sorted((s for s in sessions_by_id.values()
                             if s["created"] >= since and (status is None or s["status"] == status)),
                            key=lambda s: order[s["id"]], reverse=True)
            if after is not None:
                ids = [s["id"] for s in chosen]
                if after not in sessions_by_id:
                    return self.reply(400, {"error": {"type": "invalid_request_error", "param": "starting_after",
                                                      "message": f"No such checkout.session: '{after}'"}})
                chosen = chosen[ids.index(after) + 1:] if after in ids else \
                    [s for s in chosen if order[s["id"]] < order[after]]
            page = chosen[:limit]
            return self.reply(200, {"object": "list", "url": "/v1/checkout/sessions", "has_more": len(chosen) > limit,
                                    "data": page})

    def list_invoices(self):
        """BTCPay's list of a store's invoices: newest first, `startDate` (unix seconds) and
        repeated `status` filters, `skip` and `take`."""
        if self.headers.get("Authorization") != "token " + BTCPAY_KEY:
            return self.reply(401, {"code": "unauthenticated", "message": "no"})
        q = self.query()
        try:
            skip = int(q.get("skip", ["0"])[0])
            take = int(q.get("take", ["50"])[0])
            since = int(q.get("startDate", ["0"])[0])
        except ValueError:
            return self.reply(400, [{"path": "skip", "message": "not an integer"}])
        if failure(self, "btcpay", later_page=skip > 0):
            return
        with lock:
            requests_seen["lists"].append({"provider": "btcpay", "query": {k: v for k, v in q.items()}})
            statuses = set(q.get("status", []))
            chosen = sorted((i for i in btcpay_invoices.values()
                             if i["createdTime"] >= since and (not statuses or i["status"] in statuses)),
                            key=lambda i: order[i["id"]], reverse=True)
            return self.reply(200, chosen[skip:skip + take])

    def redirected(self):
        with lock:
            requests_seen["redirected"].append({"method": self.command, "authorization": self.headers.get("Authorization")})
        self.reply(200, {"followed": True})

    def do_POST(self):
        path = urllib.parse.urlparse(self.path).path
        raw = self.body()
        if path == "/_redirected":
            return self.redirected()
        if path == "/_control/mode":
            req = json.loads(raw)
            with lock:
                modes[req["provider"]] = req["mode"]
            return self.reply(200, {"ok": True})
        if path == "/_control/stripe-session":
            # What Stripe's side of a session becomes when the buyer pays (or what a test makes of it).
            req = json.loads(raw)
            with lock:
                session = sessions_by_id[req["id"]]
                for field in ("status", "payment_status", "payment_intent", "amount_total", "currency", "created"):
                    if field in req:
                        session[field] = req[field]
            return self.reply(200, session)
        if path == "/_control/btcpay-status":
            req = json.loads(raw)
            with lock:
                inv = btcpay_invoices[req["id"]]
                inv["status"] = req["status"]
                inv["additionalStatus"] = req.get("additionalStatus", "None")
                if "amount" in req:
                    inv["amount"] = req["amount"]
                if "monitoringExpiration" in req:
                    inv["monitoringExpiration"] = req["monitoringExpiration"]
            return self.reply(200, inv)
        if path == "/_sign/stripe":
            req = json.loads(raw)
            header = stripe.WebhookSignature.generate_signature_header(
                req["payload"], req["secret"], timestamp=req.get("timestamp"))
            return self.reply(200, {"header": header})
        if path == "/_sign/btcpay":
            req = json.loads(raw)
            mac = hmac.new(req["secret"].encode(), req["payload"].encode(), hashlib.sha256).hexdigest()
            return self.reply(200, {"header": "sha256=" + mac})
        if path == "/v1/checkout/sessions":
            if self.headers.get("Authorization") != "Bearer " + STRIPE_KEY:
                return self.reply(401, {"error": {"type": "invalid_request_error", "message": "Invalid API Key"}})
            if failure(self, "stripe"):
                return
            form = {k: v[0] for k, v in urllib.parse.parse_qs(raw.decode(), keep_blank_values=True).items()}
            key = self.headers.get("Idempotency-Key")
            with lock:
                requests_seen["stripe"].append({"form": form, "idempotencyKey": key,
                                                "contentType": self.headers.get("Content-Type")})
                if key in sessions_by_key:
                    return self.reply(200, sessions_by_key[key])
                n = next(counter)
                sid = f"cs_test_fake{n:06d}"
                session = {
                    "id": sid, "object": "checkout.session", "mode": form.get("mode"),
                    "url": f"https://checkout.stripe.test/c/pay/{sid}",
                    "amount_total": int(form["line_items[0][price_data][unit_amount]"]) * int(form["line_items[0][quantity]"]),
                    "currency": form["line_items[0][price_data][currency]"],
                    "client_reference_id": form.get("client_reference_id"),
                    "status": "open", "payment_status": "unpaid", "payment_intent": None,
                    "expires_at": int(form["expires_at"]), "livemode": False, "created": int(time.time()),
                    "metadata": {k[9:-1]: v for k, v in form.items() if k.startswith("metadata[")},
                }
                sessions_by_key[key] = session
                sessions_by_id[sid] = session
                order[sid] = n
            return self.reply(200, session)
        if path == f"/api/v1/stores/{BTCPAY_STORE}/invoices":
            if self.headers.get("Authorization") != "token " + BTCPAY_KEY:
                return self.reply(401, {"code": "unauthenticated", "message": "no"})
            if failure(self, "btcpay"):
                return
            req = json.loads(raw)
            with lock:
                requests_seen["btcpay"].append({"method": "POST", "path": path, "body": req})
                n = next(counter)
                iid = f"FakeInv{n:06d}"
                coin = req["checkout"]["paymentMethods"][0].split("-")[0]
                btcpay_invoices[iid] = {
                    "id": iid, "storeId": BTCPAY_STORE, "amount": req["amount"], "currency": req["currency"],
                    "type": "Standard", "checkoutLink": f"https://btcpay.test/i/{iid}", "createdTime": int(time.time()),
                    "expirationTime": int(time.time()) + 60 * req["checkout"].get("expirationMinutes", 15),
                    # BTCPay watches an expired invoice for late payments this long (store default a day)
                    "monitoringExpiration": int(time.time()) + 60 * (req["checkout"].get("expirationMinutes", 15)
                                                                     + req["checkout"].get("monitoringMinutes", 1440)),
                    "status": "New", "additionalStatus": "None", "metadata": req.get("metadata", {}),
                    "checkout": req["checkout"], "archived": False,
                    "cryptoAmount": "0.00028000" if coin == "BTC" else "0.087500000000",
                }
                order[iid] = n
                return self.reply(200, btcpay_invoices[iid])
        self.reply(404, {"error": "not found"})


if __name__ == "__main__":
    serve(Handler, lifetime=900)
