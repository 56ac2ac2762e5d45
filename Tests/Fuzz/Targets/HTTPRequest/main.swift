import FuzzSupport
import HTTPServer

/// The HTTP/1.1 request parser (heads, fixed and chunked bodies, chunk extensions, trailers,
/// pipelined requests) on any byte stream. Beyond not crashing or hanging: the parser promises
/// the same events whatever the read boundaries, so the stream is parsed whole and again in
/// reads of a size the first byte picks, and both must tell the same story. The second byte
/// picks default limits or tight ones, so the limit checks are reached by short inputs.
fuzzMain { bytes in
    var input = FuzzInput(bytes)
    let readSize = Int(input.byte()) % 64 + 1
    let limits = input.byte() & 1 == 0
        ? HTTPLimits()
        : HTTPLimits(maxTargetLength: 24, maxFieldLineLength: 40, maxHeaderSectionSize: 96, maxHeaderFields: 4,
                     maxBodySize: 64, maxChunkExtensionSize: 16, maxTrailerSectionSize: 48, maxLeadingEmptyLines: 1)
    let stream = Array(input.rest)
    let whole = story(of: stream, reads: [stream.count], limits: limits)
    let split = story(of: stream, reads: stride(from: 0, to: stream.count, by: readSize).map { min(readSize, stream.count - $0) },
                      limits: limits)
    guard whole == split else {
        fatalError("read boundaries changed the events: whole \(whole) vs reads of \(readSize): \(split)")
    }
}

/// What the parser reported, with body bytes joined per request (reads split them differently).
enum Step: Equatable {
    case head(HTTPRequestHead)
    case body([UInt8])
    case end
    case error(HTTPParserError)
}

/// Feeds `stream` in reads of the given sizes, as a connection would: each read is offered
/// until the parser has consumed it or fails.
func story(of stream: [UInt8], reads: [Int], limits: HTTPLimits) -> [Step] {
    var parser = HTTPRequestParser(limits: limits)
    var steps: [Step] = []
    func add(_ step: Step) {
        if case .body(let more) = step, case .body(let earlier)? = steps.last {
            steps[steps.count - 1] = .body(earlier + more)
        } else {
            steps.append(step)
        }
    }
    var start = 0
    for size in reads {
        let chunk = Array(stream[start..<(start + size)])
        start += size
        var offset = 0
        var idle = 0
        while true {
            let (event, consumed) = chunk.withUnsafeBytes { buffer in
                parser.parse(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            }
            guard consumed >= 0, offset + consumed <= chunk.count else { fatalError("consumed \(consumed) of \(chunk.count - offset)") }
            switch event {
            case .needMoreData:
                guard offset + consumed == chunk.count else { fatalError("needMoreData with input left") }
            case .head(let head): add(.head(head))
            case .body(let range):
                guard range.lowerBound >= 0, range.upperBound <= consumed, !range.isEmpty else { fatalError("body range \(range) of \(consumed)") }
                add(.body(Array(chunk[(offset + range.lowerBound)..<(offset + range.upperBound)])))
            case .end: add(.end)
            case .error(let error):
                add(.error(error))
                return steps
            }
            offset += consumed
            // Progress: an event that consumes nothing may happen once (`.end` of an empty body),
            // never twice in a row.
            idle = consumed == 0 ? idle + 1 : 0
            guard idle < 3 else { fatalError("the parser stopped consuming") }
            if case .needMoreData = event { break }
            if offset == chunk.count, case .body = event { break }
        }
    }
    return steps
}
