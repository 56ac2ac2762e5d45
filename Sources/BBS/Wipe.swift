import Glibc

/// Overwrites a byte buffer with zeros in a way the optimiser may not drop (explicit_bzero).
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
}

/// Overwrites a trivial value's storage with zeros (explicit_bzero).
func wipe<T: BitwiseCopyable>(value: inout T) {
    withUnsafeMutableBytes(of: &value) { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
}

/// Overwrites the elements of an array of trivial values with zeros (explicit_bzero); the array
/// must not be shared, or the copy-on-write would wipe a fresh copy instead.
func wipe<T: BitwiseCopyable>(elements: inout [T]) {
    elements.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
}
