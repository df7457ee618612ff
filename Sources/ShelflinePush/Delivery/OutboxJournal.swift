import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// `<workspace>/push/outbox.journal`: cursors recorded since `outbox.json` was written, one JSON line
/// each, one `fsync` per group. Rewriting the outbox per group would make a send quadratic in the
/// tokens; `send` compacts the journal when it finishes and reading the outbox replays a killed send's.
enum OutboxJournal {
    fileprivate struct Entry: Codable {
        var token: String
        /// null: taken back (a `start` or `end` recorded, then not sent); a line without it is no entry.
        var cursor: Cursor?

        enum CodingKeys: String, CodingKey { case token, cursor }
    }

    /// Opened per append: a `register` meanwhile may have compacted it away. Returns once they are on disk.
    static func append(_ cursors: [(token: String, cursor: Cursor?)], path: String) throws {
        guard !cursors.isEmpty else { return }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError.io(path: path, reason: "open: \(systemErrorMessage())") }
        defer { close(descriptor) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var bytes: [UInt8] = []
        for (token, cursor) in cursors {
            bytes += try encoder.encode(Entry(token: token, cursor: cursor))
            bytes.append(UInt8(ascii: "\n"))
        }
        try bytes.withUnsafeBytes { try writeAll($0, to: descriptor, path: path) }
        guard fsync(descriptor) == 0 else { throw FileError.io(path: path, reason: "fsync: \(systemErrorMessage())") }
    }

    /// A last line without its newline is a group a crash cut short (never acknowledged): ignored.
    static func replay(path: String, into outbox: inout Outbox) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "cannot read the push outbox journal")
        }
        let decoder = JSONDecoder()
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().enumerated() {
            guard let entry = try? decoder.decode(Entry.self, from: line) else {
                throw FileError.corrupt(
                    path: path, line: index + 1, reason: "not a journal entry; move the file away to resend from outbox.json")
            }
            outbox.cursors[entry.token] = entry.cursor
        }
    }

    static func remove(path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileError.io(path: path, reason: "unlink: \(systemErrorMessage())")
        }
    }
}

/// In an extension, so that the memberwise initializer stays.
extension OutboxJournal.Entry {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        token = try container.decode(String.self, forKey: .token)
        cursor = try container.decode(Cursor?.self, forKey: .cursor)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encode(cursor, forKey: .cursor)
    }
}
