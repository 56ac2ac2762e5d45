/// ISO 4217 minor units: how many decimals a currency's amounts have (2 unless listed).
public enum CurrencyUnits {
    static let zeroDecimal: Set<String> = ["bif", "clp", "djf", "gnf", "isk", "jpy", "kmf", "krw", "pyg", "rwf", "ugx",
                                           "vnd", "vuv", "xaf", "xof", "xpf"]
    static let threeDecimal: Set<String> = ["bhd", "iqd", "jod", "kwd", "lyd", "omr", "tnd"]

    /// Decimals of `currency` (case-insensitive).
    public static func exponent(of currency: String) -> Int {
        let c = currency.lowercased()
        if zeroDecimal.contains(c) { return 0 }
        if threeDecimal.contains(c) { return 3 }
        return 2
    }

    /// `amount` minor units as decimal text in whole units: 1400 usd → "14.00".
    public static func decimalText(minorUnits amount: UInt32, currency: String) -> String {
        let e = exponent(of: currency)
        guard e > 0 else { return String(amount) }
        var scale: UInt32 = 1
        for _ in 0..<e { scale *= 10 }
        let fraction = String(amount % scale)
        return "\(amount / scale)." + String(repeating: "0", count: e - fraction.count) + fraction
    }
}
