"""Google service-account OAuth peer for GooglePlayTests (google-auth from PyPI, pinned).

  keygen                      -> JSON {"key": <service-account JSON text>, "public_pem": ...}
  verify AUDIENCE PUBLIC_PEM  (assertion on stdin) -> JSON {"header": ..., "claims": ...}
                                 google.auth.jwt.decode with signature, audience and expiry checks
  assertion AUDIENCE          (key JSON on stdin) -> JSON claims google-auth's own
                                 service_account.Credentials puts in its assertion
  jwks KID                    (private PEM on stdin) -> the JWK Set of its public key under KID
  idtoken KID                 (JSON {"private_pem", "claims", "header"?} on stdin) -> a token signed
                                 by google-auth's RSASigner and jwt.encode (Pub/Sub push OIDC tokens)
  verify-id-token CERTS_URL AUDIENCE  (token on stdin) -> JSON {"ok": bool, "error"?, "claims"?}:
                                 google.oauth2.id_token.verify_token against CERTS_URL, then the
                                 issuer check of verify_oauth2_token
"""
import json
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.auth import jwt
from google.oauth2 import service_account

SCOPE = "https://www.googleapis.com/auth/androidpublisher"


def keygen():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    info = {
        "type": "service_account", "project_id": "badge-test", "private_key_id": "k-test-0001",
        "private_key": private_pem, "client_email": "badges@badge-test.iam.gserviceaccount.com",
        "client_id": "1234567890", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token", "universe_domain": "googleapis.com",
    }
    print(json.dumps({"key": json.dumps(info), "public_pem": public_pem}))


def verify(audience, public_pem_path):
    assertion = sys.stdin.read().strip()
    with open(public_pem_path) as f:
        public_pem = f.read()
    claims = jwt.decode(assertion, certs=public_pem, verify=True, audience=audience)
    header = jwt.decode_header(assertion)
    print(json.dumps({"header": header, "claims": claims}))


def assertion(audience):
    info = json.loads(sys.stdin.read())
    credentials = service_account.Credentials.from_service_account_info(info, scopes=[SCOPE])
    made = credentials._make_authorization_grant_assertion()
    if jwt.decode(made, verify=False)["aud"] != audience:
        sys.exit("google-auth's assertion names another audience")
    if isinstance(made, bytes):
        made = made.decode()
    print(json.dumps({"header": jwt.decode_header(made), "claims": jwt.decode(made, verify=False)}))


def jwks(kid):
    import base64
    key = serialization.load_pem_private_key(sys.stdin.read().encode(), None)
    numbers = key.public_key().public_numbers()

    def b64(n):
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    print(json.dumps({"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": b64(numbers.n),
                                "e": b64(numbers.e)}]}))


def idtoken(kid):
    from google.auth import crypt
    request = json.loads(sys.stdin.read())
    signer = crypt.RSASigner.from_string(request["private_pem"], key_id=kid)
    token = jwt.encode(signer, request["claims"], header=request.get("header"))
    sys.stdout.write(token.decode() if isinstance(token, bytes) else token)


def verify_id_token(certs_url, audience):
    import google.auth.transport.requests
    from google.oauth2 import id_token
    token = sys.stdin.read().strip()
    try:
        claims = id_token.verify_token(token, google.auth.transport.requests.Request(), audience=audience,
                                       certs_url=certs_url)
        if claims.get("iss") not in ["accounts.google.com", "https://accounts.google.com"]:
            raise ValueError("Wrong issuer")
        print(json.dumps({"ok": True, "claims": claims}))
    except Exception as error:  # every refusal google-auth or PyJWT raises
        print(json.dumps({"ok": False, "error": type(error).__name__ + ": " + str(error)}))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "keygen":
        keygen()
    elif command == "verify":
        verify(sys.argv[2], sys.argv[3])
    elif command == "assertion":
        assertion(sys.argv[2])
    elif command == "jwks":
        jwks(sys.argv[2])
    elif command == "idtoken":
        idtoken(sys.argv[2])
    elif command == "verify-id-token":
        verify_id_token(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown command " + command)
