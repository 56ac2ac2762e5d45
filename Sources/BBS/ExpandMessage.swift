import Crypto

/// Why expand_message_xmd refuses its arguments.
package enum ExpandMessageError: Error, Equatable, Sendable {
    /// More than 255 hash blocks or more than 65535 bytes were requested.
    case outputTooLong(Int)
}

/// RFC 9380 §5.3.1 expand_message_xmd with SHA-256.
package enum ExpandMessageXMD {
    private static let blockSize = 64
    private static let digestSize = 32

    /// `length` uniform bytes from `message` under the domain separation tag `dst`.
    /// A DST longer than 255 bytes is first replaced by SHA-256("H2C-OVERSIZE-DST-" ‖ DST) (§5.3.3).
    package static func expand(_ message: some Collection<UInt8>, dst: some Collection<UInt8>,
                              length: Int) throws(ExpandMessageError) -> [UInt8] {
        let ell = (length + digestSize - 1) / digestSize
        guard ell <= 255, length <= 65535, length >= 0 else { throw .outputTooLong(length) }
        var tag = Array(dst)
        if tag.count > 255 { tag = SHA256.hash(Array("H2C-OVERSIZE-DST-".utf8) + tag) }
        let dstPrime = tag + [UInt8(tag.count)]

        // KeyGen hashes key material here: every buffer derived from the message is wiped.
        var h0 = SHA256()
        h0.update([UInt8](repeating: 0, count: blockSize))
        h0.update(message)
        h0.update([UInt8(length >> 8), UInt8(length & 0xff), 0])
        h0.update(dstPrime)
        var b0 = h0.finalize()

        var out = [UInt8]()
        out.reserveCapacity(ell * digestSize)
        var previous = [UInt8](repeating: 0, count: digestSize)  // b_1 hashes b_0 ⊕ 0 = b_0
        var mixed = [UInt8](repeating: 0, count: digestSize)
        defer {
            wipe(&b0)
            wipe(&previous)
            wipe(&mixed)
        }
        var i = 1
        while i <= ell {
            for j in 0..<digestSize { mixed[j] = b0[j] ^ previous[j] }
            var h = SHA256()
            h.update(mixed)
            h.update([UInt8(i)])
            h.update(dstPrime)
            wipe(&previous)
            previous = h.finalize()
            out += previous
            i += 1
        }
        guard out.count > length else { return out }
        defer { wipe(&out) }
        return Array(out.prefix(length))
    }
}
