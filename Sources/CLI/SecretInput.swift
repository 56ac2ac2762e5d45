import Foundation

/// A secret an operator command takes (a code, a master key, a receipt in a command object):
/// read from a file, or from standard input for `-`, never from the command line, where other
/// users' `ps` and the shell's history would show it.
enum SecretInput {
    /// The text of `path` (or standard input for `-`) without its trailing newline; `what` names
    /// the secret in the one-line error, which never shows it.
    static func read(_ path: String, what: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            switch FileSystem.read(path) {
            case .success(let bytes): data = Data(bytes)
            case .failure(let failure): throw CommandFailure("cannot read \(what) from \(path): \(failure.reason)")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("\(what) from \(path == "-" ? "standard input" : path): not UTF-8 text")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw CommandFailure("\(what) from \(path == "-" ? "standard input" : path): empty") }
        return trimmed
    }

    /// The refusal of a secret given where a file name goes: it is not echoed.
    static func onCommandLine(_ what: String) -> UsageError {
        UsageError("\(what) on the command line would be visible to other users (ps) and kept in shell history: "
                   + "give the path of a file holding it, or - and pipe it in")
    }
}
