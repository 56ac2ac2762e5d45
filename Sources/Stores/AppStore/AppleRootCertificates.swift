import BadgeCore

/// The trust anchors an operator configures (`[apple] root_certificates`): each file DER or
/// PEM, one or more certificates. Apple's is Apple Root CA - G3; tests configure their own.
public struct AppleRootCertificates: Sendable {
    let certificates: [X509Certificate]

    /// Why a root file was refused, naming the file.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads the certificates of one file's bytes: a DER certificate, or PEM text holding one
    /// or more `CERTIFICATE` blocks. `name` is the file, for the error.
    public static func certificates(in bytes: [UInt8], name: String) throws(LoadError) -> [[UInt8]] {
        if let _ = X509Certificate(der: bytes) { return [bytes] }
        let text = String(decoding: bytes, as: UTF8.self)
        var found: [[UInt8]] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline).map(trimmed) {
            if line == "-----BEGIN CERTIFICATE-----" { body = ""; continue }
            if line == "-----END CERTIFICATE-----" {
                guard let b = body, let der = Base64URL.decodeStandard(b), X509Certificate(der: der) != nil else {
                    throw LoadError(description: "\(name): a CERTIFICATE block is not a DER certificate in base64")
                }
                found.append(der)
                body = nil
                continue
            }
            if body != nil { body! += line }
        }
        guard body == nil else { throw LoadError(description: "\(name): a CERTIFICATE block has no END line") }
        guard !found.isEmpty else { throw LoadError(description: "\(name): neither a DER certificate nor PEM CERTIFICATE blocks") }
        return found
    }

    /// The anchors from DER certificates; nil when one does not parse or there are none.
    public init?(der: [[UInt8]]) {
        let parsed = der.compactMap { X509Certificate(der: $0) }
        guard !parsed.isEmpty, parsed.count == der.count else { return nil }
        certificates = parsed
    }
}

/// A PEM line without surrounding spaces, tabs or the CR of CRLF files.
private func trimmed(_ line: Substring) -> String {
    var s = line
    while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
    while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
    return String(s)
}
