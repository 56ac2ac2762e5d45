import BadgeCore
import GooglePlay
import OutsideHTTP
import Testing

/// The spec's Google Play list, item by item, on the pure mapping functions.
@Suite struct OneTimeVerdictTests {
    func judge(_ json: String, product: String = "badge_supporter_01") throws(PlayRefusal) -> PlayOneTimePurchase {
        try PlayOneTimePurchase.judge(Array(json.utf8), claimedProductID: product)
    }
    func refusal(_ json: String) -> PlayRefusal? {
        do { _ = try judge(json); return nil } catch { return error }
    }

    @Test func purchasedIsCreditableAndNeedsAcknowledgement() throws {
        let p = try judge(#"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1764547200123","purchaseState":0,"consumptionState":0,"orderId":"GPA.1","acknowledgementState":0}"#)
        #expect(p.isAcknowledged == false)
        #expect(p.isPromo == false)
        #expect(p.orderID == "GPA.1")
        #expect(p.purchaseTime == Timestamp(seconds: 1_764_547_200, nanoseconds: 123_000_000))
    }

    @Test func acknowledgedOrConsumedNeedsNoAcknowledgement() throws {
        #expect(try judge(#"{"purchaseTimeMillis":"1","purchaseState":0,"acknowledgementState":1}"#).isAcknowledged)
        #expect(try judge(#"{"purchaseTimeMillis":"1","purchaseState":0,"consumptionState":1}"#).isAcknowledged)
    }

    @Test func canceledIsReceiptInvalid() {
        #expect(refusal(#"{"purchaseTimeMillis":"1","purchaseState":1}"#)?.verdict == .receiptInvalid)
    }

    @Test func pendingIsPaymentPendingWithAnHour() {
        let r = refusal(#"{"purchaseTimeMillis":"1","purchaseState":2}"#)
        #expect(r?.verdict == .paymentPending)
        #expect(r?.retry == .hour)
    }

    @Test func testPurchaseTypeIsTestPurchase() {
        #expect(refusal(#"{"purchaseTimeMillis":"1","purchaseState":0,"purchaseType":0}"#)?.verdict == .testPurchase)
    }

    @Test func promoIsCredited() throws {
        #expect(try judge(#"{"purchaseTimeMillis":"1","purchaseState":0,"purchaseType":1}"#).isPromo)
    }

    @Test func otherPurchaseTypesAreInternal() {
        #expect(refusal(#"{"purchaseTimeMillis":"1","purchaseState":0,"purchaseType":2}"#)?.verdict == .internal)
        #expect(refusal(#"{"purchaseTimeMillis":"1","purchaseState":0,"purchaseType":7}"#)?.verdict == .internal)
    }

    @Test func unknownPurchaseStateIsInternal() {
        #expect(refusal(#"{"purchaseTimeMillis":"1","purchaseState":3}"#)?.verdict == .internal)
        #expect(refusal(#"{"purchaseTimeMillis":"1"}"#)?.verdict == .internal)
        #expect(refusal(#"{"purchaseTimeMillis":"1","purchaseState":"zero"}"#)?.verdict == .internal)
    }

    @Test func anotherProductIsInternal() {
        #expect(refusal(#"{"productId":"badge_legend_01","purchaseTimeMillis":"1","purchaseState":0}"#)?.verdict == .internal)
    }

    @Test func unreadableAnswersAreInternal() {
        for body in ["", "<html>", "[]", "{\"purchaseState\":0", #"{"purchaseState":0}"#] {
            #expect(refusal(body)?.verdict == .internal, "\(body)")
        }
    }

    @Test func quantityOtherThanOneIsInternal() {
        #expect(refusal(#"{"purchaseTimeMillis":"1","purchaseState":0,"quantity":2}"#)?.verdict == .internal)
    }
}

@Suite struct IdentifierTests {
    @Test func productIDsOutsidePlaysCharactersAreReceiptInvalid() {
        for id in ["", "Badge_supporter", "_badge", ".badge", "badge-supporter", "badge supporter", "badge/x", "bädge",
                   String(repeating: "a", count: 151)] {
            #expect(throws: PlayRefusal.self) { try PlayIdentifiers.checkProductID(id) }
            do { try PlayIdentifiers.checkProductID(id) } catch { #expect(error.verdict == .receiptInvalid, "\(id)") }
        }
        for id in ["badge_supporter_01", "0day", "a.b_c", String(repeating: "a", count: 150)] {
            #expect(throws: Never.self) { try PlayIdentifiers.checkProductID(id) }
        }
    }

    @Test func tokensOutsideTheGrammarAreNotSentAndProviderUnavailable() {
        for token in ["", ".", "..", "...", "abc/def", "abc%2F", "a b", "a?b", "a#b", String(repeating: "a", count: 4097)] {
            do { try PlayIdentifiers.checkToken(token); Issue.record("accepted \(token)") } catch {
                #expect(error.verdict == .providerUnavailable, "\(token)")
            }
        }
        for token in ["pabeldfhmkjnhppdkmgapcfg.AO-J1Ow_x", "a", ".a.", String(repeating: "a", count: 4096)] {
            #expect(throws: Never.self) { try PlayIdentifiers.checkToken(token) }
        }
    }
}

@Suite struct StatusMappingTests {
    @Test func readErrorsOtherThan401And403AreProviderUnavailable() {
        for status in [400, 404, 408, 409, 429, 500, 502, 503, 504, 302, 204] {
            do { try GooglePlayClient.readStatus(status, call: "x", subscription: false); Issue.record("\(status) passed") } catch {
                #expect(error.verdict == .providerUnavailable, "\(status)")
            }
        }
        do { try GooglePlayClient.readStatus(410, call: "x", subscription: false) } catch { #expect(error.verdict == .providerUnavailable) }
    }

    @Test func credentialRefusalsAreInternal() {
        for status in [401, 403] {
            for subscription in [false, true] {
                do { try GooglePlayClient.readStatus(status, call: "x", subscription: subscription); Issue.record("passed") } catch {
                    #expect(error.verdict == .internal)
                }
            }
        }
    }

    @Test func subscription410IsReceiptInvalid() {
        do { try GooglePlayClient.readStatus(410, call: "x", subscription: true); Issue.record("passed") } catch {
            #expect(error.verdict == .receiptInvalid)
        }
    }

    @Test func acknowledgementFailuresNameAcknowledging() {
        for (status, verdict) in [(401, StoreVerdict.internal), (403, .internal), (404, .providerUnavailable),
                                  (429, .providerUnavailable), (500, .providerUnavailable)] {
            do { try GooglePlayClient.acknowledgeStatus(status, call: "x"); Issue.record("passed") } catch {
                #expect(error.verdict == verdict, "\(status)")
                #expect(error.reason.contains("acknowledging"))
            }
        }
        #expect(throws: Never.self) { try GooglePlayClient.acknowledgeStatus(204, call: "x") }
    }

    @Test func tokenEndpointClasses() throws {
        for status in [408, 429, 500, 503] {
            do { _ = try AccessToken.fromTokenEndpoint(OutsideHTTPAnswer(status: status, body: []), now: 0); Issue.record("passed") } catch {
                #expect(error.verdict == .providerUnavailable, "\(status)")
            }
        }
        let grant = Array(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#.utf8)
        for status in [400, 401, 403, 404] {
            do { _ = try AccessToken.fromTokenEndpoint(OutsideHTTPAnswer(status: status, body: grant), now: 0); Issue.record("passed") } catch {
                #expect(error.verdict == .internal, "\(status)")
            }
        }
        for body in ["", "{}", #"{"access_token":"a"}"#, #"{"access_token":"a","expires_in":0}"#,
                     #"{"access_token":"a","expires_in":3599,"token_type":"MAC"}"#] {
            do { _ = try AccessToken.fromTokenEndpoint(OutsideHTTPAnswer(status: 200, body: Array(body.utf8)), now: 0); Issue.record("accepted \(body)") } catch {
                #expect(error.verdict == .internal, "\(body)")
            }
        }
        let token = try AccessToken.fromTokenEndpoint(
            OutsideHTTPAnswer(status: 200, body: Array(#"{"access_token":"ya29.x","expires_in":3599,"token_type":"Bearer"}"#.utf8)), now: 1000)
        #expect(token == AccessToken(value: "ya29.x", refreshAfter: 1000 + 3599 - 300))
        // A short lifetime is still reused for half of it, not fetched again on every call.
        let short = try AccessToken.fromTokenEndpoint(
            OutsideHTTPAnswer(status: 200, body: Array(#"{"access_token":"ya29.y","expires_in":240}"#.utf8)), now: 1000)
        #expect(short.refreshAfter == 1000 + 120)
    }
}
