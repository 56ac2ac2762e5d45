"""Independent RFC 9421 peer: PyPI http-message-signatures 3.0.0 as a third-party client would use it.

    rfc9421_peer.py sign    < {"cases": [{url, method, body_b64, content_type?, covered, include_alg, created, label, seed_hex?}]}
    rfc9421_peer.py verify  < {"cases": [{url, method, headers: [[name, value]], body_b64, public_key_hex, max_age_seconds}]}

`sign` makes a requests.PreparedRequest, signs it with `body=` (so the library adds
Content-Digest) and keyid = the purchase key (base64url, padded, of the Ed25519 SPKI DER);
it prints {"cases": [{keyid, public_key_hex, path_url, headers: [[name, value]]}]}.
`verify` runs HTTPMessageVerifier with body= (so the digest is checked too) and prints
{"cases": [{ok, error?, label?, covered?, parameters?}]}; a refusal is data, not an exit code.
"""

import base64
import datetime
import json
import sys

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from http_message_signatures import (
    HTTPMessageSigner,
    HTTPMessageVerifier,
    InvalidSignature,
    MappingKeyResolver,
    algorithms,
)
from http_message_signatures.exceptions import HTTPMessageSignaturesException


def purchase_key(public_key: Ed25519PublicKey) -> str:
    der = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert len(der) == 44
    return base64.urlsafe_b64encode(der).decode("ascii")


def raw_hex(public_key: Ed25519PublicKey) -> str:
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def sign(case):
    if "seed_hex" in case:
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["seed_hex"]))
    else:
        key = Ed25519PrivateKey.generate()
    keyid = purchase_key(key.public_key())
    body = base64.b64decode(case["body_b64"])
    headers = {}
    if case.get("content_type") is not None:
        headers["Content-Type"] = case["content_type"]
    request = requests.Request(case["method"], case["url"], data=body, headers=headers).prepare()
    signer = HTTPMessageSigner(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys={}, private_keys={keyid: key}),
    )
    signer.sign(
        request,
        key_id=keyid,
        covered_component_ids=tuple(case["covered"]),
        label=case.get("label", "sig1"),
        created=datetime.datetime.fromtimestamp(case["created"], tz=datetime.timezone.utc),
        include_alg=case["include_alg"],
        body=body,
    )
    return {
        "keyid": keyid,
        "public_key_hex": raw_hex(key.public_key()),
        "path_url": request.path_url,
        "headers": [[name, value] for name, value in request.headers.items()],
    }


def verify(case):
    body = base64.b64decode(case["body_b64"])
    public_key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(case["public_key_hex"]))
    keyid = purchase_key(public_key)
    request = requests.Request(case["method"], case["url"], data=body).prepare()
    # Exactly the received field lines, as a server would see them.
    request.headers.clear()
    for name, value in case["headers"]:
        request.headers[name] = value
    verifier = HTTPMessageVerifier(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys={keyid: public_key}, private_keys={}),
    )
    try:
        results = verifier.verify(
            request,
            max_age=datetime.timedelta(seconds=case.get("max_age_seconds", 300)),
            require_components=("@method", "@authority", "@path", "content-digest"),
            body=body,
        )
    except (InvalidSignature, HTTPMessageSignaturesException) as e:
        return {"ok": False, "error": str(e)}
    result = results[0]
    return {
        "ok": True,
        "label": result.label,
        "covered": list(result.covered_components),
        "parameters": result.parameters,
    }


def main():
    command = sys.argv[1]
    cases = json.load(sys.stdin)["cases"]
    handler = {"sign": sign, "verify": verify}[command]
    json.dump({"cases": [handler(case) for case in cases]}, sys.stdout)


if __name__ == "__main__":
    main()
