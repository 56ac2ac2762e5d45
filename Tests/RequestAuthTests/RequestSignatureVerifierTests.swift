import BadgeCore
import Crypto
import RequestAuth
import Testing

@Suite struct RequestSignatureVerifierTests {
    let key = Ed25519PrivateKey()
    let verifier = RequestSignatureVerifier()

    private func verdict(_ r: SignedRequest, now: Timestamp = Fixture.now) -> RequestAuthVerdict {
        verifier.verify(r, now: now)
    }

    /// Expects refusal with `failure`, its log reason free of key text (the gateway answers every
    /// failure 401 `bad_request`: GatewayTests).
    private func expectRefused(_ r: SignedRequest, _ failure: RequestAuthFailure, now: Timestamp = Fixture.now,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(verdict(r, now: now) == .invalid(failure), sourceLocation: sourceLocation)
        #expect(!failure.reason.contains("MCow"), sourceLocation: sourceLocation)
    }

    @Test func validSignatureCarriesTheSigner() {
        let r = Fixture.signed(key: key)
        let expected = VerifiedSigner(publicKey: key.publicKey, keyID: key.publicKey.purchaseKeyText,
                                      source: .httpSignature(label: "sig1", created: Fixture.now.seconds))
        #expect(verdict(r) == .valid(expected))
        guard case .valid(let signer) = verdict(r) else { return }
        #expect(signer.matches(purchaseKey: key.publicKey.purchaseKeyText))
    }

    @Test func unsignedRequest() {
        #expect(verdict(Fixture.request()) == .unsigned)
        #expect(verdict(Fixture.request().setting("Content-Digest", nil)) == .unsigned)
    }

    @Test func targetURIInsteadOfPathAndMinimalCoverage() {
        let r = Fixture.signed(key: key, components: #""@target-uri" "@method" "content-digest""#,
                               parameters: ";keyid=\"\(key.publicKey.purchaseKeyText)\";created=\(Fixture.now.seconds)")
        guard case .valid(let signer) = verdict(r) else { Issue.record("expected valid, got \(verdict(r))"); return }
        #expect(signer.publicKey == key.publicKey)
    }

    @Test func unknownParametersAndExtraComponentsAreSignedAndAccepted() {
        let r = Fixture.signed(key: key, components: Fixture.defaultComponents + #" "@scheme" "@query" "content-digest";key="sha-256""#,
                               parameters: ";created=\(Fixture.now.seconds);keyid=\"\(key.publicKey.purchaseKeyText)\";nonce=\"n1\";tag=\"badges\";x-ext=7;expires=\(Fixture.now.seconds + 60)")
        guard case .valid = verdict(r) else { Issue.record("expected valid, got \(verdict(r))"); return }
    }

    // MARK: Body and Content-Digest

    @Test func tamperedBody() {
        var r = Fixture.signed(key: key)
        r.body[3] ^= 0x01
        expectRefused(r, .contentDigestMismatch)
    }

    @Test func wrongDigestValueSigned() {
        // The signer signed a digest of other content: the signature verifies, the digest does not.
        let r = Fixture.signed(Fixture.request().setting("Content-Digest", ContentDigest.fieldValue(for: Array("other".utf8))), key: key)
        expectRefused(r, .contentDigestMismatch)
    }

    @Test func digestMissing() {
        expectRefused(Fixture.signed(Fixture.request().setting("Content-Digest", nil), key: key), .contentDigestMissing)
    }

    @Test func digestWithoutSHA256() {
        let sha512 = "sha-512=:\(Base64URL.encodeStandard(SHA512.hash(Fixture.body))):"
        expectRefused(Fixture.signed(Fixture.request().setting("Content-Digest", sha512), key: key), .contentDigestWithoutSHA256)
    }

    @Test func wrongSHA512BesideRightSHA256() {
        let field = ContentDigest.fieldValue(for: Fixture.body) + ", sha-512=:\(Base64URL.encodeStandard(SHA512.hash([1]))):"
        expectRefused(Fixture.signed(Fixture.request().setting("Content-Digest", field), key: key), .contentDigestMismatch)
    }

    @Test func malformedDigest() {
        expectRefused(Fixture.signed(Fixture.request().setting("Content-Digest", "sha-256=abc"), key: key), .contentDigestMalformed)
    }

    // MARK: Time

    @Test func staleCreated() {
        let r = Fixture.signed(key: key)
        expectRefused(r, .signatureStale, now: Fixture.now.adding(seconds: 301))
        #expect(verdict(r, now: Fixture.now.adding(seconds: 300)) != .invalid(.signatureStale))
    }

    @Test func futureCreated() {
        let r = Fixture.signed(key: key)
        expectRefused(r, .signatureCreatedInFuture, now: Fixture.now.adding(seconds: -301))
        guard case .valid = verdict(r, now: Fixture.now.adding(seconds: -300)) else { Issue.record("300 s early must pass"); return }
    }

    @Test func configurableWindow() {
        let strict = RequestSignatureVerifier(policy: RequestSignaturePolicy(freshnessWindowSeconds: 10))
        let r = Fixture.signed(key: key)
        #expect(strict.verify(r, now: Fixture.now.adding(seconds: 11)) == .invalid(.signatureStale))
        #expect(strict.verify(r, now: Fixture.now.adding(seconds: -11)) == .invalid(.signatureCreatedInFuture))
        guard case .valid = strict.verify(r, now: Fixture.now.adding(seconds: 10)) else { Issue.record("inside window"); return }
    }

    @Test func expiredExpires() {
        let params = ";created=\(Fixture.now.seconds - 100);keyid=\"\(key.publicKey.purchaseKeyText)\";expires=\(Fixture.now.seconds - 1)"
        expectRefused(Fixture.signed(key: key, parameters: params), .signatureExpired)
    }

    // MARK: Parameters

    @Test func missingCreated() {
        expectRefused(Fixture.signed(key: key, parameters: ";keyid=\"\(key.publicKey.purchaseKeyText)\";alg=\"ed25519\""), .missingCreated)
    }

    @Test func missingKeyID() {
        expectRefused(Fixture.signed(key: key, parameters: ";created=\(Fixture.now.seconds);alg=\"ed25519\""), .missingKeyID)
    }

    @Test(arguments: [
        "test-key-ed25519",
        "MCowBQYDK2VwAyEAJrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs",  // unpadded
        "MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=",  // standard alphabet
        "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs=",  // raw key, not SPKI
        "MCowBQYDK2VlAyEAJrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs=",  // X25519 OID
        "",
    ])
    func keyIDNotPurchaseKey(keyID: String) {
        let params = ";created=\(Fixture.now.seconds);keyid=\"\(keyID)\";alg=\"ed25519\""
        expectRefused(Fixture.signed(key: key, parameters: params), .keyIDNotPurchaseKey)
    }

    @Test func keyIDOfAnotherKey() {
        let other = Ed25519PrivateKey()
        let params = ";created=\(Fixture.now.seconds);keyid=\"\(other.publicKey.purchaseKeyText)\";alg=\"ed25519\""
        expectRefused(Fixture.signed(key: key, parameters: params), .signatureMismatch)
    }

    @Test(arguments: ["rsa-pss-sha512", "ED25519", "hmac-sha256"])
    func unknownAlgorithm(alg: String) {
        let params = ";created=\(Fixture.now.seconds);keyid=\"\(key.publicKey.purchaseKeyText)\";alg=\"\(alg)\""
        expectRefused(Fixture.signed(key: key, parameters: params), .unsupportedAlgorithm)
    }

    @Test(arguments: [
        ";created=\"1760000000\";keyid=\"K\"",
        ";created=1760000000.5;keyid=\"K\"",
        ";created=1760000000;keyid=abc",
        ";created=1760000000;keyid=\"K\";alg=ed25519",
        ";created=1760000000;keyid=\"K\";expires=?1",
        ";created=1760000000;keyid=\"K\";nonce=1",
    ])
    func malformedParameterTypes(parameters: String) {
        let text = parameters.replacingOccurrences(of: "K", with: key.publicKey.purchaseKeyText)
        expectRefused(Fixture.signed(key: key, parameters: text), .malformedSignatureParameter)
    }

    // MARK: Covered components

    @Test(arguments: [
        (#""@authority" "@path" "content-digest""#, RequestAuthFailure.RequiredComponent.method),
        (#""@method" "@authority" "@request-target" "content-digest""#, .path),
        (#""@method" "@authority" "@path" "content-type""#, .contentDigest),
        (#""@method" "@path" "content-digest";sf"#, .contentDigest),
        (#""@method";x "@path" "content-digest""#, .method),
    ])
    func missingRequiredComponent(components: String, missing: RequestAuthFailure.RequiredComponent) {
        expectRefused(Fixture.signed(key: key, components: components), .missingRequiredComponent(missing))
    }

    @Test func duplicateComponents() {
        expectRefused(Fixture.signed(key: key, components: Fixture.defaultComponents + #" "@method""#), .duplicateComponent)
    }

    @Test func tooManyComponents() {
        var r = Fixture.request()
        var names: [String] = []
        for i in 0..<28 {
            r.headers.append(("X-F\(i)", "v"))
            names.append("\"x-f\(i)\"")
        }
        let components = Fixture.defaultComponents + " " + names.joined(separator: " ")  // 33 components
        expectRefused(Fixture.signed(r, key: key, components: components), .tooManyComponents)
        let relaxed = RequestSignatureVerifier(policy: RequestSignaturePolicy(maximumCoveredComponents: 33))
        guard case .valid = relaxed.verify(Fixture.signed(r, key: key, components: components), now: Fixture.now) else {
            Issue.record("33 components allowed by policy"); return
        }
    }

    @Test func hugeSignatureInputIsRefusedCheaply() {
        // About the 16 KiB head limit of unauthenticated input: thousands of labels, then of components.
        let labels = (0..<3000).map { "l\($0)=()" }.joined(separator: ",")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            expectRefused(Fixture.signed(key: key).setting("Signature-Input", labels), .multipleSignatures)
            let components = (0..<3000).map { "\"x\($0)\"" }.joined(separator: " ")
            expectRefused(Fixture.signed(key: key, components: components), .tooManyComponents)
        }
        #expect(elapsed < .seconds(2))
    }

    @Test func coveredFieldAbsent() {
        expectRefused(Fixture.signed(key: key, components: Fixture.defaultComponents + #" "x-absent""#), .coveredFieldAbsent)
    }

    @Test func unsupportedComponent() {
        expectRefused(Fixture.signed(key: key, components: Fixture.defaultComponents + #" "@status""#), .unsupportedComponent)
    }

    @Test func malformedComponents() {
        expectRefused(Fixture.signed(key: key, components: Fixture.defaultComponents + " content-type"), .malformedComponent)
        expectRefused(Fixture.signed(key: key, components: Fixture.defaultComponents + #" "Content-Type""#), .malformedComponent)
        expectRefused(Fixture.signed(key: key, components: Fixture.defaultComponents + #" "@signature-params""#), .malformedComponent)
    }

    @Test func signedHeaderChanged() {
        expectRefused(Fixture.signed(key: key).setting("Content-Type", "text/plain"), .signatureMismatch)
        var moved = Fixture.signed(key: key)
        moved.path = "/rpc2"
        expectRefused(moved, .signatureMismatch)
    }

    // MARK: Signature fields

    @Test func signatureOfWrongLength() {
        let r = Fixture.signed(key: key)
        for length in [0, 63, 65, 128] {
            let bad = r.setting("Signature", "sig1=:\(Base64URL.encodeStandard([UInt8](repeating: 7, count: length))):")
            expectRefused(bad, .signatureWrongLength)
        }
    }

    @Test func signatureByAnotherKey() {
        let r = Fixture.signed(key: key)
        let forged = Fixture.signed(key: Ed25519PrivateKey(),
                                    parameters: ";created=\(Fixture.now.seconds);keyid=\"\(key.publicKey.purchaseKeyText)\";alg=\"ed25519\"")
        #expect(r.combinedField("Signature-Input") == forged.combinedField("Signature-Input"))
        expectRefused(forged, .signatureMismatch)
    }

    @Test(arguments: [
        "sig1",  // a bare key is Boolean true, not an inner list
        "sig1=\"@method\"",
        "sig1=(\"@method\"",
        "sig1=(\"@method\"),",
        "Sig1=(\"@method\")",
        "sig1=(\"@method\");created=1;created=2",  // repeated parameter
        "sig1=(), sig1=()",  // repeated label
        "",
    ])
    func malformedSignatureInput(input: String) {
        expectRefused(Fixture.signed(key: key).setting("Signature-Input", input), .malformedSignatureInput)
    }

    @Test(arguments: ["sig1=\"abc\"", "sig1=:!!:", "sig1=(:AA==:)", "sig1", "sig1=:AA==:, sig1=:AA==:", ""])
    func malformedSignature(signature: String) {
        expectRefused(Fixture.signed(key: key).setting("Signature", signature), .malformedSignature)
    }

    @Test func severalLabelsAreRefused() {
        let one = Fixture.signed(key: key)
        let two = Fixture.signed(one, key: Ed25519PrivateKey(), label: "sig2")  // second lines of both fields
        #expect(two.fieldLines("Signature-Input").count == 2)
        expectRefused(two, .multipleSignatures)
        // Both labels in one field line each.
        let combined = one.setting("Signature-Input", one.combinedField("Signature-Input")! + ", proxy=(\"@method\");created=1")
        expectRefused(combined, .multipleSignatures)
    }

    @Test func labelMismatch() {
        let r = Fixture.signed(key: key)
        let sig = r.combinedField("Signature")!.replacingOccurrences(of: "sig1=", with: "other=")
        expectRefused(r.setting("Signature", sig), .signatureLabelMismatch)
    }

    @Test func onlyOneSignatureField() {
        let r = Fixture.signed(key: key)
        expectRefused(r.setting("Signature", nil), .signatureFieldsIncomplete)
        expectRefused(r.setting("Signature-Input", nil), .signatureFieldsIncomplete)
    }

    // MARK: Individual checks

    private func evaluation(parameters: String, components: String = Fixture.defaultComponents) -> SignatureEvaluation {
        let r = Fixture.signed(key: key, components: components, parameters: parameters)
        guard case .candidate(let e) = RequestSignatureVerifier.extract(r, now: Fixture.now, policy: RequestSignaturePolicy()) else {
            fatalError("fixture must extract")
        }
        return e
    }

    @Test func pipelineOrderIsStructureThenTimeThenContentThenCryptography() {
        let names = RequestSignatureVerifier.checks.map { String(describing: type(of: $0)) }
        #expect(names == ["SignatureParameterTypesCheck", "RequiredParametersCheck", "AlgorithmCheck", "KeyIDCheck",
                          "CoveredComponentsCheck", "SignatureEncodingCheck", "ExpiryCheck", "FreshnessCheck",
                          "ContentDigestCheck", "SignatureValueCheck"])
    }

    @Test func freshnessCheckAlone() {
        var e = evaluation(parameters: ";created=\(Fixture.now.seconds - 400);keyid=\"x\"")
        #expect(RequiredParametersCheck().evaluate(&e) == nil)
        #expect(e.created == Fixture.now.seconds - 400)
        #expect(FreshnessCheck().evaluate(&e) == .signatureStale)
    }

    @Test func keyIDCheckRecordsTheKey() {
        var e = evaluation(parameters: ";created=1;keyid=\"\(key.publicKey.purchaseKeyText)\"")
        #expect(RequiredParametersCheck().evaluate(&e) == nil)
        #expect(KeyIDCheck().evaluate(&e) == nil)
        #expect(e.signerKey == key.publicKey)
    }

    @Test func everyFailureIs401BadRequest() {
        let all: [RequestAuthFailure] = [
            .signatureFieldsIncomplete, .malformedSignatureInput, .malformedSignature, .multipleSignatures,
            .signatureLabelMismatch, .malformedSignatureParameter, .missingCreated, .missingKeyID, .keyIDNotPurchaseKey,
            .unsupportedAlgorithm, .signatureExpired, .signatureStale, .signatureCreatedInFuture,
            .missingRequiredComponent(.method), .missingRequiredComponent(.path), .missingRequiredComponent(.contentDigest),
            .duplicateComponent, .tooManyComponents, .malformedComponent, .unsupportedComponent, .coveredFieldAbsent, .invalidComponentValue,
            .contentDigestMissing, .contentDigestMalformed, .contentDigestWithoutSHA256, .contentDigestMismatch,
            .signatureWrongLength, .signatureMismatch, .signerKeyWithoutTrustedFront, .frontTokenMissing,
            .frontTokenMismatch, .malformedSignerKey, .ambiguousAuthentication,
        ]
        #expect(Set(all.map(\.reason)).count == all.count)  // each reason tells its case apart
        for failure in all {
            #expect(!failure.reason.isEmpty && !failure.reason.contains("\n"))
        }
    }
}
