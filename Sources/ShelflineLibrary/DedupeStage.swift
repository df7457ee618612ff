import Foundation
import ShelflineCore

/// What dedupe saw: how the file's rows relate to each other and to the library.
public struct DedupeReport: Codable, Sendable, Equatable {
    public var input: String
    public var output: String
    public var rowsIn = 0
    public var new = 0
    public var duplicateInFile = 0
    public var inLibrary = 0
    public var libraryBooks = 0
    public var distinctKeys = 0
    /// Rows several books could be by title: each became a book of its own rather than a guess.
    public var ambiguousTitle = 0
}

extension DedupeMark {
    /// The bytes `JSONEncoder.shelfline` writes, without its cost.
    func appendJSON(to line: inout [UInt8]) {
        var writer = JSONObjectWriter(out: take(&line))
        writer.string("bookId", bookId)
        writer.int("firstLine", firstLine)
        writer.string("key", key)
        writer.string("status", status.rawValue)
        line = writer.finish()
    }
}

/// `shelfline-dedupe`: marks every record `new`, `duplicateInFile` or `inLibrary` (never drops one).
///
/// Only the identity fields are decoded; the mark is spliced into the line, the rest passes through as is.
public enum DedupeStage {
    static func run(
        input: String, output: String, workspace: Workspace,
        parameters: DedupeParameters = DedupeParameters(),
        cancellation: CancellationFlag? = nil
    ) throws -> DedupeReport {
        var titles: ISBNTitles?
        while true {
            let (report, needsISBNTitles) = try pass(
                input: input, output: output, workspace: workspace, parameters: parameters, titles: titles,
                cancellation: cancellation)
            guard needsISBNTitles else { return report }
            titles = try ISBNTitles.learn(from: [input], parameters: parameters)
        }
    }

    /// One pass against the library as it stands; nothing is written when `titles` is nil and the
    /// resolver says the file needs them.
    private static func pass(
        input: String, output: String, workspace: Workspace, parameters: DedupeParameters,
        titles: ISBNTitles?, cancellation: CancellationFlag?
    ) throws -> (report: DedupeReport, needsISBNTitles: Bool) {
        var resolver: KeyResolver
        let directory = (output as NSString).deletingLastPathComponent
        do {
            resolver = try KeyResolver(scratchDirectory: directory.isEmpty ? "." : directory)
        } catch FileError.cannotCreate(_, let reason) {
            // The scratch file goes where the output will: its failure is the output's.
            throw FileError.cannotCreate(path: output, reason: reason)
        }
        _ = try LibraryFile(workspace: workspace).scan(into: &resolver)
        if let titles { try resolver.use(titles) }
        var report = DedupeReport(input: input, output: output)
        report.libraryBooks = resolver.libraryBooks
        let writer = try NDJSONWriter<BookRecord>(path: output)
        let decoder = JSONDecoder()
        var line: [UInt8] = []
        var markBytes: [UInt8] = []
        // Dropped uncommitted (an error, or a pass to do again), the writer removes its temporary file.
        try KeyedRecords.forEach(path: input, parameters: parameters) { keyed, bytes in
            if let cancellation, cancellation.isCancelled {
                throw TryLaterError("shelfline-dedupe: interrupted; \(output) was not written")
            }
            let resolution = try resolver.resolve(keyed.keys, line: keyed.identity.line)
            let mark = DedupeMark(
                status: resolution.status, key: resolution.key, firstLine: resolution.firstLine,
                bookId: BookKeys.idString(resolution.bookId))
            switch resolution.status {
            case .new: report.new += 1
            case .duplicateInFile: report.duplicateInFile += 1
            case .inLibrary: report.inLibrary += 1
            }
            report.rowsIn += 1
            if resolution.ambiguous { report.ambiguousTitle += 1 }
            if !keyed.hasDedupe {
                mark.appendJSON(to: &markBytes)
                line.removeAll(keepingCapacity: true)
                BookRecordScan.splice(bytes, adding: [("dedupe", markBytes)], into: &line)
                markBytes.removeAll(keepingCapacity: true)
                try line.withUnsafeBytes { try writer.appendRaw($0) }
            } else {
                var record: BookRecord
                do {
                    record = try decoder.decode(BookRecord.self, from: Data(bytes))
                } catch {
                    throw FileError.corrupt(
                        path: input, line: keyed.fileLine, reason: "invalid record: \(describeDecoding(error))")
                }
                record.dedupe = mark
                try writer.append(record)
            }
        }
        guard titles != nil || !resolver.needsISBNTitles else { return (report, true) }
        report.distinctKeys = resolver.distinctKeys
        try writer.commit()
        return (report, false)
    }
}
