import Settings

/// `[bank_transfer]`: the test-only manual bank transfer's section, read through the same key
/// table every provider section has (required keys and defaults written once, here).
public struct BankTransferSettings: StoreSettings {
    /// The account the buyer transfers to.
    public var iban: String?
    /// The page that tells the buyer how to transfer (the invoice's reference appended).
    public var instructionsURL: String?
    /// The secret the bank's notices are signed with (`Bank-Signature`).
    public var webhookSecret: String?

    /// The page used while `instructions_url` is unset.
    public static let defaultInstructionsURL = "https://bank.test/transfer"

    public init() {}
    public static let section = "bank_transfer"
    public static let keys: [StoreKey<Self>] = [
        StoreKey.text("iban", \.iban).defaulting(.required),
        .url("instructions_url", \.instructionsURL, default: defaultInstructionsURL),
        StoreKey.secret("webhook_secret", \.webhookSecret).defaulting(.required),
    ]
}
