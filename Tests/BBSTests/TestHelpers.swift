import Foundation
import BBS
import TestSupport

/// Decodes lower- or upper-case hex (test data only; traps on malformed input).
func hex(_ text: String) -> [UInt8] {
    let chars = Array(text.utf8)
    precondition(chars.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: chars.count, by: 2).map {
        UInt8(String(decoding: chars[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// Lower-case hex of bytes.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// A fixture JSON file under Tests/Fixtures (throws when missing).
func referenceJSON(_ relative: String) throws -> [String: Any] {
    let data = try Repository.fixtureData(relative)
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw FixtureShapeError("\(relative) is not a JSON object")
    }
    return object
}

/// A field element from `0x`-prefixed big-endian hex as the RFC 9380 vectors write it.
func fp(_ text: String) -> Fp {
    let digits = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
    return Fp(bigEndian: hex(String(repeating: "0", count: 96 - digits.count) + digits))!
}

/// `object[key]` as a `T`, where `object` is a decoded JSON object; an error names the key.
func field<T>(_ object: Any, _ key: String, _ type: T.Type = T.self) throws -> T {
    guard let value = (object as? [String: Any])?[key] as? T else {
        throw FixtureShapeError("fixture: '\(key)' is missing or not \(T.self)")
    }
    return value
}
