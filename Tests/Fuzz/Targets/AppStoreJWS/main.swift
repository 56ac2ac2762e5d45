import AppStore
import AppStoreSigning
import FuzzSupport

/// A signed App Store transaction as a client presents it (`AppStoreVerifier.verdict`): the
/// compact JWS split, base64url parts, JSON header and payload, the claim read before
/// verification, the x5c chain (standard base64, DER certificates parsed by OpenSSL) verified to
/// the configured root at the payload's `signedDate`, the ES256 signature, then the
/// transaction's fields. The first byte picks how the rest is used:
///
/// - even: the JWS text as it is (the splitting and chain decoding, never a valid signature);
/// - odd, bit 1 clear: the payload, signed by the test PKI's leaf with the genuine header, so
///   the payload decoding behind the signature check is reached;
/// - odd, bit 1 set: a header line and the payload, signed by the leaf (fuzzed `alg`, `x5c`).
///
/// Bit 2 sets the Sandbox-crediting switch. Beyond not crashing: a verified transaction is for
/// the configured bundle, is the one claimed, and has quantity 1.
let signer = AppStoreSigner()
let roots = AppleRootCertificates(der: [signer.rootDER])!
let verifiers = [AppStoreVerifier(roots: roots, bundleId: signer.bundleId),
                 AppStoreVerifier(roots: roots, bundleId: signer.bundleId, creditsSandbox: true)]

fuzzMain { bytes in
    var input = FuzzInput(bytes)
    let mode = input.byte()
    let rest = Array(input.rest)
    let text: String
    if mode & 1 == 0 {
        text = lossyText(rest)
    } else if mode & 2 == 0 {
        text = signer.jws(payload: rest)
    } else {
        let newline = rest.firstIndex(of: 0x0A) ?? rest.count
        text = signer.jws(payload: newline < rest.count ? Array(rest[(newline + 1)...]) : [], header: Array(rest[..<newline]))
    }
    let verifier = verifiers[Int(mode >> 2 & 1)]
    guard case .verified(let transaction, let claim) = verifier.verdict(onTransaction: text) else { return }
    guard transaction.bundleId == signer.bundleId, transaction.transactionId == claim.transactionId, transaction.quantity == 1,
          (try? AppStoreClaim.read(text)) == claim
    else { fatalError("verified a transaction that is not the one claimed for this bundle: \(transaction)") }
}
