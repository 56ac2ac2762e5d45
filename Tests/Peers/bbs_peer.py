"""Independent BBS (draft-irtf-cfrg-bbs-signatures -06..-09, BLS12-381-SHA-256) verifier for
SimpleX badge credentials, written for the tests on top of pyblst's curve primitives (blst):
point decoding, hash_to_group (RFC 9380 G1 RO), scalar multiplication, Miller loop and final
verification. Everything BBS-specific (expand_message_xmd, hash_to_scalar, generators, domain,
the badge message layout, the verification equation) is implemented here from the draft.

stdin:  {"publicKey": "<base64url of 96 bytes>", "credentials": [<credential JSON object>, ...]}
stdout: JSON list, one "valid" / "invalid" per credential.
"""
import base64
import datetime
import hashlib
import json
import sys

from pyblst import BlstP1Element, BlstP2Element, final_verify, miller_loop

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
CIPHERSUITE_ID = b"BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_"
API_ID = CIPHERSUITE_ID + b"H2G_HM2S_"
HEADER = b"SimpleX badges v1"
EXPECTED_P1 = "a8ce256102840821a3e94ea9025e4662b205762f9776b3a766c872b948f1fd225e7c59698588e70d11406d161b4e28c9"
BP2 = BlstP2Element.uncompress(bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"))


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def expand_message_xmd(msg, dst, length):
    """RFC 9380 5.3.1 with SHA-256."""
    if len(dst) > 255:
        dst = hashlib.sha256(b"H2C-OVERSIZE-DST-" + dst).digest()
    ell = -(-length // 32)
    assert ell <= 255 and length <= 65535
    dst_prime = dst + bytes([len(dst)])
    b0 = hashlib.sha256(bytes(64) + msg + length.to_bytes(2, "big") + b"\x00" + dst_prime).digest()
    out, prev = b"", bytes(32)
    for i in range(1, ell + 1):
        prev = hashlib.sha256(bytes(x ^ y for x, y in zip(b0, prev)) + bytes([i]) + dst_prime).digest()
        out += prev
    return out[:length]


def hash_to_scalar(msg, dst):
    return int.from_bytes(expand_message_xmd(msg, dst, 48), "big") % R


def create_generators(count, api_id, seed_name=b"MESSAGE_GENERATOR_SEED"):
    seed_dst = api_id + b"SIG_GENERATOR_SEED_"
    gen_dst = api_id + b"SIG_GENERATOR_DST_"
    v = expand_message_xmd(api_id + seed_name, seed_dst, 48)
    gens = []
    for i in range(1, count + 1):
        v = expand_message_xmd(v + i.to_bytes(8, "big"), seed_dst, 48)
        gens.append(BlstP1Element.hash_to_group(v, gen_dst))
    return gens


P1 = create_generators(1, CIPHERSUITE_ID + b"H2G_HM2S_", b"BP_MESSAGE_GENERATOR_SEED")[0]
if P1.compress().hex() != EXPECTED_P1:
    sys.exit("peer self-check failed: P1 differs from the draft's constant")
GENERATORS = create_generators(5, API_ID)  # Q_1, H_1..H_4 for the four badge messages
IDENTITY_G1 = BlstP1Element()


def in_g1(point):
    return point.scalar_mul(R) == IDENTITY_G1


def canonical_expiry(text):
    """What a client signs/verifies: Haskell iso8601Show of the parsed UTCTime."""
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(datetime.timezone.utc)
    whole = t.strftime("%Y-%m-%dT%H:%M:%S")
    frac = ("%06d" % t.microsecond).rstrip("0")
    return whole + ("." + frac if frac else "") + "Z"


def verify(pk_bytes, credential):
    info = credential["badgeInfo"]
    master = b64url(credential["masterKey"])
    signature = b64url(credential["signature"])
    if len(master) != 32 or len(signature) != 80:
        return False
    messages = [master, canonical_expiry(info["badgeExpiry"]).encode(),
                info["badgeType"].encode("utf-8"), info["badgeExtra"].encode("utf-8")]
    try:
        a = BlstP1Element.uncompress(signature[:48])
        w = BlstP2Element.uncompress(pk_bytes)
    except Exception:
        return False
    e = int.from_bytes(signature[48:], "big")
    if a == IDENTITY_G1 or not in_g1(a) or not 0 < e < R:
        return False
    q1, hs = GENERATORS[0], GENERATORS[1:1 + len(messages)]
    dom_input = (pk_bytes + len(messages).to_bytes(8, "big") + q1.compress() + b"".join(h.compress() for h in hs)
                 + API_ID + len(HEADER).to_bytes(8, "big") + HEADER)
    domain = hash_to_scalar(dom_input, API_ID + b"H2S_")
    b = P1 + q1.scalar_mul(domain)
    for h, m in zip(hs, messages):
        b = b + h.scalar_mul(hash_to_scalar(m, API_ID + b"MAP_MSG_TO_SCALAR_AS_HASH_"))
    # e(A, W) == e(B - A*e, BP2)  <=>  e(A, W) * e(A*e - B, BP2) == 1
    return final_verify(miller_loop(a, w), miller_loop(b + (-a.scalar_mul(e)), BP2))


def main():
    request = json.load(sys.stdin)
    pk = b64url(request["publicKey"])
    print(json.dumps(["valid" if verify(pk, c) else "invalid" for c in request["credentials"]]))


if __name__ == "__main__":
    main()
