"""Google service-account OAuth peer for GooglePlayTests (google-auth from PyPI, pinned).

  keygen                      -> JSON {"key": <service-account JSON text>, "public_pem": ...}
  verify AUDIENCE PUBLIC_PEM  (assertion on stdin) -> JSON {"header": ..., "claims": ...}
                                 google.auth.jwt.decode with signature, audience and expiry checks
  assertion AUDIENCE          (key JSON on stdin) -> JSON claims google-auth's own
                                 service_account.Credentials puts in its assertion
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


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "keygen":
        keygen()
    elif command == "verify":
        verify(sys.argv[2], sys.argv[3])
    elif command == "assertion":
        assertion(sys.argv[2])
    else:
        sys.exit("unknown command " + command)
