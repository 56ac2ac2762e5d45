/// The shapes of provider keys that are known for certain, checked when the configuration is
/// read, so a key pasted under the wrong name fails at `config check` and not at the first
/// invoice. Only documented shapes are checked: nothing that could refuse a real value. The
/// value is never part of the message (these keys are secrets, or may hold one pasted wrongly).
enum KeyShape {
    /// `[apple] key_id`: the In-App Purchase key's id, 10 letters and digits (README, App Store).
    static func appleKeyID(_ value: String) throws(ConfigurationKey.Rejection) {
        guard value.utf8.count == 10, value.utf8.allSatisfy({ isASCIIAlphanumeric($0) }) else {
            throw ConfigurationKey.Rejection(expected: "the In-App Purchase key's id, 10 letters and digits (e.g. 2X9R4HXF34)")
        }
    }

    /// `[apple] issuer_id`: the issuer id App Store Connect shows, a UUID.
    static func appleIssuerID(_ value: String) throws(ConfigurationKey.Rejection) {
        let groups = value.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.utf8.count) == [8, 4, 4, 4, 12],
              groups.allSatisfy({ $0.utf8.allSatisfy(isHexDigit) })
        else {
            throw ConfigurationKey.Rejection(expected: "the issuer id App Store Connect shows, a UUID (e.g. 57246542-96fe-1a63-e053-0824d011072a)")
        }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
