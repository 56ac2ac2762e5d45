import COpenSSL

/// Ed25519 verification (RFC 8032 §5.1.7) with exactly OpenSSL 3's acceptance rule
/// (`ossl_ed25519_verify`), on public data, in variable time:
/// - S must be below L (a non-canonical S is rejected);
/// - A is decoded as `ge_frombytes_vartime` decodes it (see `ExtendedPoint(decoding:)`);
/// - h = SHA-512(R ‖ A ‖ M) mod L, with R and A as the signature and key spell them;
/// - accept iff the encoding of [S]B − [h]A (no cofactor) equals R byte for byte, so a
///   non-canonical R is never accepted.
package enum Ed25519Verification {
    /// Whether `signature` (64 bytes) is valid for `message` under the 32-byte `publicKey`.
    package static func isValid(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer,
                        publicKey: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64, publicKey.count == 32 else { return false }
        let rBytes = UnsafeRawBufferPointer(rebasing: signature[0..<32])
        let s = Scalar25519(bytes: UnsafeRawBufferPointer(rebasing: signature[32..<64]))
        guard s.isCanonical else { return false }
        guard let a = ExtendedPoint(decoding: publicKey) else { return false }
        let h = challenge(r: rBytes, publicKey: publicKey, message: message)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { encoded in
            let point = doubleScalarMultiply(h: h, minusA: a.negated, s: s)
            point.encode(to: UnsafeMutableRawBufferPointer(encoded))
            return encoded.elementsEqual(rBytes)
        }
    }

    /// SHA-512(R ‖ A ‖ M) reduced mod L. One `EVP_Digest` over the three parts laid end to end
    /// (a temporary buffer, on the stack when small): no digest context to allocate and free.
    static func challenge(r: UnsafeRawBufferPointer, publicKey: UnsafeRawBufferPointer,
                          message: UnsafeRawBufferPointer) -> Scalar25519 {
        withUnsafeTemporaryAllocation(byteCount: 64 + message.count, alignment: 8) { input in
            input.copyMemory(from: r)
            UnsafeMutableRawBufferPointer(rebasing: input[32..<64]).copyMemory(from: publicKey)
            if message.count > 0 {
                UnsafeMutableRawBufferPointer(rebasing: input[64...]).copyMemory(from: message)
            }
            return withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { digest in
                var length: UInt32 = 0
                precondition(EVP_Digest(input.baseAddress, input.count, digest.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                        &length, fetchedSHA512, nil) == 1 && length == 64, "EVP_Digest failed")
                return Scalar25519(reducingWide: UnsafeRawBufferPointer(digest))
            }
        }
    }

    /// [s]B + [h](−A), as a projective point: one chain of doublings shared by a width-5 w-NAF
    /// of h over −A, −3A, …, −15A (built per call) and a width-8 w-NAF of s over the static
    /// table of B, 3B, …, 127B.
    static func doubleScalarMultiply(h: Scalar25519, minusA: ExtendedPoint, s: Scalar25519) -> ProjectivePoint {
        // −A's odd multiples live in a local tuple, on the stack: at 1,280 bytes the table is past
        // the size a temporary allocation is sure to keep off the heap.
        let first = minusA.cached
        var aMultiples = (first, first, first, first, first, first, first, first)
        return withUnsafeMutablePointer(to: &aMultiples) { tuple in
            tuple.withMemoryRebound(to: CachedPoint.self, capacity: 8) { aTable in
                let twoA = minusA.projective.doubled().extended.cached
                var multiple = minusA
                for i in 1..<8 {
                    multiple = multiple.adding(twoA).extended
                    aTable[i] = multiple.cached
                }
                return withUnsafeTemporaryAllocation(of: Int8.self, capacity: 512) { digits in
                    let hDigits = UnsafeMutableBufferPointer(rebasing: digits[0..<256])
                    let sDigits = UnsafeMutableBufferPointer(rebasing: digits[256..<512])
                    h.writeNonAdjacentForm(width: 5, into: hDigits)
                    s.writeNonAdjacentForm(width: 8, into: sDigits)
                    return ed25519BaseOddMultiples.withUnsafeBufferPointer { bTable in
                        interleave(hDigits: hDigits, aTable: aTable, sDigits: sDigits, bTable: bTable)
                    }
                }
            }
        }
    }

    /// Σ hDigits[i]·2^i·(aTable's point) + Σ sDigits[i]·2^i·(bTable's point), from the top digit
    /// down: a doubling per position, an addition per nonzero digit.
    private static func interleave(hDigits: UnsafeMutableBufferPointer<Int8>, aTable: UnsafeMutablePointer<CachedPoint>,
                                   sDigits: UnsafeMutableBufferPointer<Int8>,
                                   bTable: UnsafeBufferPointer<AffineNielsPoint>) -> ProjectivePoint {
        var top = 255
        while top >= 0 && hDigits[top] == 0 && sDigits[top] == 0 { top -= 1 }
        var r = ProjectivePoint.identity
        var i = top
        while i >= 0 {
            var t = r.doubled()
            let hd = hDigits[i], sd = sDigits[i]
            if hd != 0 {
                t = t.extended.adding(aTable[Int(hd.magnitude >> 1)], negate: hd < 0)
            }
            if sd != 0 {
                t = t.extended.adding(bTable[Int(sd.magnitude >> 1)], negate: sd < 0)
            }
            r = t.projective
            i -= 1
        }
        return r
    }
}

/// OpenSSL's SHA-512, fetched once (see `fetchedSHA256` for why).
/// `nonisolated(unsafe)`: written once at first use; an `EVP_MD` is immutable and thread-safe.
nonisolated(unsafe) let fetchedSHA512: OpaquePointer = {
    guard let md = EVP_MD_fetch(nil, "SHA2-512", nil) else { fatalError("OpenSSL has no SHA2-512") }
    return md
}()
