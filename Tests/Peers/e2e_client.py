"""An independent client for the end-to-end tests: `requests` sends, PyPI
http-message-signatures 3.0.0 signs (RFC 9421, ed25519, Content-Digest via body=).

stdin:  {"cases": [{"url", "body": <JSON text>, "seed_hex"?: 32-byte Ed25519 seed (fresh key if absent),
                    "sign": bool, "tamper": bool (flip one body byte after signing)}]}
stdout: {"cases": [{"status", "retry_after"?, "body": <text>, "purchase_key"}]}
"""
import base64
import datetime
import json
import sys

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from http_message_signatures import HTTPMessageSigner, MappingKeyResolver, algorithms


def purchase_key(private_key):
    der = private_key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.urlsafe_b64encode(der).decode("ascii")


def run(case, session):
    key = (Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["seed_hex"])) if "seed_hex" in case
           else Ed25519PrivateKey.generate())
    keyid = purchase_key(key)
    body = case["body"].replace("$PURCHASE_KEY", keyid).encode("utf-8")
    request = requests.Request("POST", case["url"], data=body, headers={"Content-Type": "application/json"}).prepare()
    if case.get("sign", True):
        signer = HTTPMessageSigner(signature_algorithm=algorithms.ED25519,
                                   key_resolver=MappingKeyResolver(public_keys={}, private_keys={keyid: key}))
        signer.sign(request, key_id=keyid, covered_component_ids=("@method", "@authority", "@path", "content-type"),
                    label="sig1", created=datetime.datetime.now(tz=datetime.timezone.utc), include_alg=True, body=body)
    if case.get("tamper"):
        flipped = bytearray(request.body)
        i = flipped.index(b'"version":1') + len(b'"version":')
        flipped[i] = ord("2") if flipped[i] == ord("1") else ord("1")
        request.body = bytes(flipped)
    response = session.send(request, timeout=30)
    out = {"status": response.status_code, "body": response.text, "purchase_key": keyid,
           "content_type": response.headers.get("Content-Type")}
    if "Retry-After" in response.headers:
        out["retry_after"] = response.headers["Retry-After"]
    return out


def main():
    cases = json.load(sys.stdin)["cases"]
    with requests.Session() as session:
        json.dump({"cases": [run(c, session) for c in cases]}, sys.stdout)


if __name__ == "__main__":
    main()
