/// The class of answer the spec assigns to an App Store verdict ("Which class an answer
/// belongs to"): the handler maps it to an error code; the reason is for the log only.
public enum AppStoreAnswerClass: String, Sendable, Equatable {
    /// Terminal: the evidence can never verify, or Apple said so and cannot change its mind.
    case receiptInvalid = "receipt_invalid"
    /// Terminal and named: Apple vouched for a purchase that cost nothing (Sandbox).
    case testPurchase = "test_purchase"
    /// This service's own failure or configuration, or evidence in a shape it does not know.
    case `internal` = "internal"
}

/// Why a signed App Store document was not accepted: the spec's class and a reason for the log.
/// The reason never holds the JWS or any part of it.
public struct AppStoreRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let answer: AppStoreAnswerClass
    public let reason: String

    public init(_ answer: AppStoreAnswerClass, _ reason: String) {
        self.answer = answer
        self.reason = reason
    }

    static func invalid(_ reason: String) -> AppStoreRefusal { AppStoreRefusal(.receiptInvalid, reason) }
    static func `internal`(_ reason: String) -> AppStoreRefusal { AppStoreRefusal(.internal, reason) }
    static func test(_ reason: String) -> AppStoreRefusal { AppStoreRefusal(.testPurchase, reason) }

    public var description: String { "\(answer.rawValue): \(reason)" }
}
