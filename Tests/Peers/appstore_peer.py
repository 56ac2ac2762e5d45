"""App Store test PKI and peer verifier (tests only).

Makes a throw-away certificate hierarchy shaped like Apple's (stores.md A5/A6: the receipt
signing marker 1.2.840.113635.100.6.11.1 on the leaf, 1.2.840.113635.100.6.2.1 on the
intermediate, both non-critical), signs App Store transactions as StoreKit 2 does (compact
JWS, ES256, raw R||S, x5c leaf/intermediate/root), and judges every JWS with Apple's own
`app-store-server-library` (SignedDataVerifier, offline), the independent peer of
Tests/AppStoreTests.

  appstore_peer.py corpus     -> JSON on stdout: roots (base64 DER), bundleId, variants
                                 [{name, jws, peer}], peer = "OK" or the peer's failure
  appstore_peer.py pki DIR    -> a fresh PKI in DIR: root.der, root.pem, intermediate.der,
                                 leaf.der, leaf-key.pem
  appstore_peer.py sign DIR   -> stdin: a payload JSON object; stdout: its JWS signed by DIR's leaf
  appstore_peer.py apikey DIR -> an App Store Connect-like key in DIR: key.p8 (PKCS#8 PEM, P-256), key.pub.pem
  appstore_peer.py token PUB  -> stdin: an App Store Server API bearer token; stdout: {"header", "claims"}
                                 as PyJWT reads them, verified with PUB (PEM) for audience appstoreconnect-v1
"""
import base64
import datetime
import json
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.x509.oid import NameOID, ObjectIdentifier

LEAF_MARKER = ObjectIdentifier("1.2.840.113635.100.6.11.1")
INTERMEDIATE_MARKER = ObjectIdentifier("1.2.840.113635.100.6.2.1")
DER_NULL = b"\x05\x00"
BUNDLE = "chat.simplex.badges.test"
APP_APPLE_ID = 1234567890
# signedDate of every variant: 2026-11-01T00:00:00Z, in milliseconds.
SIGNED_MS = 1793491200000


def at(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Badge Test PKI")])


def cert(subject_cn, subject_key, issuer_cn, issuer_key, issuer_cert, *, ca, pathlen=None, markers=(),
         critical_markers=False, not_before=None, not_after=None, aki=True, ski=True):
    day = datetime.timedelta(days=1)
    b = (x509.CertificateBuilder()
         .subject_name(name(subject_cn)).issuer_name(name(issuer_cn))
         .public_key(subject_key.public_key())
         .serial_number(x509.random_serial_number())
         .not_valid_before(not_before or at(SIGNED_MS) - 300 * day)
         .not_valid_after(not_after or at(SIGNED_MS) + 300 * day)
         .add_extension(x509.BasicConstraints(ca=ca, path_length=pathlen if ca else None), critical=True))
    if ca:
        b = b.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    else:
        b = b.add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
    if ski:
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False)
    if aki and issuer_key is not subject_key:
        b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    for oid in markers:
        b = b.add_extension(x509.UnrecognizedExtension(oid, DER_NULL), critical=critical_markers)
    return b.sign(issuer_key, hashes.SHA256())


def der(c):
    return c.public_bytes(serialization.Encoding.DER)


class PKI:
    """Root → intermediate → leaf, Apple's profile."""

    def __init__(self, root_cn="Badge Test Root", leaf_curve=ec.SECP256R1(), **leaf_options):
        self.root_key = ec.generate_private_key(ec.SECP384R1())
        self.root = cert(root_cn, self.root_key, root_cn, self.root_key, None, ca=True)
        self.intermediate_key = ec.generate_private_key(ec.SECP384R1())
        self.intermediate = cert("Badge Test WWDR", self.intermediate_key, root_cn, self.root_key, self.root, ca=True,
                                 pathlen=0, markers=(INTERMEDIATE_MARKER,))
        self.leaf_key = ec.generate_private_key(leaf_curve)
        options = dict(markers=(LEAF_MARKER,))
        options.update(leaf_options)
        self.leaf = cert("Badge Test Receipt Signing", self.leaf_key, "Badge Test WWDR", self.intermediate_key,
                         self.intermediate, ca=False, **options)

    def x5c(self):
        return [base64.b64encode(der(c)).decode() for c in (self.leaf, self.intermediate, self.root)]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_signature(key, message, size=32):
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def jws(payload, pki, *, header=None, signer=None, signature=None, alg="ES256"):
    head = header if header is not None else {"alg": alg, "x5c": pki.x5c(), "typ": "JWT"}
    head_part = b64url(json.dumps(head, separators=(",", ":")).encode())
    body = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode()
    signing_input = (head_part + "." + b64url(body)).encode()
    if signature is None:
        signature = raw_signature(signer or pki.leaf_key, signing_input)
    elif callable(signature):
        signature = signature(signing_input)
    return signing_input.decode() + "." + (signature if isinstance(signature, str) else b64url(signature))


def transaction(**changes):
    p = {
        "transactionId": "2000000876543210", "originalTransactionId": "2000000876543210",
        "webOrderLineItemId": "2000000012345678", "bundleId": BUNDLE, "productId": "BADGE_SUPPORTER_01",
        "purchaseDate": SIGNED_MS - 60000, "originalPurchaseDate": SIGNED_MS - 60000, "quantity": 1,
        "type": "Consumable", "inAppOwnershipType": "PURCHASED", "signedDate": SIGNED_MS,
        "environment": "Production", "transactionReason": "PURCHASE", "storefront": "USA",
        "storefrontId": "143441", "price": 6990, "currency": "USD",
    }
    for k, v in changes.items():
        if v is None:
            p.pop(k, None)
        else:
            p[k] = v
    return p


def subscription(**changes):
    # Ids of their own: a subscription never shares a transaction id with a one-time purchase.
    base = dict(transactionId="2000000876549999", originalTransactionId="2000000876540001",
                type="Auto-Renewable Subscription", productId="SUBSCR_BADGE_SUPPORTER_MONTH_01",
                subscriptionGroupIdentifier="21000001", expiresDate=SIGNED_MS + 30 * 86400000)
    base.update(changes)
    return transaction(**base)


def variants():
    pki = PKI()
    other = PKI(root_cn="Unconfigured Root")
    day = 86400000
    nl = PKI(markers=())  # leaf without its marker
    crit = PKI(critical_markers=True, markers=(LEAF_MARKER,))
    p384 = PKI(leaf_curve=ec.SECP384R1())
    expired = PKI(not_before=at(SIGNED_MS - 400 * day), not_after=at(SIGNED_MS - day))
    later = PKI(not_before=at(SIGNED_MS + day), not_after=at(SIGNED_MS + 300 * day))
    expiring = PKI(not_before=at(SIGNED_MS - 10 * day), not_after=at(SIGNED_MS + 14 * day))  # expired by now, valid then

    # The intermediate lacks its marker: rebuild the middle of `pki`'s chain.
    no_int_marker = PKI()
    no_int_marker.intermediate = cert("Badge Test WWDR", no_int_marker.intermediate_key, "Badge Test Root",
                                      pki.root_key, pki.root, ca=True, pathlen=0)
    no_int_marker.root, no_int_marker.root_key = pki.root, pki.root_key
    no_int_marker.leaf = cert("Badge Test Receipt Signing", no_int_marker.leaf_key, "Badge Test WWDR",
                              no_int_marker.intermediate_key, no_int_marker.intermediate, ca=False, markers=(LEAF_MARKER,))
    # A leaf that names the right intermediate but was signed by another key.
    forged_leaf = PKI()
    forged_leaf.root, forged_leaf.intermediate = pki.root, pki.intermediate
    impostor = ec.generate_private_key(ec.SECP384R1())
    forged_leaf.leaf = cert("Badge Test Receipt Signing", forged_leaf.leaf_key, "Badge Test WWDR", impostor, None,
                            ca=False, markers=(LEAF_MARKER,))
    forged_leaf.leaf = x509.load_der_x509_certificate(der(forged_leaf.leaf))
    # Same AKI as the genuine intermediate, so only the signature is wrong.
    b = (x509.CertificateBuilder().subject_name(name("Badge Test Receipt Signing")).issuer_name(name("Badge Test WWDR"))
         .public_key(forged_leaf.leaf_key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(at(SIGNED_MS) - datetime.timedelta(days=300))
         .not_valid_after(at(SIGNED_MS) + datetime.timedelta(days=300))
         .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
         .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
         .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(pki.intermediate_key.public_key()), critical=False)
         .add_extension(x509.UnrecognizedExtension(LEAF_MARKER, DER_NULL), critical=False))
    forged_leaf.leaf = b.sign(impostor, hashes.SHA256())
    # An intermediate that is not a CA.
    not_ca = PKI()
    not_ca.root, not_ca.root_key = pki.root, pki.root_key
    not_ca.intermediate = cert("Badge Test WWDR", not_ca.intermediate_key, "Badge Test Root", pki.root_key, pki.root,
                               ca=False, markers=(INTERMEDIATE_MARKER,))
    not_ca.leaf = cert("Badge Test Receipt Signing", not_ca.leaf_key, "Badge Test WWDR", not_ca.intermediate_key,
                       not_ca.intermediate, ca=False, markers=(LEAF_MARKER,))

    # A leaf another PKI issued, presented with this PKI's intermediate and root.
    foreign_leaf = PKI()
    foreign_leaf.root, foreign_leaf.intermediate = pki.root, pki.intermediate
    foreign_leaf.leaf, foreign_leaf.leaf_key = other.leaf, other.leaf_key
    # A leaf whose signature is RSA, which the intermediate's EC key cannot check.
    rsa_signed = PKI()
    rsa_signed.root, rsa_signed.intermediate = pki.root, pki.intermediate
    rsa_signed.leaf = cert("Badge Test Receipt Signing", rsa_signed.leaf_key, "Badge Test WWDR",
                           rsa.generate_private_key(public_exponent=65537, key_size=2048), None, ca=False,
                           markers=(LEAF_MARKER,), aki=False)
    # A leaf whose key is Ed25519, a key type ES256 cannot use.
    ed_leaf = PKI()
    ed_leaf.root, ed_leaf.intermediate = pki.root, pki.intermediate
    ed_leaf.leaf = cert("Badge Test Receipt Signing", ed25519.Ed25519PrivateKey.generate(), "Badge Test WWDR",
                        pki.intermediate_key, pki.intermediate, ca=False, markers=(LEAF_MARKER,))

    # Every chain but `other` and the intermediate-less variants chains to pki.root.
    for p in (nl, crit, p384, expired, later, expiring):
        p.root, p.root_key = pki.root, pki.root_key
        p.intermediate = pki.intermediate
        p.intermediate_key = pki.intermediate_key
    # Re-issue their leaves under the shared intermediate, keeping each one's defect.
    def reissue(p, **opts):
        o = dict(markers=(LEAF_MARKER,))
        o.update(opts)
        p.leaf = cert("Badge Test Receipt Signing", p.leaf_key, "Badge Test WWDR", pki.intermediate_key, pki.intermediate,
                      ca=False, **o)
    reissue(nl, markers=())
    reissue(crit, critical_markers=True)
    reissue(p384)
    reissue(expired, not_before=at(SIGNED_MS - 400 * day), not_after=at(SIGNED_MS - day))
    reissue(later, not_before=at(SIGNED_MS + day), not_after=at(SIGNED_MS + 300 * day))
    reissue(expiring, not_before=at(SIGNED_MS - 10 * day), not_after=at(SIGNED_MS + 14 * day))

    t = transaction()
    x5c = pki.x5c()

    def der_signature(signing_input):
        return pki.leaf_key.sign(signing_input, ec.ECDSA(hashes.SHA256()))

    def high_s(signing_input):
        raw = raw_signature(pki.leaf_key, signing_input)
        n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
        s = int.from_bytes(raw[32:], "big")
        return raw[:32] + (n - s).to_bytes(32, "big")

    out = [
        ("valid", jws(t, pki)),
        ("valid_subscription", jws(subscription(), pki)),
        ("sandbox", jws(transaction(environment="Sandbox"), pki)),
        ("sandbox_subscription", jws(subscription(environment="Sandbox"), pki)),
        ("revoked", jws(transaction(revocationDate=SIGNED_MS - 1000, revocationReason=0), pki)),
        ("third_x5c_garbage", jws(t, pki, header={"alg": "ES256", "x5c": x5c[:2] + ["AAAA"]})),
        ("leaf_expired_now_valid_at_signed_date", jws(t, expiring, signer=expiring.leaf_key)),
        ("high_s_signature", jws(t, pki, signature=high_s)),
        ("padded_signature", jws(t, pki) + "=="),
        ("unknown_extra_field", jws(transaction(someNewField={"x": 1}), pki)),
        ("two_parts", "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9"),
        ("four_parts", jws(t, pki) + ".AAAA"),
        ("empty", ""),
        ("not_base64url", jws(t, pki).replace(".", ".!!", 1)),
        ("header_not_json", b64url(b"not json") + "." + jws(t, pki).split(".", 1)[1]),
        ("no_transaction_id", jws(transaction(transactionId=None), pki)),
        ("subscription_no_original_id", jws(subscription(originalTransactionId=None), pki)),
        ("x5c_leaf_not_base64", jws(t, pki, header={"alg": "ES256", "x5c": ["!!!"] + x5c[1:]})),
        ("der_signature", jws(t, pki, signature=der_signature)),
        ("signature_63_bytes", jws(t, pki, signature=lambda m: raw_signature(pki.leaf_key, m)[:63])),
        ("leaf_not_signed_by_intermediate", jws(t, forged_leaf, signer=forged_leaf.leaf_key)),
        ("signed_by_other_key", jws(t, pki, signer=ec.generate_private_key(ec.SECP256R1()))),
        ("unconfigured_root", jws(t, other, signer=other.leaf_key)),
        ("xcode_storekit_testing", jws(transaction(environment="Xcode"), other, signer=other.leaf_key)),
        ("another_bundle", jws(transaction(bundleId="com.example.other"), pki)),
        ("alg_es384", jws(t, pki, alg="ES384")),
        ("x5c_two", jws(t, pki, header={"alg": "ES256", "x5c": x5c[:2]})),
        ("x5c_four", jws(t, pki, header={"alg": "ES256", "x5c": x5c + [x5c[2]]})),
        ("x5c_missing", jws(t, pki, header={"alg": "ES256"})),
        ("x5c_leaf_not_der", jws(t, pki, header={"alg": "ES256", "x5c": ["AAECAwQF"] + x5c[1:]})),
        ("leaf_without_marker", jws(t, nl, signer=nl.leaf_key)),
        ("intermediate_without_marker", jws(t, no_int_marker, signer=no_int_marker.leaf_key)),
        ("leaf_marker_critical", jws(t, crit, signer=crit.leaf_key)),
        ("intermediate_not_ca", jws(t, not_ca, signer=not_ca.leaf_key)),
        ("leaf_p384", jws(t, p384, signature=lambda m: raw_signature(p384.leaf_key, m, 48))),
        ("leaf_expired_at_signed_date", jws(t, expired, signer=expired.leaf_key)),
        ("leaf_not_yet_valid_at_signed_date", jws(t, later, signer=later.leaf_key)),
        ("missing_purchase_date", jws(transaction(purchaseDate=None), pki)),
        ("missing_signed_date", jws(transaction(signedDate=None), pki)),
        ("quantity_string", jws(transaction(quantity="1"), pki)),
        ("purchase_date_string", jws(transaction(purchaseDate="abc"), pki)),
        ("unknown_environment", jws(transaction(environment="Foo"), pki)),
        ("unknown_type", jws(transaction(type="Something-New"), pki)),
        ("quantity_two", jws(transaction(quantity=2), pki)),
        ("x5c_intermediate_not_base64", jws(t, pki, header={"alg": "ES256", "x5c": [x5c[0], "!!!", x5c[2]]})),
        ("x5c_root_not_base64", jws(t, pki, header={"alg": "ES256", "x5c": x5c[:2] + ["!!!"]})),
        ("x5c_intermediate_not_der", jws(t, pki, header={"alg": "ES256", "x5c": [x5c[0], "AAECAwQF", x5c[2]]})),
        ("x5c_root_empty", jws(t, pki, header={"alg": "ES256", "x5c": x5c[:2] + [""]})),
        ("x5c_entry_not_string", jws(t, pki, header={"alg": "ES256", "x5c": x5c[:2] + [5]})),
        ("header_json_array", b64url(b'["ES256"]') + "." + jws(t, pki).split(".", 1)[1]),
        ("alg_missing", jws(t, pki, header={"x5c": x5c})),
        ("alg_none", jws(t, pki, alg="none")),
        ("payload_not_object", jws(b"[1]", pki)),
        ("transaction_id_number", jws(transaction(transactionId=2000000876543210), pki)),
        ("leaf_from_other_pki", jws(t, foreign_leaf, signer=other.leaf_key)),
        ("leaf_signed_with_rsa", jws(t, rsa_signed, signer=rsa_signed.leaf_key)),
        ("leaf_ed25519_key", jws(t, ed_leaf)),
    ]
    return pki, other, out


def peer_verdict(roots, text):
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
    # Run the peer in the environment the payload names (stores.md A6): Apple splits
    # Sandbox and Production by configuration, the service by verdict.
    environment = Environment.PRODUCTION
    try:
        claimed = json.loads(base64.urlsafe_b64decode(text.split(".")[1] + "==")).get("environment")
        if claimed == "Sandbox":
            environment = Environment.SANDBOX
    except Exception:
        pass
    verifier = SignedDataVerifier(roots, False, environment, BUNDLE, APP_APPLE_ID)
    try:
        verifier.verify_and_decode_signed_transaction(text)
        return "OK"
    except VerificationException as e:
        return e.status.name
    except Exception as e:  # the peer's own failure on a mistyped field (cattrs)
        return "EXCEPTION:" + type(e).__name__


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "corpus":
        pki, other, out = variants()
        # Two roots configured, the right one second (A6: any one may anchor).
        roots = [der(PKI(root_cn="Spare Root").root), der(pki.root)]
        result = {
            "bundleId": BUNDLE,
            "roots": [base64.b64encode(r).decode() for r in roots],
            "variants": [{"name": n, "jws": j, "peer": peer_verdict(roots, j)} for n, j in out],
        }
        json.dump(result, sys.stdout)
    elif command == "pki":
        import os
        directory = sys.argv[2]
        pki = PKI()
        for file, data in (("root.der", der(pki.root)), ("root.pem", pki.root.public_bytes(serialization.Encoding.PEM)),
                           ("intermediate.der", der(pki.intermediate)), ("leaf.der", der(pki.leaf)),
                           ("leaf-key.pem", pki.leaf_key.private_bytes(serialization.Encoding.PEM,
                                                                       serialization.PrivateFormat.PKCS8,
                                                                       serialization.NoEncryption()))):
            with open(os.path.join(directory, file), "wb") as f:
                f.write(data)
    elif command == "sign":
        import os
        directory = sys.argv[2]
        pki = PKI.__new__(PKI)
        read = lambda f: open(os.path.join(directory, f), "rb").read()
        pki.root = x509.load_der_x509_certificate(read("root.der"))
        pki.intermediate = x509.load_der_x509_certificate(read("intermediate.der"))
        pki.leaf = x509.load_der_x509_certificate(read("leaf.der"))
        pki.leaf_key = serialization.load_pem_private_key(read("leaf-key.pem"), None)
        sys.stdout.write(jws(json.load(sys.stdin), pki))
    elif command == "apikey":
        import os
        key = ec.generate_private_key(ec.SECP256R1())
        with open(os.path.join(sys.argv[2], "key.p8"), "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        with open(os.path.join(sys.argv[2], "key.pub.pem"), "wb") as f:
            f.write(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))
    elif command == "token":
        import jwt
        token = sys.stdin.read().strip()
        public = serialization.load_pem_public_key(open(sys.argv[2], "rb").read())
        claims = jwt.decode(token, public, algorithms=["ES256"], audience="appstoreconnect-v1",
                            options={"require": ["iss", "iat", "exp", "aud", "bid"]})
        json.dump({"header": jwt.get_unverified_header(token), "claims": claims}, sys.stdout)
    else:
        sys.exit("usage: appstore_peer.py corpus | pki DIR | sign DIR | apikey DIR | token PUB")


if __name__ == "__main__":
    main()
