/// Why a JSON text was refused, and the byte offset where it went wrong.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Hashable, Sendable {
        case empty
        case unexpectedEnd
        /// A byte that cannot start or continue anything here.
        case unexpectedByte(UInt8)
        /// A complete value followed by more than whitespace.
        case trailingData
        /// A UTF-8 byte order mark, which RFC 8259 §8.1 forbids senders to add.
        case byteOrderMark
        case invalidUTF8
        /// An unescaped byte below 0x20 inside a string.
        case controlCharacter
        case invalidEscape
        /// A `\u` escape of a UTF-16 surrogate without its pair.
        case loneSurrogate
        case leadingZero
        case invalidNumber
        /// A number beyond the `Double` range, which other parsers would read as infinity or refuse.
        case numberOutOfRange
        /// Arrays and objects nested deeper than the parser's limit.
        case tooDeep(limit: Int)
        /// A name repeated in one object: parsers disagree on which value wins, so it is refused.
        case duplicateKey(String)
    }

    public let offset: Int
    public let reason: Reason

    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// A short phrase for the reason.
    public var reasonText: String {
        switch reason {
        case .empty: "empty input"
        case .unexpectedEnd: "unexpected end of input"
        case .unexpectedByte(let b):
            b >= 0x21 && b < 0x7F ? "unexpected character '\(Character(Unicode.Scalar(b)))'" : "unexpected byte 0x\(String(b, radix: 16))"
        case .trailingData: "data after the JSON value"
        case .byteOrderMark: "byte order mark"
        case .invalidUTF8: "invalid UTF-8"
        case .controlCharacter: "unescaped control character in string"
        case .invalidEscape: "invalid escape sequence"
        case .loneSurrogate: "unpaired UTF-16 surrogate escape"
        case .leadingZero: "number with a leading zero"
        case .invalidNumber: "malformed number"
        case .numberOutOfRange: "number out of range"
        case .tooDeep(let limit): "nesting deeper than \(limit)"
        case .duplicateKey(let key): "duplicate member name \"\(key)\""
        }
    }

    public var description: String { "invalid JSON at byte \(offset): \(reasonText)" }
}
