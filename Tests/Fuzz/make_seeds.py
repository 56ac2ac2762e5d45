#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Tests/Fuzz/README.md) from the repository's
fixtures and the peers' generators. Run once with the peers' interpreter:

    .venv-peers/bin/python Tests/Fuzz/make_seeds.py

Each seed lands in Tests/Fuzz/Corpus/<target>/seed-<name>; `scripts/fuzz --save` later merges
the corpus down (-merge=1), keeping what adds coverage. Seeds that need a key (signed requests,
JWS, tokens) are made with fixed keys at the times the harnesses judge at, so they verify.
AppStoreSigning/AppStorePKI.swift (the harnesses' test PKI) is written when missing.
"""
import base64
import hashlib
import hmac
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ = os.path.join(ROOT, "Tests", "Fuzz")
sys.path.insert(0, os.path.join(ROOT, "Tests", "Peers"))

NOW = 1767225600  # 2026-01-01T00:00:00Z, the harnesses' fixed "now"
SECRET = b"whsec_fuzz-secret"


def write(target, name, data):
    directory = os.path.join(FUZZ, "Corpus", target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(directory, "seed-" + name), "wb") as f:
        f.write(data)


def fixture(*parts):
    with open(os.path.join(ROOT, "Tests", "Fixtures", *parts), "rb") as f:
        return f.read()


def examples():
    directory = os.path.join(ROOT, "Tests", "Fixtures", "examples")
    for name in sorted(os.listdir(directory)):
        yield name, json.loads(fixture("examples", name))


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def b64u(data, pad=False):
    text = base64.urlsafe_b64encode(data).decode()
    return text if pad else text.rstrip("=")


# --- json, jtd-request -----------------------------------------------------------------------
def json_seeds():
    for name, example in examples():
        write("json", name, compact(example["document"]))
        if ".request" in name:
            write("jtd-request", name, compact(example["document"]))
            write("jtd-request", name + ".pretty", json.dumps(example["document"], indent=2))
    write("json", "rfc9421-vectors", fixture("rfc9421", "vectors.json"))
    write("json", "jtd-invalid-schemas", fixture("jtd", "invalid_schemas.json"))
    for i, text in enumerate([
        '0', '-0', '-0.0e-0', '1E+2', '123456789012345678901234567890', '1e308', '2.5e-324', '0.1',
        '9007199254740993', '"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\"\\\\"', '"\u00e9\U0001F600"',
        '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
        '{"a":1,"b":[true,false,null],"c":{"d":"e"}}', ' \t\r\n[ 1 , 2 ] \n', '{"":""}', '[]', '{}', 'null',
    ]):
        write("json", f"edge-{i}", text)


def jtd_seeds():
    # Requests that are valid but for one thing: a wrong type, a missing member, an extra member.
    for name, example in examples():
        if ".request" not in name:
            continue
        document = example["document"]
        broken = dict(document, version="1")
        write("jtd-request", name + ".version-string", compact(broken))
        extra = dict(document, extra=True)
        write("jtd-request", name + ".extra", compact(extra))


# --- http-request -----------------------------------------------------------------------------
def http_seeds():
    requests = {
        "get": b"GET / HTTP/1.1\r\nHost: badges.example.net\r\n\r\n",
        "post": b"POST /rpc HTTP/1.1\r\nHost: badges.example.net\r\nContent-Type: application/json\r\n"
                b"Content-Length: 13\r\n\r\n{\"version\":1}",
        "chunked": b"POST /rpc HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                   b"5;ext=\"a b\";x=y\r\nhello\r\n6 ; e\r\n world\r\n0\r\nTrailer-Field: v\r\nX: y\r\n\r\n",
        "pipelined": b"GET /healthz HTTP/1.1\r\nHost: h\r\n\r\nPOST /rpc HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"
                     b"GET /readyz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "expect": b"POST /rpc HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nnull",
        "absolute": b"GET http://badges.example.net:8080/metrics?x=%2F HTTP/1.1\r\nHost: other\r\n\r\n",
        "asterisk": b"OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
        "leading-crlf": b"\r\n\r\nHEAD /openapi.json HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close, keep-alive\r\n\r\n",
        "obs-text": b"GET /p HTTP/1.1\r\nHost: h\r\nX-Name: caf\xe9  v\t\r\nEmpty:\r\n\r\n",
        "rfc9421": json.loads(fixture("rfc9421", "vectors.json"))["test_request_http1"].encode(),
        "te-cl": b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "te-list": b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
        "chunk-size-max": b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000000fff\r\n",
    }
    for name, request in requests.items():
        for prefix in (b"\x00\x00", b"\x06\x01", b"\x00\x01"):  # whole reads / reads of 7 / tight limits
            write("http-request", f"{name}-{prefix.hex()}", prefix + request)


# --- structured-fields, signature-verifier ----------------------------------------------------
def sf_seeds():
    vectors = json.loads(fixture("rfc9421", "vectors.json"))
    b26 = vectors["B_2_6"]
    texts = {
        "rfc9421-input": b26["Signature-Input"],
        "rfc9421-signature": b26["Signature"],
        "rfc9421-pair": b26["Signature-Input"] + "\n" + b26["Signature"],
        "dictionary": 'a=?0, b, c; foo=bar, d=(1 2.5 "x" tok :AAE=:);p=-1, e=*t/x:y',
        "list": '("foo" "bar");lvl=5, ("baz");lvl=1, 42;q=0.999, ?1',
        "item": '-999999999999999.999;a;b=?0;c=:cHJldGVuZCB0aGlzIGlzIGJpbmFyeSBjb250ZW50Lg==:',
        "escapes": '"quote \\" and backslash \\\\ "',
        "ours": 'sig1=("@method" "@authority" "@path" "@query" "content-type" "content-digest");created=1767225590;'
                'keyid="MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=";alg="ed25519";expires=1767225900\n'
                'sig1=:' + base64.b64encode(bytes(64)).decode() + ':',
        "digest": "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:AA==:",
        "empty": "",
        "spaces": "   a=1   ",
        "inner-empty": "()",
    }
    for name, text in texts.items():
        write("structured-fields", name, text)


def verifier_seeds():
    """Requests signed by the RFC 9421 peer (PyPI http-message-signatures, as a client would sign),
    with a fixed key, created 10 s before the harness's "now"."""
    import rfc9421_peer
    seed_hex = bytes(range(32)).hex()

    def request(name, method, url, body, covered, content_type="application/json", include_alg=True, label="sig1"):
        case = {"url": url, "method": method, "body_b64": base64.b64encode(body).decode(), "content_type": content_type,
                "covered": covered, "include_alg": include_alg, "created": NOW - 10, "label": label, "seed_hex": seed_hex}
        signed = rfc9421_peer.sign(case)
        head = f"{method} {signed['path_url']}\nHost: badges.example.net\n" + "".join(f"{n}: {v}\n" for n, v in signed["headers"])
        write("signature-verifier", name, head.encode() + b"\n" + body)
        return signed["keyid"]

    body = b'{"version":1,"request":{"type":"getBadgeCatalog"}}'
    keyid = request("catalog", "POST", "http://badges.example.net/rpc", body,
                    ["@method", "@authority", "@path", "content-type", "content-digest"])
    request("query", "POST", "http://badges.example.net/rpc?a=1&b", body,
            ["@method", "@authority", "@path", "@query", "content-type", "content-digest"], label="b")
    request("no-content-type", "POST", "http://badges.example.net/rpc", b"{}", ["@method", "@authority", "@path", "content-digest"],
            content_type=None, include_alg=False)
    request("target-uri", "POST", "http://badges.example.net/rpc", body, ["@target-uri", "@method", "@authority", "@path", "content-digest"])
    # The trusted-front form and an RFC 9421 example the verifier refuses (its keyid is not a purchase key).
    write("signature-verifier", "front",
          f"POST /rpc\nHost: badges.example.net\nAuthorization: Bearer fuzz-front-token-0123456789abcdefghij\n"
          f"Badge-Signer-Key: {keyid}\n\n".encode() + body)
    vectors = json.loads(fixture("rfc9421", "vectors.json"))
    head, _, rest = vectors["test_request_http1"].partition("\r\n\r\n")
    lines = head.split("\r\n")
    first = lines[0].rsplit(" ", 1)[0]
    b26 = vectors["B_2_6"]
    text = first + "\n" + "\n".join(lines[1:]) + f"\nSignature-Input: {b26['Signature-Input']}\nSignature: {b26['Signature']}\n\n" + rest
    write("signature-verifier", "rfc9421-b26", text)


# --- base64url --------------------------------------------------------------------------------
def base64_seeds():
    for i, text in enumerate(["", "AA", "AAE", "AAEC", "AAECAw==", "AAECAw", "_-8", "/+8=", "MCowBQYDK2VwAyEAebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=",
                              "0xdeadBEEF", "00ff", "AB=A", "A", "====", "Zg==", "Zm8=", "Zm9v"]):
        write("base64url", f"text-{i}", text)


# --- App Store --------------------------------------------------------------------------------
def appstore_seeds():
    import appstore_peer as peer
    pki_file = os.path.join(FUZZ, "AppStoreSigning", "AppStorePKI.swift")
    if not os.path.exists(pki_file):
        from cryptography.hazmat.primitives import serialization
        pki = peer.PKI()
        pem = pki.leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()).decode()
        std = lambda c: base64.b64encode(peer.der(c)).decode()
        with open(pki_file, "w") as f:
            f.write("/// The App Store harnesses' throw-away PKI, made by Tests/Peers/appstore_peer.py's `PKI` (shaped like\n"
                    "/// Apple's: the receipt-signing markers on leaf and intermediate), valid 300 days either side of\n"
                    "/// 2026-11-01. Test data only: it anchors nothing outside the fuzz harnesses.\n"
                    "enum AppStorePKI {\n"
                    f"    static let bundleId = \"{peer.BUNDLE}\"\n"
                    f"    static let root = \"{std(pki.root)}\"\n"
                    f"    static let intermediate = \"{std(pki.intermediate)}\"\n"
                    f"    static let leaf = \"{std(pki.leaf)}\"\n"
                    f"    static let leafKeyPEM = \"\"\"\n{pem}\"\"\"\n"
                    "}\n")
    _, _, variants = peer.variants()
    for name, text in variants:
        write("app-store-jws", "jws-" + name, b"\x00" + text.encode())
    for i, (name, text) in enumerate(variants[:6]):
        write("app-store-notification", "body-" + name, b"\x00" + compact({"signedPayload": text}).encode())
    payloads = {"transaction": peer.transaction(), "subscription": peer.subscription(),
                "sandbox": peer.transaction(environment="Sandbox"), "revoked": peer.transaction(revocationDate=peer.SIGNED_MS - 1000)}
    for name, payload in payloads.items():
        write("app-store-jws", "payload-" + name, b"\x01" + compact(payload).encode())
        write("app-store-jws", "payload-sandbox-credit-" + name, b"\x05" + compact(payload).encode())
    header = compact({"alg": "ES256", "x5c": ["AAAA", "AAAA", "AAAA"]})
    write("app-store-jws", "header-and-payload", b"\x03" + header.encode() + b"\n" + compact(payloads["transaction"]).encode())
    t = peer.transaction()
    notifications = {
        "refund": {"notificationType": "REFUND", "notificationUUID": "5a2e5d3c-1111-4c8e-9a66-000000000001",
                   "signedDate": peer.SIGNED_MS, "version": "2.0",
                   "data": {"bundleId": peer.BUNDLE, "environment": "Production", "signedTransactionInfo": t}},
        "renew": {"notificationType": "DID_RENEW", "subtype": "BILLING_RECOVERY", "notificationUUID": "u-2",
                  "signedDate": peer.SIGNED_MS,
                  "data": {"bundleId": peer.BUNDLE, "environment": "Production", "signedTransactionInfo": peer.subscription()}},
        "test": {"notificationType": "TEST", "notificationUUID": "u-3", "signedDate": peer.SIGNED_MS,
                 "data": {"bundleId": peer.BUNDLE, "environment": "Sandbox"}},
        "summary": {"notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "notificationUUID": "u-4",
                    "signedDate": peer.SIGNED_MS, "summary": {"bundleId": peer.BUNDLE, "environment": "Production"}},
    }
    for name, payload in notifications.items():
        write("app-store-notification", "signed-" + name, b"\x03" + compact(payload).encode())
        write("app-store-notification", "plain-" + name, b"\x01" + compact(payload).encode())


# --- jwks, play-push --------------------------------------------------------------------------
def google_seeds():
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()
    n = numbers.n.to_bytes(256, "big")
    jwks = {"keys": [{"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig", "n": b64u(n), "e": "AQAB"},
                     {"kty": "EC", "kid": "k2", "crv": "P-256", "x": "AA", "y": "AA"}]}
    claims = {"iss": "https://accounts.google.com", "aud": "https://badges.example.net/webhooks/google",
              "email": "push@example.iam.gserviceaccount.com", "email_verified": True, "iat": NOW - 5, "exp": NOW + 3600,
              "sub": "1"}
    signing_input = b64u(compact({"alg": "RS256", "kid": "k1", "typ": "JWT"}).encode()) + "." + b64u(compact(claims).encode())
    token = signing_input + "." + b64u(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))
    write("jwks", "valid", f"Bearer {token}\npublic, max-age=19830, must-revalidate\n{compact(jwks)}")
    write("jwks", "no-max-age", f"bearer {token}\nno-cache\n{compact(jwks)}")
    write("jwks", "empty", "\n\n{\"keys\":[]}")
    write("play-push", "claims", compact(claims))
    notifications = {
        "voided": {"version": "1.0", "packageName": "chat.simplex.app", "eventTimeMillis": "1767225600000",
                   "voidedPurchaseNotification": {"purchaseToken": "tok", "orderId": "GPA.1", "productType": 2, "refundType": 1}},
        "subscription": {"version": "1.0", "packageName": "chat.simplex.app",
                         "subscriptionNotification": {"version": "1.0", "notificationType": 12, "purchaseToken": "tok"}},
        "test": {"version": "1.0", "packageName": "chat.simplex.app", "testNotification": {"version": "1.0"}},
        "one-time": {"packageName": "chat.simplex.app", "oneTimeProductNotification": {"purchaseToken": "t", "sku": "s"}},
    }
    for name, notification in notifications.items():
        push = {"message": {"attributes": {}, "data": base64.b64encode(compact(notification).encode()).decode(),
                            "messageId": "136969346945", "message_id": "136969346945",
                            "publishTime": "2026-01-01T00:00:00Z"},
                "subscription": "projects/p/subscriptions/s"}
        write("play-push", name, compact(push))


# --- webhook-signatures -----------------------------------------------------------------------
def webhook_seeds():
    events = {
        "completed": {"id": "evt_1", "type": "checkout.session.completed",
                      "data": {"object": {"id": "cs_1", "payment_status": "paid", "client_reference_id": "inv_1",
                                          "amount_total": 500, "currency": "usd", "payment_intent": "pi_1"}}},
        "expired": {"id": "evt_2", "type": "checkout.session.expired", "data": {"object": {"id": "cs_2"}}},
        "failed": {"id": "evt_3", "type": "checkout.session.async_payment_failed", "data": {"object": {"id": "cs_3"}}},
        "refunded": {"id": "evt_4", "type": "charge.refunded", "data": {"object": {"payment_intent": "pi_1", "refunded": True}}},
        "btcpay": {"deliveryId": "d1", "originalDeliveryId": "d0", "type": "InvoiceSettled", "invoiceId": "i1", "storeId": "s1"},
    }
    for name, event in events.items():
        body = compact(event).encode()
        stripe_mac = hmac.new(SECRET, f"{NOW}.".encode() + body, hashlib.sha256).hexdigest()
        btcpay_mac = hmac.new(SECRET, body, hashlib.sha256).hexdigest()
        write("webhook-signatures", "signed-" + name, b"\x01\n" + body)
        write("webhook-signatures", "stripe-" + name, b"\x00" + f"t={NOW},v1={stripe_mac},v0=00".encode() + b"\n" + body)
        write("webhook-signatures", "btcpay-" + name, b"\x00" + f"sha256={btcpay_mac}".encode() + b"\n" + body)


# --- ini-configuration ------------------------------------------------------------------------
def ini_seeds():
    with open(os.path.join(ROOT, "contrib", "badge-service.ini"), "rb") as f:
        write("ini-configuration", "contrib", f.read())
    write("ini-configuration", "all-sections", "\ufeff[server]\r\nlisten = [::1]:8443\r\nworkers = 4\r\nmax_body = 64 KiB\r\n"
          "head_timeout = 10s\r\n[limits]\nqueue_per_address=512\n[database]\nurl = 'postgresql://badges@db/badges'\n"
          "busy_timeout_ms = 5000\n[rpc]\nfront_token = \"abcdefghijklmnopqrstuvwxyz0123456789\"\n[apple]\nbundle_id = chat.simplex.app\n"
          "[google]\npackage_name = chat.simplex.app\npush_audience = https://badges.example.net/webhooks/google\n"
          "[stripe]\nsecret_key = sk_test_1\nsuccess_url = https://example.net/ok\n[btcpay]\nurl = https://btcpay.example.net\n"
          "speed_policy = MediumSpeed\n[wallet]\nstore_fee_percent = 30\n[development]\ncredit_test_purchases = true\n")
    write("ini-configuration", "mistakes", "key = outside\n[server\n[]\n[server]\nlisten = x # comment\nlisten = y\n"
          "= nothing\n[unknown]\n[server]\nworkers = 'unterminated\nport = \"a\"b\"\n")


if __name__ == "__main__":
    only = set(sys.argv[1:])  # names of the functions below; all when none is given
    for make in (json_seeds, jtd_seeds, http_seeds, sf_seeds, base64_seeds, webhook_seeds, ini_seeds, verifier_seeds,
                 appstore_seeds, google_seeds):
        if not only or make.__name__ in only:
            make()
