import Crypto

/// RFC 9530 `Content-Digest` over the content as received: produced by the signer, checked by the verifier.
public enum ContentDigest {
    /// The field value the signer sends: `sha-256=:<base64>:`.
    public static func fieldValue(for body: some Collection<UInt8>) -> String {
        // A byte sequence member always serialises.
        try! StructuredFieldSerializer.dictionary(SFDictionary([("sha-256", .item(SFItem(.byteSequence(SHA256.hash(body)))))]))
    }

    /// Checks the combined `Content-Digest` value against `body`.
    ///
    /// `sha-256` is required; every algorithm we know (`sha-256`, `sha-512`) must match, so a
    /// second digest cannot smuggle in different content; unknown algorithms are ignored (RFC 9530 §2).
    /// A repeated algorithm is refused rather than resolved by "last wins".
    package static func check(field: String?, body: [UInt8]) throws(RequestAuthFailure) {
        guard let field else { throw .contentDigestMissing }
        let dict: SFDictionary
        do { dict = try StructuredFieldParser.dictionary(field, duplicates: .reject) } catch { throw .contentDigestMalformed }
        guard dict["sha-256"] != nil else { throw .contentDigestWithoutSHA256 }
        let known: [(name: String, length: Int, hash: ([UInt8]) -> [UInt8])] = [
            ("sha-256", 32, { SHA256.hash($0) }),
            ("sha-512", 64, { SHA512.hash($0) }),
        ]
        for algorithm in known {
            guard let member = dict[algorithm.name] else { continue }
            guard case .item(let item) = member, case .byteSequence(let claimed) = item.bareItem,
                  claimed.count == algorithm.length
            else { throw .contentDigestMalformed }
            guard constantTimeEquals(claimed, algorithm.hash(body)) else { throw .contentDigestMismatch }
        }
    }
}
