"""Schemathesis hook that signs POST /rpc requests the way the service expects (README, Request
authentication): RFC 9421 with PyPI http-message-signatures, algorithm ed25519, a fresh Ed25519
key per run, keyid = the purchase key (base64url, padded, of the 44-byte SubjectPublicKeyInfo
DER), covering "@method", "@authority", "@path" and the RFC 9530 Content-Digest of the exact
bytes sent.

Which requests are signed follows the generated envelope: when it carries a `purchaseKey`, the
hook replaces it with this run's key and signs, so signed commands reach their handlers; when it
has none, the request goes unsigned (the catalog is answered, every other command is refused
with 401). Bodies that are not objects are sent as generated.

Load with SCHEMATHESIS_HOOKS=schemathesis_hooks and this directory on PYTHONPATH.
"""
import base64
import datetime
import os

import requests
import schemathesis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from http_message_signatures import HTTPMessageSigner, MappingKeyResolver, algorithms

KEY = Ed25519PrivateKey.generate()
KEYID = base64.urlsafe_b64encode(
    KEY.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
).decode("ascii")
SIGNER = HTTPMessageSigner(
    signature_algorithm=algorithms.ED25519,
    key_resolver=MappingKeyResolver(public_keys={}, private_keys={KEYID: KEY}),
)


class RFC9421Auth(requests.auth.AuthBase):
    """Signs the prepared request, so the digest covers exactly the bytes requests sends."""

    def __call__(self, request):
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode("utf-8")
        SIGNER.sign(request, key_id=KEYID, covered_component_ids=("@method", "@authority", "@path"),
                    label="sig1", created=datetime.datetime.now(tz=datetime.timezone.utc), include_alg=True, body=body)
        return request


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path != "/rpc" or case.method.upper() != "POST":
        return
    if isinstance(case.body, dict) and "purchaseKey" in case.body:
        case.body["purchaseKey"] = KEYID
        command = case.body.get("request")
        # A generated masterKey is rarely 32 bytes of base64url, which every command checks
        # before its own rules; a valid one lets the command reach them.
        if isinstance(command, dict) and isinstance(command.get("masterKey"), str):
            command["masterKey"] = base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")
        kwargs["auth"] = RFC9421Auth()


# The methods the HTTP layer implements (Sources/HTTPServer/Parser/HTTPGrammar.swift, knownMethods);
# any other (TRACE, CONNECT, QUERY, …) is answered 501 on every path (RFC 9110 section 9.1).
IMPLEMENTED = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"}


@schemathesis.check
def undeclared_method_refused(ctx, response, case):
    """A method the document does not declare on a path is refused: 405 with `Allow` listing the
    declared ones (HEAD beside GET, as the router serves it), or 501 for a method the HTTP layer
    implements nowhere."""
    method = (response.request.method or "").upper()
    declared = {m.upper() for m in case.operation.schema.raw_schema["paths"][case.operation.path]
                if m.lower() in ("get", "put", "post", "delete", "options", "head", "patch", "trace")}
    if "GET" in declared:
        declared.add("HEAD")
    if method in declared or method == "OPTIONS":
        return None
    if method not in IMPLEMENTED:
        assert response.status_code == 501, f"{method} returned {response.status_code}, expected 501"
        return None
    assert response.status_code == 405, f"undeclared {method} returned {response.status_code}, expected 405"
    allow = {m.strip().upper() for m in response.headers.get("allow", [""])[0].split(",") if m.strip()}
    assert allow == declared, f"405 with Allow {sorted(allow)}, expected {sorted(declared)}"
    return None
