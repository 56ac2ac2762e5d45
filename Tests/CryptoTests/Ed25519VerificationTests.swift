import BadgeCore
import Crypto
import Testing

/// The Swift Ed25519 verification (`Ed25519Verification`) against RFC 8032's vectors and,
/// verdict for verdict, against OpenSSL's EVP verify, whose acceptance rule it must copy exactly.
@Suite struct Ed25519VerificationTests {
    /// The Swift verdict.
    func swiftVerdict(_ key: [UInt8], _ signature: [UInt8], _ message: [UInt8]) -> Bool {
        key.withUnsafeBytes { k in
            signature.withUnsafeBytes { s in
                message.withUnsafeBytes { m in Ed25519Verification.isValid(signature: s, message: m, publicKey: k) }
            }
        }
    }

    /// OpenSSL's verdict.
    func openSSLVerdict(_ key: [UInt8], _ signature: [UInt8], _ message: [UInt8]) -> Bool {
        Ed25519PublicKey(raw: key)!.isValidSignatureOpenSSL(signature, for: message)
    }

    /// Both verdicts, which must agree; returns the verdict.
    @discardableResult
    func sameVerdict(_ key: [UInt8], _ signature: [UInt8], _ message: [UInt8], _ what: @autoclosure () -> String,
                     sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let ours = swiftVerdict(key, signature, message)
        let theirs = openSSLVerdict(key, signature, message)
        #expect(ours == theirs, "\(what()): Swift \(ours), OpenSSL \(theirs); key \(Hex.encode(key)) sig \(Hex.encode(signature)) msg \(Hex.encode(message))",
                sourceLocation: sourceLocation)
        return theirs
    }

    // RFC 8032 §7.1 (Test Vectors for Ed25519): TEST 1, 2, 3, 1024 and SHA(abc), as
    // (secret key, public key, message, signature), copied from the RFC's text.
    static let rfc8032: [(String, String, String, String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
         "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
         "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
         "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
        ("f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
         "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
         "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc103b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed185ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f27088d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128bab27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae0784504df543af8969be3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb751fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34dff7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e488acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5fb93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380db2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0",
         "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"),
        ("833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
         "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
         "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
         "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
    ]

    @Test(arguments: 0..<5) func rfc8032Vector(_ index: Int) throws {
        let (secret, publicKey, message, signature) = Self.rfc8032[index]
        let key = try Ed25519PrivateKey(seed: Hex.decode(secret)!)
        let msg = Hex.decode(message)!, sig = Hex.decode(signature)!
        // The vector is copied right: OpenSSL derives the same key and signs the same bytes.
        #expect(Hex.encode(key.publicKey.raw) == publicKey)
        #expect(key.signature(for: msg) == sig)
        #expect(swiftVerdict(key.publicKey.raw, sig, msg))
        #expect(key.publicKey.isValidSignature(sig, for: msg))
        var bad = sig
        bad[63] ^= 0x01
        #expect(!swiftVerdict(key.publicKey.raw, bad, msg))
        #expect(!swiftVerdict(key.publicKey.raw, sig, msg + [0]))
    }

    /// L = 2^252 + 27742317777372353535851937790883648493, little-endian.
    static let order = Hex.decode("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")!

    /// a + b for 32-byte little-endian numbers, modulo 2^256.
    static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var carry = 0
        for i in 0..<32 {
            let s = Int(a[i]) + Int(b[i]) + carry
            out[i] = UInt8(s & 0xff)
            carry = s >> 8
        }
        return out
    }

    /// 20,000 random keys, messages and valid signatures, each checked as it is and with one
    /// mutation (a bit of R, S, A or M flipped, or S + L), from a fixed seed so a failure repeats.
    @Test func matchesOpenSSLOnRandomAndMutatedSignatures() throws {
        var rng = SplitMix64(seed: 0x5eed_ed25_519)
        var valid = 0, mutatedAccepted = 0
        for i in 0..<20_000 {
            let key = try Ed25519PrivateKey(seed: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let pub = key.publicKey.raw
            var msg = (0..<Int.random(in: 0..<160, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var sig = key.signature(for: msg)
            if sameVerdict(pub, sig, msg, "valid #\(i)") { valid += 1 }
            var badKey = pub
            let bit = Int.random(in: 0..<256, using: &rng)
            switch i % 5 {
            case 0: sig[bit / 8] ^= 1 << (bit % 8)                            // R
            case 1: sig[32 + bit / 8] ^= 1 << (bit % 8)                       // S
            case 2: badKey[bit / 8] ^= 1 << (bit % 8)                         // A
            case 3: if msg.isEmpty { msg = [0] } else { msg[bit % msg.count] ^= 1 << (bit % 8) }  // M
            default: sig.replaceSubrange(32..<64, with: Self.add(Array(sig[32...]), Self.order))  // S + L
            }
            if sameVerdict(badKey, sig, msg, "mutation \(i % 5) of #\(i)") { mutatedAccepted += 1 }
        }
        #expect(valid == 20_000)
        // A flipped high bit of S can leave a canonical S and still fail; none may pass.
        #expect(mutatedAccepted == 0)
    }

    /// The eight points of order dividing 8, canonically encoded: identity, order 2, two of order
    /// 4 (y = 0), four of order 8.
    static let smallOrder = [
        "0100000000000000000000000000000000000000000000000000000000000000",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    ].map { Hex.decode($0)! }

    /// Every y in [p, 2^255) (p + 0 … p + 18), with either sign bit: non-canonical encodings,
    /// of y = 0 … 18 (y = 1 with the sign bit is also x = 0 with the sign bit set).
    static let nonCanonical: [[UInt8]] = (0..<19).flatMap { k -> [[UInt8]] in
        var y = [UInt8](repeating: 0xff, count: 32)
        y[0] = 0xed + UInt8(k)
        y[31] = 0x7f
        var signed = y
        signed[31] |= 0x80
        return [y, signed]
    }

    /// Small-order and non-canonical keys and commitments, S = 0 (so R' = −[h]A, a small-order
    /// point that one of the eight R encodings matches), random S, and S at and around L.
    @Test func matchesOpenSSLOnSmallOrderAndNonCanonicalEncodings() throws {
        var rng = SplitMix64(seed: 8032)
        let randomKey = Ed25519PrivateKey().publicKey.raw
        let keys = Self.smallOrder + Self.nonCanonical + [randomKey]
        let commitments = Self.smallOrder + Self.nonCanonical
        let zero = [UInt8](repeating: 0, count: 32)
        var lMinusOne = Self.order
        lMinusOne[0] -= 1
        let scalars = [zero, lMinusOne, Self.order, Self.add(Self.order, [1] + [UInt8](repeating: 0, count: 31)),
                       [UInt8](repeating: 0xff, count: 32)]
        var accepted = 0, acceptedNonCanonicalKey = 0
        for (ki, key) in keys.enumerated() {
            for m in 0..<3 {
                let msg = (0..<(m * 7)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                var randomS = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
                randomS[31] &= 0x0f
                for r in commitments {
                    for s in scalars + [randomS] where sameVerdict(key, r + s, msg, "key #\(ki) msg \(m)") {
                        accepted += 1
                        if ki >= Self.smallOrder.count && ki < keys.count - 1 { acceptedNonCanonicalKey += 1 }
                    }
                }
            }
        }
        // The cases exercise acceptance too, including keys OpenSSL takes with y ≥ p.
        #expect(accepted > 0)
        #expect(acceptedNonCanonicalKey > 0)
    }

    @Test func rejectsWrongLengths() {
        let key = Ed25519PrivateKey()
        let sig = key.signature(for: [1, 2, 3])
        #expect(key.publicKey.isValidSignature(sig, for: [1, 2, 3]))
        #expect(!key.publicKey.isValidSignature(Array(sig.prefix(63)), for: [1, 2, 3]))
        #expect(!key.publicKey.isValidSignature(sig + [0], for: [1, 2, 3]))
        #expect(!swiftVerdict(Array(key.publicKey.raw.prefix(31)), sig, [1, 2, 3]))
    }
}

/// A small seeded generator (SplitMix64), so a failing case can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e3779b97f4a7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 27)) &* 0x94d049bb133ceb31
        return z ^ (z >> 31)
    }
}
