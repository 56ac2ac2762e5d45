import Glibc
import Testing
@testable import BBS

/// After signing and dropping the key, no heap chunk handed out afresh still holds the key's
/// bytes: every buffer that held SK (or a value that gives SK with the public e) was wiped
/// before it was freed.
@Suite struct SecretWipingTests {
    /// Allocates (without initialising) many chunks of every small size, as the freed buffers of
    /// Sign come back from malloc's per-thread caches and bins, and counts those containing `needle`.
    static func chunksContaining(_ needle: [UInt8]) -> Int {
        var found = 0
        var chunks = [UnsafeMutableRawPointer]()
        chunks.reserveCapacity(64 * 128)
        for size in stride(from: 16, through: 2048, by: 16) {
            for _ in 0..<64 {
                guard let p = malloc(size) else { continue }
                chunks.append(p)
                if Self.contains(UnsafeRawBufferPointer(start: p, count: size), needle) { found += 1 }
            }
        }
        for p in chunks { free(p) }
        return found
    }

    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if (1..<needle.count).allSatisfy({ haystack[start + $0] == needle[$0] }) { return true }
        }
        return false
    }

    @Test func signLeavesNoCopyOfTheKeyInFreedMemory() throws {
        // Everything runs on one thread with no suspension point, so the chunks Sign freed sit
        // in this thread's malloc cache when the scan allocates.
        var secret = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { secret[i] = UInt8.random(in: 0...255) }
        secret[0] &= 0x3f  // below r
        let header = Array("wipe test".utf8)
        // Four messages, as a badge credential signs: eInput grows past several capacities.
        let messages: [[UInt8]] = [Array(repeating: 7, count: 32), Array("2026-01-01T00:00:00Z".utf8), Array("supporter".utf8), []]
        var leaks = 0
        for _ in 0..<3 {
            do {
                let key = try BBSSecretKey(bytes: secret)
                let signature = try BBS.sign(secretKey: key, publicKey: key.publicKey, header: header, messages: messages)
                #expect(signature.count == BBS.signatureByteCount)
            }
            leaks += Self.chunksContaining(secret)
        }
        #expect(leaks == 0, "the key's 32 bytes were found in \(leaks) freshly allocated chunks")
    }

    @Test func theScanFindsAKeyLeftInAFreedBuffer() {
        // The scan itself must be able to see a freed, unwiped copy, or the test above proves nothing.
        var secret = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { secret[i] = UInt8.random(in: 0...255) }
        do {
            let copy = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
            copy.copyMemory(from: secret, byteCount: 32)
            (copy + 32).copyMemory(from: secret, byteCount: 32)
            copy.deallocate()
        }
        // Scanned before `#expect` runs: what the macro allocates first could take the freed chunk.
        let found = Self.chunksContaining(secret)
        #expect(found > 0)
    }
}
