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

    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }
}

/// `shelfline-dedupe`: marks every record `new`, `duplicateInFile` or `inLibrary` (never drops one).
public enum DedupeStage {
    public static func run(input: String, output: String, workspace: Workspace,
                           parameters: DedupeParameters = DedupeParameters(),
                           cancellation: CancellationFlag? = nil) throws -> DedupeReport {
        var resolver = KeyResolver(parameters: parameters)
        _ = try LibraryFile(workspace: workspace).scan(into: &resolver)
        var report = DedupeReport(input: input, output: output)
        report.libraryBooks = resolver.libraryBooks
        let writer = try NDJSONWriter<BookRecord>(path: output)
        do {
            try NDJSONReader<BookRecord>(path: input).forEach { record, _ in
                if let cancellation, cancellation.isCancelled {
                    throw TryLaterError("shelfline-dedupe: interrupted; \(output) was not written")
                }
                var record = record
                let resolution = resolver.resolve(RecordKeys(record, parameters: parameters), line: record.line)
                record.dedupe = DedupeMark(status: resolution.status, key: resolution.key, firstLine: resolution.firstLine,
                                           bookId: BookKeys.idString(resolution.bookId))
                switch resolution.status {
                case .new: report.new += 1
                case .duplicateInFile: report.duplicateInFile += 1
                case .inLibrary: report.inLibrary += 1
                }
                report.rowsIn += 1
                try writer.append(record)
            }
            report.distinctKeys = resolver.distinctKeys
            try writer.commit()
        } catch {
            writer.abandon()
            throw error
        }
        return report
    }
}
