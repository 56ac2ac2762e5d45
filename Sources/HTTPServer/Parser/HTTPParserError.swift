/// Why a request could not be framed, and the status to answer it with.
///
/// Every case closes the connection after the response: once the parser disagrees with the
/// client about where a request ends, no later byte on that connection can be trusted to
/// start a request (that disagreement is how request smuggling works), so the server never
/// tries to resynchronise.
public enum HTTPParserError: Error, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    // 400 — line and grammar errors
    /// A LF not preceded by CR (RFC 9112 allows accepting it; a strict server refuses).
    case bareLF
    /// A CR not followed by LF outside of content.
    case bareCR
    /// More empty lines before the request-line than tolerated.
    case tooManyEmptyLines
    /// The request-line is not `method SP request-target SP HTTP-version`.
    case invalidRequestLine
    /// The method is not a token.
    case invalidMethod
    /// The request-target has a byte or form not allowed (including a malformed `%XX`).
    case invalidTarget
    /// `*` with a method other than OPTIONS.
    case asteriskFormWithoutOptions
    /// The version is not `HTTP/` DIGIT `.` DIGIT.
    case invalidVersion
    /// A field name that is empty or not a token.
    case invalidFieldName
    /// Whitespace between a field name and its colon (RFC 9112 §5.1: MUST 400).
    case whitespaceBeforeColon
    /// A line starting with whitespace in a field section (obs-fold, or before the first field).
    case obsoleteLineFolding
    /// A field value with NUL, another control byte or DEL.
    case invalidFieldValue
    /// No Host in an HTTP/1.1 request.
    case missingHost
    /// More than one Host field line.
    case duplicateHost
    /// A Host value that is not `uri-host [ ":" port ]`.
    case invalidHost
    /// A Content-Length that is not 1*DIGIT, or that overflows.
    case invalidContentLength
    /// Several Content-Length lines or a list, even of equal values.
    case duplicateContentLength
    /// Both Transfer-Encoding and Content-Length.
    case contentLengthWithTransferEncoding
    /// Transfer-Encoding in an HTTP/1.0 request (RFC 9112 §6.1: faulty framing).
    case transferEncodingInHTTP10
    /// A Transfer-Encoding list where `chunked` is not last, appears twice, or the list is malformed.
    case invalidTransferEncoding
    /// A chunk-size that is not 1*HEXDIG or overflows.
    case invalidChunkSize
    /// A chunk extension that does not follow `;name[=token|quoted-string]`.
    case invalidChunkExtension
    /// More chunk-extension octets than `HTTPLimits.maxChunkExtensionSize`.
    case chunkExtensionTooLong
    /// Missing CRLF after chunk data, or chunk data longer than its size.
    case invalidChunkFraming
    // 413, 414, 417, 431, 501, 505
    /// Content-Length or the de-chunked body is larger than `HTTPLimits.maxBodySize`.
    case bodyTooLarge
    /// The request-target is longer than `HTTPLimits.maxTargetLength`.
    case targetTooLong
    /// An `Expect` other than `100-continue`.
    case unsupportedExpectation
    /// One field line longer than `HTTPLimits.maxFieldLineLength`.
    case fieldLineTooLong
    /// Header section larger than `HTTPLimits.maxHeaderSectionSize`.
    case headerSectionTooLarge
    /// More field lines than `HTTPLimits.maxHeaderFields`.
    case tooManyFields
    /// Trailer section larger than `HTTPLimits.maxTrailerSectionSize`.
    case trailerSectionTooLarge
    /// A method this server does not implement.
    case unknownMethod
    /// A transfer coding other than `chunked` (gzip, identity, parameters, …).
    case unsupportedTransferCoding
    /// An HTTP major version other than 1 (HTTP/2.0 request-lines and the h2 preface included).
    case unsupportedVersion

    /// The status code the server answers with.
    public var httpStatus: Int {
        switch self {
        case .bareLF, .bareCR, .tooManyEmptyLines, .invalidRequestLine, .invalidMethod, .invalidTarget,
             .asteriskFormWithoutOptions, .invalidVersion, .invalidFieldName, .whitespaceBeforeColon,
             .obsoleteLineFolding, .invalidFieldValue, .missingHost, .duplicateHost, .invalidHost,
             .invalidContentLength, .duplicateContentLength, .contentLengthWithTransferEncoding,
             .transferEncodingInHTTP10, .invalidTransferEncoding, .invalidChunkSize, .invalidChunkExtension,
             .chunkExtensionTooLong, .invalidChunkFraming: 400
        case .bodyTooLarge: 413
        case .targetTooLong: 414
        case .unsupportedExpectation: 417
        case .fieldLineTooLong, .headerSectionTooLarge, .tooManyFields, .trailerSectionTooLarge: 431
        case .unknownMethod, .unsupportedTransferCoding: 501
        case .unsupportedVersion: 505
        }
    }

    /// A short explanation, sent as the `message` of the error body.
    public var description: String {
        switch self {
        case .bareLF: "line ended by LF without CR"
        case .bareCR: "CR not followed by LF"
        case .tooManyEmptyLines: "too many empty lines before the request-line"
        case .invalidRequestLine: "malformed request-line"
        case .invalidMethod: "method is not a token"
        case .invalidTarget: "malformed request-target"
        case .asteriskFormWithoutOptions: "'*' target is only allowed with OPTIONS"
        case .invalidVersion: "malformed HTTP version"
        case .invalidFieldName: "malformed field name"
        case .whitespaceBeforeColon: "whitespace between field name and colon"
        case .obsoleteLineFolding: "line folding or leading whitespace in the field section"
        case .invalidFieldValue: "forbidden byte in field value"
        case .missingHost: "missing Host"
        case .duplicateHost: "more than one Host"
        case .invalidHost: "invalid Host"
        case .invalidContentLength: "invalid Content-Length"
        case .duplicateContentLength: "more than one Content-Length"
        case .contentLengthWithTransferEncoding: "both Transfer-Encoding and Content-Length"
        case .transferEncodingInHTTP10: "Transfer-Encoding in an HTTP/1.0 request"
        case .invalidTransferEncoding: "chunked must be the last transfer coding, once"
        case .invalidChunkSize: "invalid chunk size"
        case .invalidChunkExtension: "invalid chunk extension"
        case .chunkExtensionTooLong: "chunk extensions too long"
        case .invalidChunkFraming: "chunk data not followed by CRLF"
        case .bodyTooLarge: "body too large"
        case .targetTooLong: "request-target too long"
        case .unsupportedExpectation: "only 100-continue is supported in Expect"
        case .fieldLineTooLong: "field line too long"
        case .headerSectionTooLarge: "header section too large"
        case .tooManyFields: "too many header fields"
        case .trailerSectionTooLarge: "trailer section too large"
        case .unknownMethod: "method not implemented"
        case .unsupportedTransferCoding: "transfer coding not implemented"
        case .unsupportedVersion: "only HTTP/1.x is supported"
        }
    }
}
