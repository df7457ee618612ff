import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The persistent library file: scanned into a key index; a new generation published, the previous kept.
public struct LibraryFile {
    public let workspace: Workspace

    public init(workspace: Workspace) { self.workspace = workspace }

    public var path: String { workspace.libraryFile }
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    struct IndexEntry: Decodable {
        var id: String
        var keys: [String]
        var provenance: [Creation]?

        struct Creation: Decodable {
            var importId: String
            var fields: [String]
        }

        var createdBy: String? {
            guard let first = provenance?.first, first.fields == ["created"] else { return nil }
            return first.importId
        }
    }

    /// Registers every book's keys, checking the ids ascend; any problem is `LibraryError.corruptLibrary`.
    /// Books `importId` created (an interrupted or repeated run) count as not in the library, so its rows
    /// are `added` again, never `updated`. Returns the books' ids in file order.
    public func scan(into resolver: inout KeyResolver, importId: String? = nil) throws -> [UInt64] {
        var ids: [UInt64] = []
        guard exists else { return ids }
        let decoder = JSONDecoder()
        do {
            let reader = try GzipReader(path: path)
            var previous: UInt64?
            try reader.forEachLine { bytes, line in
                guard !bytes.isEmpty else {
                    throw FileError.corrupt(path: path, line: line, reason: "empty line")
                }
                let entry: IndexEntry
                if let fields = IndexLineScanner.scan(bytes), let id = fields.id, let keys = fields.keys {
                    entry = IndexEntry(
                        id: id, keys: keys,
                        provenance: fields.createdBy.map { [.init(importId: $0, fields: ["created"])] })
                } else {
                    do {
                        entry = try decoder.decode(IndexEntry.self, from: Data(bytes))
                    } catch {
                        throw FileError.corrupt(path: path, line: line, reason: "invalid book: \(describeDecoding(error))")
                    }
                }
                guard let id = BookKeys.idBits(entry.id) else {
                    throw FileError.corrupt(path: path, line: line, reason: "invalid book id '\(entry.id)'")
                }
                if let previous, previous >= id {
                    throw FileError.corrupt(path: path, line: line, reason: "book ids out of order or repeated at \(entry.id)")
                }
                previous = id
                ids.append(id)
                try resolver.addLibraryBook(
                    id: id, keys: entry.keys,
                    existedBeforeImport: importId == nil || entry.createdBy != importId)
            }
        } catch let error as FileError {
            switch error {
            case .corrupt(_, let line, let reason):
                throw corrupt(line.map { "line \($0): \(reason)" } ?? reason)
            case .missingInput(_, let reason), .io(_, let reason):
                throw corrupt(reason)
            case .cannotCreate:
                throw error
            }
        }
        return ids
    }

    func corrupt(_ reason: String) -> LibraryError {
        .corruptLibrary(
            path: path, reason: reason, backup: workspace.libraryBackup,
            backupExists: FileManager.default.fileExists(atPath: workspace.libraryBackup))
    }

    /// Publishes `file` (on the library's file system) as the new generation, the current one kept as the
    /// previous unless `keepingPrevious` is false (a damaged one must not replace a good previous one).
    public func publish(_ file: String, keepingPrevious: Bool = true) throws {
        if keepingPrevious { try keepPreviousGeneration() }
        guard rename(file, path) == 0 else { throw FileError.cannotCreate(path: path, reason: "rename: \(systemErrorMessage())") }
        let directory = open(workspace.libraryDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// A hard link, else a copy, renamed into place.
    func keepPreviousGeneration() throws {
        guard exists else { return }
        let backup = workspace.libraryBackup
        let temporary = workspace.libraryDirectory + "/.library.previous.tmp-\(getpid())"
        unlink(temporary)
        if link(path, temporary) != 0 {
            do {
                try FileManager.default.copyItem(atPath: path, toPath: temporary)
            } catch {
                throw FileError.cannotCreate(path: backup, reason: (error as NSError).localizedDescription)
            }
        }
        guard rename(temporary, backup) == 0 else {
            let reason = systemErrorMessage()
            unlink(temporary)
            throw FileError.cannotCreate(path: backup, reason: "rename: \(reason)")
        }
    }
}

/// An exclusive `flock` on `library/.merge.lock` around merge's and review's updates; apart from the
/// orchestrator's workspace lock, so they never deadlock.
public final class MergeLock {
    private let descriptor: Int32
    public let path: String

    /// Blocks until the lock is ours.
    public init(workspace: Workspace) throws {
        try Workspace.makeDirectory(workspace.libraryDirectory)
        path = workspace.libraryDirectory + "/.merge.lock"
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError.cannotCreate(path: path, reason: systemErrorMessage()) }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let reason = systemErrorMessage()
            close(fd)
            throw FileError.io(path: path, reason: "flock: \(reason)")
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
