/// SplitMix64: a tiny, seedable, reproducible generator (Steele, Lea, Flood 2014).
public struct SplitMix64 {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range` (the tiny modulo bias is irrelevant for test inputs).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    public mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    public mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}
