"""Times blst (through pyblst) on the operations bbs-bench measures; prints microseconds as
`g1_mul_us=… g2_mul_us=… pairing_us=…`. Python call overhead (about a microsecond) is included."""
import timeit

import pyblst

G1 = pyblst.BlstP1Element.uncompress(bytes.fromhex(
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"))
G2 = pyblst.BlstP2Element.uncompress(bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"))
P = G1.scalar_mul(12345)
Q = G2.scalar_mul(12345)
K = int.from_bytes(bytes([0x5A] * 31 + [0x17]), "big")  # the scalar bbs-bench uses (< r)


def per_call(fn, budget=1.0):
    fn()
    n, t = 1, 0.0
    while True:
        t = timeit.timeit(fn, number=n)
        if t >= budget:
            return t / n
        n *= 2


ML = pyblst.miller_loop(P, Q)
ONE = pyblst.miller_loop(pyblst.BlstP1Element(), Q)  # the identity pairs to 1
g1 = per_call(lambda: P.scalar_mul(K))
g2 = per_call(lambda: Q.scalar_mul(K))
# One pairing: a Miller loop plus one final exponentiation (final_verify(a, b) exponentiates a/b).
pairing = per_call(lambda: pyblst.final_verify(pyblst.miller_loop(P, Q), ONE))
print("g1_mul_us=%.1f g2_mul_us=%.1f pairing_us=%.1f" % (g1 * 1e6, g2 * 1e6, pairing * 1e6))
