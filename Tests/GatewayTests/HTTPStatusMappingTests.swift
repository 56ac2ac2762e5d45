import Gateway
import HTTPServer
import RequestAuth
import Schema
import Testing

/// The README's "HTTP status of each answer", one protocol code at a time.
@Suite struct HTTPStatusMappingTests {
    /// Written from the README table, not from the code under test.
    static let documented: [String: Int] = [
        "bad_request": 400, "unsupported_version": 400,
        "unknown_purchase_key": 404, "unknown_offer_id": 404, "product_unavailable": 404,
        "payment_pending": 409, "code_used": 409, "receipt_used": 409, "transfer_limited": 409, "offer_mismatch": 409,
        "code_expired": 410, "offer_disabled": 410,
        "code_invalid": 422, "receipt_invalid": 422, "test_purchase": 422, "payment_not_entitled": 422,
        "rate_limited": 429, "internal": 500, "provider_not_configured": 501, "provider_unavailable": 503,
    ]

    @Test func everyErrorCodeHasItsDocumentedStatus() {
        #expect(Set(ErrorCode.all.map(\.rawValue)) == Set(Self.documented.keys), "a new code needs a documented status")
        for code in ErrorCode.all {
            #expect(code.httpStatus == Self.documented[code.rawValue], "\(code)")
        }
    }

    @Test func aCodeThisBuildDoesNotKnowIsAnInternalError() {
        #expect(ErrorCode("from_a_newer_peer").httpStatus == 500)
    }

    @Test func everyAuthenticationFailureIs401() {
        let failures: [RequestAuthFailure] = [
            .signatureFieldsIncomplete, .malformedSignatureInput, .signatureMismatch, .signatureStale,
            .missingRequiredComponent(.contentDigest), .contentDigestMismatch, .frontTokenMismatch, .ambiguousAuthentication,
        ]
        for failure in failures { #expect(failure.httpStatus == 401) }
    }

    @Test func parserRefusalsKeepTheirOwnStatuses() {
        let expected: [(HTTPParserError, Int)] = [
            (.bareLF, 400), (.invalidChunkFraming, 400), (.bodyTooLarge, 413), (.targetTooLong, 414),
            (.unsupportedExpectation, 417), (.trailerSectionTooLarge, 431), (.unknownMethod, 501), (.unsupportedVersion, 505),
        ]
        for (error, status) in expected { #expect(error.httpStatus == status, "\(error)") }
    }

    @Test func credentialsAreRecognisedByAnyOfTheirFields() {
        for field in ["Signature", "Signature-Input", "Badge-Signer-Key", "Authorization"] {
            #expect(RequestAuthenticator.carriesCredentials { $0 == field })
        }
        #expect(!RequestAuthenticator.carriesCredentials { ["Host", "Content-Type", "Content-Digest"].contains($0) })
    }
}
