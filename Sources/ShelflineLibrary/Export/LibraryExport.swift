import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writes the library in an export format, a book at a time (memory stays flat), in book id order.
public struct LibraryExport {
    public var format: ExportFormat
    /// Only books on one of these shelves (exclusive or not); empty: every book.
    public var shelves: Set<String>

    public init(format: ExportFormat, shelves: [String] = []) {
        self.format = format
        self.shelves = Set(shelves)
    }

    public struct Summary: Equatable, Sendable {
        public var books = 0
        public var skipped = 0
    }

    /// A shelf asked for that no book is on is a `UsageError` thrown once the library is read; the header
    /// waits for the first row, so then nothing at all reaches `sink`.
    @discardableResult
    public func write(library path: String, to sink: any ByteSink) throws -> Summary {
        var summary = Summary()
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        var line = CSVLine()
        var headerPending = true
        func header() {
            guard headerPending else { return }
            headerPending = false
            switch format {
            case .goodreads: out.append(contentsOf: headerLine(GoodreadsExport.header, GoodreadsExport.terminator))
            case .storygraph: out.append(contentsOf: headerLine(StoryGraphExport.header, StoryGraphExport.terminator))
            case .ndjson: break
            }
        }
        func flush() throws {
            if out.count >= 1 << 16 {
                try sink.write(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        if format == .ndjson && shelves.isEmpty {
            try LibraryBooks.requireLibrary(path)
            header()
            try LineReader.forEachLine(path: path) { bytes, _ in
                guard !bytes.isEmpty else { return }
                out.append(contentsOf: bytes)
                out.append(0x0A)
                summary.books += 1
                try flush()
            }
        } else {
            var selection = ShelfSelection(shelves)
            try LibraryBooks.forEach(path: path) { book, bytes in
                guard selection.contains(book) else { summary.skipped += 1; return }
                header()
                summary.books += 1
                line.reset()
                switch format {
                case .goodreads: GoodreadsExport.write(book, to: &line)
                case .storygraph: StoryGraphExport.write(book, to: &line)
                case .ndjson:
                    line.bytes.append(contentsOf: bytes)
                    line.bytes.append(0x0A)
                }
                out.append(contentsOf: line.bytes)
                try flush()
            }
            try selection.requireEveryShelf()
            header()
        }
        if !out.isEmpty { try sink.write(out) }
        return summary
    }

    func headerLine(_ header: [String], _ terminator: String) -> [UInt8] {
        var line = CSVLine()
        for name in header { line.cell(name) }
        line.end(terminator)
        return line.bytes
    }
}

/// The books on any of the shelves asked for (every book when none was), for `export --shelf` and
/// `library list --shelf`; a misspelt shelf is then an error naming the library's shelves, not an empty result.
public struct ShelfSelection {
    public let shelves: Set<String>
    /// Asked for, on no book seen so far.
    private var unseen: Set<String>
    /// The shelves of the books seen while `unseen` was not empty (the message's list).
    private var known: Set<String> = []

    public init(_ shelves: Set<String>) {
        self.shelves = shelves
        unseen = shelves
    }

    public mutating func contains(_ book: LibraryBook) -> Bool {
        guard !shelves.isEmpty else { return true }
        if !unseen.isEmpty {
            for shelf in [book.shelf].compactMap({ $0 }) + (book.shelves ?? []) {
                unseen.remove(shelf)
                known.insert(shelf)
            }
        }
        if let shelf = book.shelf, shelves.contains(shelf) { return true }
        return book.shelves?.contains(where: shelves.contains) ?? false
    }

    /// After every book: `UsageError` (64) when a shelf asked for is on no book.
    public func requireEveryShelf() throws {
        // A reading state is a shelf of every library: an empty to-read shelf is no misspelling.
        let unknown = unseen.subtracting(GoodreadsExport.exclusive)
        guard !unknown.isEmpty else { return }
        let missing = unknown.sorted().map { "'\($0)'" }.joined(separator: ", ")
        let names = known.sorted()
        let listed = names.prefix(40).joined(separator: ", ") + (names.count > 40 ? ", … (\(names.count) in all)" : "")
        throw UsageError("no book is on shelf \(missing); the library's shelves: \(names.isEmpty ? "none" : listed)")
    }
}

/// Standard output as a `ByteSink`; a closed pipe is `StandardOutput.Closed` (nothing more to do).
public final class StandardOutput: ByteSink {
    public struct Closed: Error {}

    public init() {}

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(1, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { throw Closed() }
                throw FileError.io(path: "<stdout>", reason: systemErrorMessage())
            }
            offset += written
        }
    }
}
