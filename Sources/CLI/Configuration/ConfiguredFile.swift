/// The files the configuration names (and the configuration file itself), read as their
/// readers need them: a UTF-8 byte-order mark, which Windows editors write, is skipped; a file
/// starting with a UTF-16 or UTF-32 byte-order mark is refused naming it, never misread.
enum ConfiguredFile {
    static let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The file's bytes after a UTF-8 byte-order mark, or the failure naming the path.
    static func read(_ path: String) -> Result<[UInt8], FileSystemError> {
        FileSystem.read(path).flatMap { bytes in
            if bytes.starts(with: utf8ByteOrderMark) { return .success(Array(bytes.dropFirst(utf8ByteOrderMark.count))) }
            if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
                let mark = bytes.prefix(bytes.starts(with: [0x00, 0x00]) ? 4 : 2).map { String($0, radix: 16, uppercase: true) }
                return .failure(FileSystemError("read", path: path,
                                                reason: "UTF-16 or UTF-32 text (byte-order mark \(mark.joined(separator: " "))): save it as UTF-8"))
            }
            return .success(bytes)
        }
    }

    /// The file as UTF-8 text, without a byte-order mark.
    static func readText(_ path: String) -> Result<String, FileSystemError> {
        read(path).flatMap { bytes in
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(FileSystemError("read", path: path, reason: "not UTF-8 text"))
            }
            return .success(text)
        }
    }
}
