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

    /// Decimal text in whole units as minor units: "14.00" or "14" usd → 1400; nil for text that
    /// is not a plain non-negative decimal or has more decimals than the currency.
    public static func minorUnits(decimalText text: String, currency: String) -> UInt64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let e = exponent(of: currency)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
              let units = UInt64(whole) else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }), parts.count == 1 || !fraction.isEmpty else { return nil }
        // Trailing zeros past the currency's decimals say nothing ("14.000" usd is 1400).
        while fraction.count > e, fraction.last == "0" { fraction.removeLast() }
        guard fraction.count <= e else { return nil }
        fraction += String(repeating: "0", count: e - fraction.count)
        var scale: UInt64 = 1
        for _ in 0..<e { scale *= 10 }
        return units * scale + (UInt64(fraction) ?? 0)
    }
}
