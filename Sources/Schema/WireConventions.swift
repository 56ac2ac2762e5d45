import BadgeCore
import JSON

/// The protocol's wire conventions beyond plain JSON: bytes as base64url (padded on output),
/// timestamps as RFC 3339 UTC, purchase keys as Ed25519 SubjectPublicKeyInfo.
extension JSONObjectReader {
    func timestamp(_ key: String) throws(JSONDecodingError) -> Timestamp {
        let s = try string(key)
        guard let t = RFC3339.parse(s) else { throw fail(key, "not an RFC 3339 timestamp") }
        return t
    }

    func optionalTimestamp(_ key: String) throws(JSONDecodingError) -> Timestamp? {
        has(key) ? try timestamp(key) : nil
    }

    /// Base64url bytes, padded or not, optionally of an exact length.
    func bytes(_ key: String, count: Int? = nil, what: String = "bytes") throws(JSONDecodingError) -> [UInt8] {
        let s = try string(key)
        guard let b = Base64URL.decode(s) else { throw fail(key, "not valid base64url") }
        if let count, b.count != count { throw fail(key, "\(what) must be \(count) bytes, found \(b.count)") }
        return b
    }

    /// A purchase key kept as the text the client wrote (the signer key is compared as text),
    /// after checking it is base64url of an Ed25519 SubjectPublicKeyInfo.
    func purchaseKey(_ key: String) throws(JSONDecodingError) -> String {
        let s = try string(key)
        guard let b = Base64URL.decode(s) else { throw fail(key, "not valid base64url") }
        guard b.count == 44, b.starts(with: ed25519SPKIPrefix) else {
            throw fail(key, "not an Ed25519 public key (44-byte SubjectPublicKeyInfo)")
        }
        return s
    }

    func optionalPurchaseKey(_ key: String) throws(JSONDecodingError) -> String? {
        has(key) ? try purchaseKey(key) : nil
    }
}

/// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE, AlgorithmIdentifier
/// id-Ed25519, BIT STRING of 33 bytes with 0 unused bits.
let ed25519SPKIPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

extension JSONObjectBuilder {
    mutating func add(_ key: String, _ value: Timestamp) { add(key, RFC3339.format(value)) }
    mutating func add(_ key: String, _ value: Timestamp?) { if let value { add(key, value) } }
    mutating func add(_ key: String, bytes: [UInt8]) { add(key, Base64URL.encode(bytes)) }
}
