import BadgeCore
import FuzzSupport
import RequestAuth

/// The whole request authentication on a request built from the input: the RFC 9421 verifier
/// (extraction, parameter, algorithm, key id, covered components, expiry, freshness,
/// Content-Digest, signature base, Ed25519) and the trusted-front rules.
///
/// The input is a request in HTTP/1.1 shape: `METHOD target` on the first line, `name: value`
/// lines, an empty line, the body; `Host` becomes `@authority`. Requests are judged at the
/// fixed time the seeds were signed for (`Tests/Fuzz/README.md`), so their signatures verify.
///
/// Beyond not crashing: the split pipeline the gateway uses (a precheck on the event loop, the
/// rest on a worker, with or without the body) gives the verdict the one-call verification
/// gives, and a precheck refusal is that verdict's failure.
let now = Timestamp(seconds: 1_767_225_600)  // 2026-01-01T00:00:00Z
let front = try! TrustedFront.enabled(token: "fuzz-front-token-0123456789abcdefghij")
let authenticators = [RequestAuthenticator(), RequestAuthenticator(trustedFront: front)]

fuzzMain { bytes in
    let request = signedRequest(Array(bytes))
    for authenticator in authenticators {
        let verdict = authenticator.authenticate(request, now: now)
        for bodyReceived in [false, true] {
            switch authenticator.prepare(request, now: now, bodyReceived: bodyReceived) {
            case .failure(let failure):
                guard verdict == .invalid(failure) else { fatalError("prepare refused \(failure), the verdict is \(verdict)") }
                guard authenticator.precheck(request, now: now, bodyReceived: bodyReceived) == failure else {
                    fatalError("precheck and prepare disagree on \(failure)")
                }
            case .success(let prechecked):
                let split = authenticator.authenticate(prechecked, now: now)
                guard split == verdict else { fatalError("prechecked verdict \(split) differs from \(verdict)") }
            }
        }
        if case .valid(let signer) = verdict, signer.keyID.isEmpty { fatalError("a valid verdict without a key id") }
    }
}

/// The input read as a request head and body (lossy: the verifier sees strings).
func signedRequest(_ bytes: [UInt8]) -> SignedRequest {
    var lines: [String] = []
    var i = 0
    var body: [UInt8] = []
    while i < bytes.count {
        var end = i
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        var line = bytes[i..<end]
        if line.last == 0x0D { line = line.dropLast() }
        i = end + 1
        if line.isEmpty && !lines.isEmpty {
            body = i < bytes.count ? Array(bytes[i...]) : []
            break
        }
        lines.append(lossyText(line))
    }
    let requestLine = (lines.first ?? "").split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
    let method = String(requestLine.first ?? "POST")
    let target = requestLine.count > 1 ? requestLine[1] : "/rpc"
    let question = target.firstIndex(of: "?")
    let path = String(target[..<(question ?? target.endIndex)])
    let query = question.map { String(target[target.index(after: $0)...]) }
    var headers: [(name: String, value: String)] = []
    var authority = "badges.example.net"
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...]).trimmingPrefix(" ")
        headers.append((name, String(value)))
        if name.lowercased() == "host" { authority = String(value) }
    }
    return SignedRequest(method: method, path: path, query: query, authority: authority, headers: headers, body: body)
}
