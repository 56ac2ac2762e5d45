/// Reads structured choices off the front of a fuzz input, so that one byte string can pick a
/// mode, split points or small numbers and still leave the rest as the data under test. Past
/// the end every read gives 0, so any input is a valid one.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = Array(bytes) }
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The bytes not read yet.
    public var rest: ArraySlice<UInt8> { bytes[min(offset, bytes.count)...] }
}

/// The input as text the way a server sees bytes off the wire: invalid UTF-8 repaired.
public func lossyText(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
