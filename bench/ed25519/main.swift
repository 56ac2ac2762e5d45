// Ed25519 verification on one core: the Swift verification (`Ed25519Verification`, through the
// same buffer handling as `isValidSignature`) against OpenSSL's EVP verify
// (`isValidSignatureOpenSSL`: a raw key object, a context and `EVP_DigestVerify`, as the service
// called it before), in the same run, in alternating rounds so both see the same neighbours.
// The Swift one is adopted only at >= 1.5x (issue 17).
import Crypto
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let rounds = Int(arguments.first ?? "") ?? 60
let perRound = 250

/// A signed request's signature base is a few hundred bytes.
let key = Ed25519PrivateKey()
let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
let signature = key.signature(for: message)
let publicKey = key.publicKey

/// The Swift verification, as `isValidSignature` calls it.
func swiftVerify() -> Bool {
    message.withUnsafeBytes { m in
        publicKey.raw.withUnsafeBytes { k in
            signature.withUnsafeBytes { Ed25519Verification.isValid(signature: $0, message: m, publicKey: k) }
        }
    }
}
precondition(swiftVerify() && publicKey.isValidSignatureOpenSSL(signature, for: message))

// `ed25519-bench swift N` / `ed25519-bench openssl N`: exactly N verifications of one kind, for
// instruction counts under callgrind (they do not move with the neighbours' load).
if arguments.count == 2, let count = Int(arguments[1]), ["swift", "openssl"].contains(arguments[0]) {
    var accepted = 0
    for _ in 0..<count where arguments[0] == "swift" ? swiftVerify() : publicKey.isValidSignatureOpenSSL(signature, for: message) {
        accepted += 1
    }
    print("\(accepted) of \(count) accepted")
    exit(accepted == count ? 0 : 1)
}

/// Microseconds per verification over one round.
func round(_ verify: () -> Bool) -> Double {
    var accepted = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<perRound where verify() { accepted += 1 }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    precondition(accepted == perRound)
    return Double(elapsed) / 1_000 / Double(perRound)
}

var swift: [Double] = [], openSSL: [Double] = []
for _ in 0..<rounds {
    swift.append(round(swiftVerify))
    openSSL.append(round { publicKey.isValidSignatureOpenSSL(signature, for: message) })
}
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
func f(_ x: Double) -> String { String(format: "%.1f", x) }
// Each round's pair ran back to back, so their ratio sees the same neighbours; its median is
// the figure least moved by the load on a shared machine.
let ratioPaired = median(zip(openSSL, swift).map { $0 / $1 }), ratioBest = openSSL.min()! / swift.min()!
print("Ed25519 verify, 300-byte message, one thread, \(rounds) alternating rounds of \(perRound) (µs per verify, median / best)")
print("  Swift (Ed25519Verification)           \(f(median(swift))) / \(f(swift.min()!))   \(String(format: "%.0f", 1e6 / median(swift))) /s")
print("  OpenSSL EVP (isValidSignatureOpenSSL) \(f(median(openSSL))) / \(f(openSSL.min()!))   \(String(format: "%.0f", 1e6 / median(openSSL))) /s")
print("  speed-up: \(String(format: "%.2f", ratioPaired))× (median of paired rounds), \(String(format: "%.2f", ratioBest))× (best round each)   (gate >= 1.50)")
