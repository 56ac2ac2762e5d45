/// An error (or error code) that is answered with one fixed HTTP status. Every refusal the
/// service sends is a conformance, so each status decision lives in exactly one place.
public protocol HTTPStatusMapped {
    /// The status code of the response that reports this error.
    var httpStatus: Int { get }
}
