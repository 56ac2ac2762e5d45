import BadgeCore
import FuzzSupport
import RequestAuth

/// RFC 8941 structured fields (Dictionary, List, Item, under both duplicate-key policies) and
/// the `Signature-Input`/`Signature` pair as the verifier extracts its one signature.
///
/// Beyond not crashing: whatever parses serializes (a parsed value is always representable),
/// the serialization parses back to the same value, and serializing that gives the same text.
/// The signature pair is the input split at its first line feed.
fuzzMain { bytes in
    let text = lossyText(bytes)
    for policy in [SFDuplicateKeyPolicy.lastWins, .reject] {
        if let dictionary = try? StructuredFieldParser.dictionary(text, duplicates: policy) {
            roundTrip(dictionary, StructuredFieldSerializer.dictionary) { try StructuredFieldParser.dictionary($0, duplicates: policy) }
        }
        if let list = try? StructuredFieldParser.list(text, duplicates: policy) {
            roundTrip(list, StructuredFieldSerializer.list) { try StructuredFieldParser.list($0, duplicates: policy) }
        }
        if let item = try? StructuredFieldParser.item(text, duplicates: policy) {
            roundTrip(item, StructuredFieldSerializer.item) { try StructuredFieldParser.item($0, duplicates: policy) }
        }
    }
    let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let request = SignedRequest(method: "POST", path: "/rpc", authority: "badges.example.net",
                                headers: [("Signature-Input", String(lines[0])), ("Signature", lines.count > 1 ? String(lines[1]) : "")],
                                body: [])
    if case .candidate(let evaluation) = RequestSignatureVerifier.extract(request, now: Timestamp(seconds: 1_700_000_000),
                                                                          policy: RequestSignaturePolicy()) {
        guard case .byteSequence = evaluation.signature.bareItem else { fatalError("extracted a signature that is not bytes") }
    }
}

func roundTrip<T: Equatable>(_ value: T, _ serialize: (T) throws(StructuredFieldError) -> String,
                             _ parse: (String) throws -> T) {
    guard let text = try? serialize(value) else { fatalError("a parsed structured field does not serialize: \(value)") }
    guard let again = try? parse(text) else { fatalError("serialized structured field does not parse: \(text)") }
    guard again == value else { fatalError("structured field round trip changed \(value) into \(again) via \(text)") }
    guard (try? serialize(again)) == text else { fatalError("structured field serialization is not stable: \(text)") }
}
