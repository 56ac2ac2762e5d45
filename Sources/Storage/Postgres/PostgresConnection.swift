import CLibPQ
import Foundation

/// One libpq connection. Not thread-safe: ``PostgresDatabase`` hands each one to one thread at a
/// time. Statements are written with SQLite's `?` placeholders (the store's queries are shared)
/// and numbered `$1, $2, …` here.
final class PostgresConnection: SQLConnection {
    private let handle: OpaquePointer
    private var numbered: [String: String] = [:]
    private(set) var changes = 0
    /// Set once a failure showed the connection unusable (lost, or in an unknown state): the pool
    /// closes it instead of handing it out again.
    private(set) var isBroken = false
    /// Set when a statement failed with a serialisation failure or a deadlock: the transaction is
    /// lost whatever the caller's body made of the error, and the whole body is run again.
    private(set) var mustRetryTransaction = false
    /// Set when the server did not answer in time: nothing sent on this connection is known to
    /// have run or not, and the server may not be reachable at all.
    private(set) var timedOut = false
    /// How long a statement waits for its answer on the socket. The server cancels a statement at
    /// `statement_timeout` itself, but a frozen or unreachable server cancels nothing: this
    /// deadline, a little past the server's, is what bounds a request then.
    private let answerWait: Duration
    /// Set while a migration step runs: it may wait for another instance's step, and the server
    /// bounds none of it either.
    private var answerWaitLifted = false
    private let server: String

    /// Connects within the settings' connect timeout, every statement bounded by their statement
    /// timeout. A failure is ``StorageError/unavailable(reason:)`` naming the server, never the password.
    init(settings: PostgresSettings) throws {
        var pairs: [(String, String)] = [
            // Before the URL, so the URL's own values win: TCP keepalives and an unacknowledged-data
            // limit close a connection whose host vanished instead of leaving it waiting for hours.
            ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
            ("tcp_user_timeout", "30000"),
            ("dbname", settings.url),
            ("connect_timeout", String(settings.connectTimeoutSeconds)),
            ("application_name", "badge-service"),
            ("options", "-c statement_timeout=\(settings.statementTimeoutMilliseconds)"
                + " -c idle_in_transaction_session_timeout=\(max(settings.statementTimeoutMilliseconds * 2, 1_000))"),
        ]
        if let password = settings.password { pairs.append(("password", password)) }
        let keys = pairs.map { strdup($0.0) }, values = pairs.map { strdup($0.1) }
        defer { (keys + values).forEach { free($0) } }
        let keyPointers = keys.map { UnsafePointer($0) } + [nil], valuePointers = values.map { UnsafePointer($0) } + [nil]
        // expand_dbname = 1: the first dbname is the whole connection string or URI.
        guard let conn = PQconnectdbParams(keyPointers, valuePointers, 1) else {
            throw StorageError.unavailable(reason: "cannot connect to \(settings.redacted): out of memory")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let reason = Self.oneLine(PQerrorMessage(conn))
            PQfinish(conn)
            throw StorageError.unavailable(reason: "cannot connect to \(settings.redacted): \(reason)")
        }
        handle = conn
        server = settings.redacted
        answerWait = .milliseconds(settings.statementTimeoutMilliseconds + Self.answerMargin)
        // Statements are sent and awaited with a deadline of our own (``answer(sent:)``).
        guard PQsetnonblocking(conn, 1) == 0 else {
            PQfinish(conn)
            throw StorageError.unavailable(reason: "cannot connect to \(settings.redacted): libpq refused non-blocking mode")
        }
        // Notices (a NOTICE from CREATE TABLE IF NOT EXISTS) would go to stderr; nothing in them is ours to act on.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Whether the server still answers on this connection as far as libpq knows.
    var isOpen: Bool { !isBroken && PQstatus(handle) == CONNECTION_OK }

    /// What the answer deadline adds to the server's `statement_timeout`, so that a server that
    /// answers at all answers first (its cancellation is the cleaner failure).
    static let answerMargin = 500

    /// Runs `body` with no deadline on the answers (migration steps; see ``answerWait``).
    func withoutAnswerDeadline<T>(_ body: () throws -> T) rethrows -> T {
        answerWaitLifted = true
        defer { answerWaitLifted = false }
        return try body()
    }

    /// Runs SQL without bound values (may hold several statements).
    func execute(_ sql: String) throws {
        let result = try answer(sent: PQsendQuery(handle, sql))
        defer { PQclear(result) }
        _ = try rows(of: result)
    }

    @discardableResult
    func query(_ sql: String, _ values: [SQLValue]) throws -> [SQLRow] {
        let text = numberedPlaceholders(sql)
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = [], formats: [Int32] = []
        for value in values {
            switch value {
            case .null:
                buffers.append(nil); lengths.append(0); formats.append(0)
            case .integer(let v):
                buffers.append(strdup(String(v))); lengths.append(0); formats.append(0)
            case .text(let s):
                buffers.append(strdup(s)); lengths.append(0); formats.append(0)
            case .blob(let bytes):
                // Binary format: the bytes as they are, no escaping.
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count) }
                }
                buffers.append(buffer); lengths.append(Int32(bytes.count)); formats.append(1)
            }
        }
        defer { buffers.forEach { $0.map { free($0) } } }
        let pointers = buffers.map { UnsafePointer($0) }
        let result = try answer(sent: PQsendQueryParams(handle, text, Int32(values.count), nil, pointers, lengths, formats, 0))
        defer { PQclear(result) }
        return try rows(of: result)
    }

    /// Waits for the answer to what was just sent, as `PQexec` would but never past ``answerWait``:
    /// the last result, or the first failed one. A connection past its deadline is given up.
    private func answer(sent: Int32) throws -> OpaquePointer {
        guard sent == 1 else { throw lost(Self.oneLine(PQerrorMessage(handle))) }
        let deadline = answerWaitLifted ? nil : ContinuousClock.now + answerWait
        // Non-blocking: what did not fit the socket waits in libpq's buffer until flushed.
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { break }
            guard flushed > 0 else { throw lost(Self.oneLine(PQerrorMessage(handle))) }
            try waitForSocket(Int16(POLLIN | POLLOUT), until: deadline)
            guard PQconsumeInput(handle) == 1 else { throw lost(Self.oneLine(PQerrorMessage(handle))) }
        }
        var kept: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                do {
                    try waitForSocket(Int16(POLLIN), until: deadline)
                } catch {
                    PQclear(kept)
                    throw error
                }
                guard PQconsumeInput(handle) == 1 else {
                    PQclear(kept)
                    throw lost(Self.oneLine(PQerrorMessage(handle)))
                }
            }
            guard let result = PQgetResult(handle) else { break }
            if let previous = kept, Self.failed(previous) {
                PQclear(result)
            } else {
                PQclear(kept)
                kept = result
            }
        }
        guard let kept else { throw lost(Self.oneLine(PQerrorMessage(handle))) }
        return kept
    }

    private static func failed(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE
    }

    /// Waits until the socket is ready for `events` or the deadline passes (then the connection
    /// is given up: a statement may be running or committed, so it is never reused); no deadline waits as long as it takes.
    private func waitForSocket(_ events: Int16, until deadline: ContinuousClock.Instant?) throws {
        let fd = PQsocket(handle)
        guard fd >= 0 else { throw lost("the connection has no socket") }
        while true {
            let left = deadline.map { $0 - ContinuousClock.now } ?? .seconds(3600)
            guard left > .zero else {
                timedOut = true
                isBroken = true
                throw StorageError.unavailable(reason: "\(server) did not answer within \(answerWait.wholeMilliseconds) ms ([database] statement_timeout_ms)")
            }
            var ready = pollfd(fd: fd, events: events, revents: 0)
            let milliseconds = deadline == nil ? -1 : Int32(clamping: max(1, left.wholeMilliseconds))
            let n = poll(&ready, 1, milliseconds)
            if n > 0 { return }
            if n < 0 && errno != EINTR { throw lost("poll failed (errno \(errno))") }
        }
    }

    private func lost(_ reason: String) -> StorageError {
        isBroken = true
        return .unavailable(reason: reason)
    }

    /// `?` outside quoted text becomes `$1`, `$2`, … (kept per statement text).
    private func numberedPlaceholders(_ sql: String) -> String {
        if let done = numbered[sql] { return done }
        var out = "", n = 0, quoted = false
        for ch in sql {
            if ch == "'" { quoted.toggle() }
            if ch == "?" && !quoted {
                n += 1
                out += "$\(n)"
            } else {
                out.append(ch)
            }
        }
        numbered[sql] = out
        return out
    }

    private func rows(of result: OpaquePointer?) throws -> [SQLRow] {
        guard let result else {
            isBroken = true
            throw StorageError.unavailable(reason: Self.oneLine(PQerrorMessage(handle)))
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        guard status == PGRES_TUPLES_OK else { return [] }
        let columns = PQnfields(result), count = PQntuples(result)
        let types = (0..<columns).map { PQftype(result, $0) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(count))
        for r in 0..<count {
            var row: [SQLValue] = []
            row.reserveCapacity(Int(columns))
            for c in 0..<columns {
                if PQgetisnull(result, r, c) == 1 {
                    row.append(.null)
                    continue
                }
                let text = String(cString: PQgetvalue(result, r, c))
                row.append(try Self.value(text, type: types[Int(c)]))
            }
            rows.append(SQLRow(values: row))
        }
        return rows
    }

    /// A text-format value of the column type `oid` (pg_type's fixed oids).
    private static func value(_ text: String, type oid: UInt32) throws -> SQLValue {
        switch oid {
        case 20, 21, 23, 26:  // int8, int2, int4, oid
            guard let v = Int64(text) else { throw StorageError.corrupt("integer column holds \(text)") }
            return .integer(v)
        case 1700:  // numeric: SUM of bigint; whole numbers read as integers
            return Int64(text).map { .integer($0) } ?? .text(text)
        case 16:  // bool
            return .integer(text == "t" ? 1 : 0)
        case 17:  // bytea, hex output (\x…)
            return .blob(try hexBytes(text))
        default:
            return .text(text)
        }
    }

    private static func hexBytes(_ text: String) throws -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            throw StorageError.corrupt("bytea value not in hex output")
        }
        func nibble(_ c: UInt8) throws -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            default: throw StorageError.corrupt("bytea value not in hex output")
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var i = 2
        while i < utf8.count {
            bytes.append(try nibble(utf8[i]) << 4 | nibble(utf8[i + 1]))
            i += 2
        }
        return bytes
    }

    /// Classifies a failed result by its SQLSTATE, as ``StorageError/classify(extended:message:)`` does SQLite's codes.
    private func failure(_ result: OpaquePointer) -> StorageError {
        func field(_ code: Int32) -> String? { PQresultErrorField(result, code).map { String(cString: $0) } }
        let sqlstate = field(CLIBPQ_DIAG_SQLSTATE)
        let message = field(CLIBPQ_DIAG_MESSAGE_PRIMARY) ?? Self.oneLine(PQerrorMessage(handle))
        if PQstatus(handle) != CONNECTION_OK || sqlstate == nil {
            isBroken = true
            return .unavailable(reason: message)
        }
        let state = sqlstate!
        switch state {
        case "23505": return .conflict(constraint: message)
        case "23514": return .brokenInvariant(.check, constraint: message)
        case "23502": return .brokenInvariant(.notNull, constraint: message)
        case "23503": return .brokenInvariant(.foreignKey, constraint: message)
        case "40001", "40P01":
            mustRetryTransaction = true
            return .conflict(constraint: "\(message) (retried)")
        case "57014": return .unavailable(reason: "a statement ran past [database] statement_timeout_ms")
        default:
            if state.hasPrefix("23") { return .brokenInvariant(.other, constraint: message) }
            // Connection exceptions, the server shutting down or starting, too many connections.
            if state.hasPrefix("08") || state.hasPrefix("57P") {
                isBroken = true
                return .unavailable(reason: message)
            }
            if state.hasPrefix("53") { return .unavailable(reason: message) }
            return .postgres(sqlstate: state, message: message)
        }
    }

    /// Starts a transaction's attempt afresh: no failure of a previous attempt carries over.
    func resetTransactionState() { mustRetryTransaction = false }

    /// Ends a failed transaction; a connection that cannot even roll back is not reused. A
    /// connection already given up is not asked (the server drops its transaction with it).
    func rollback() {
        guard !isBroken else { return }
        guard let result = try? answer(sent: PQsendQuery(handle, "ROLLBACK")) else {
            isBroken = true
            return
        }
        defer { PQclear(result) }
        if PQresultStatus(result) != PGRES_COMMAND_OK { isBroken = true }
    }

    static func oneLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}
