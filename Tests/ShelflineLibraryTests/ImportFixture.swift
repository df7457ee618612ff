import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport

@testable import ShelflineLibrary

/// A tiny import written the way parse (and lookup) would: a real source CSV whose rows' byte
/// offsets the records carry, the records NDJSON, rejects and the parse report.
struct ImportFixture {
    var directory: String
    var source: String { directory + "/source.csv" }
    var records: String { directory + "/records.ndjson.gz" }
    var rejects: String { directory + "/rejects.ndjson.gz" }
    var parseReport: String { directory + "/parse-report.json" }
    /// Where the reviews and notes go when written apart (`RecordTexts`), as parse writes them.
    var texts: String { RecordTexts.path(besides: records) }

    /// One source row: its raw CSV text and the record parse made of it (nil: rejected with `reason`).
    struct Row {
        var raw: String
        var record: BookRecord?
        var reason: String?
    }

    static let header = "Book Id,Title,Author,ISBN13,Exclusive Shelf,My Rating"

    @discardableResult
    /// `textsApart`: reviews and notes go to the texts file, as parse writes them, the report naming it.
    init(directory: String, format: SourceFormat = .goodreads, rows: [Row], lineEnding: String = "\n", textsApart: Bool = false)
        throws
    {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var bytes = Array((Self.header + lineEnding).utf8)
        let headerLength = Self.header.utf8.count
        var records: [BookRecord] = []
        var rejected: [RejectedRow] = []
        for (index, row) in rows.enumerated() {
            let offset = bytes.count
            let length = row.raw.utf8.count
            bytes += Array((row.raw + lineEnding).utf8)
            let line = index + 2
            if var record = row.record {
                record.line = line
                record.byteOffset = offset
                record.byteLength = length
                record.format = format
                records.append(record)
            } else {
                rejected.append(
                    RejectedRow(
                        line: line, reason: row.reason ?? "bad row", byteOffset: offset,
                        byteLength: length, raw: row.raw))
            }
        }
        var reference: RecordTexts.Reference?
        if textsApart {
            var lines: [UInt8] = []
            var count = 0
            for index in records.indices where records[index].review != nil || records[index].notes != nil {
                RecordTexts.appendLine(
                    line: records[index].line, review: records[index].review, notes: records[index].notes, to: &lines)
                lines.append(0x0A)
                count += 1
                records[index].review = nil
                records[index].notes = nil
                records[index].textsApart = true
            }
            let texts = RecordTexts.path(besides: self.records)
            _ = try GzipFixture.write(bytes: lines, to: texts)
            reference = RecordTexts.Reference(file: RecordTexts.fileName, sha256: try ContentHash.file(texts), lines: count)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        try GzipFixture.write(records, to: self.records)
        try GzipFixture.write(rejected, to: self.rejects)
        let report = ParseReport(
            input: source, format: format, delimiter: ",", header: Self.header.components(separatedBy: ","),
            headerByteOffset: 0, headerByteLength: headerLength, rowsRead: rows.count,
            rowsWritten: records.count, rowsRejected: rejected.count, fieldsRepaired: 0, texts: reference)
        try writeJSONFile(report, to: parseReport)
    }

    func request(importId: String? = "import-1") -> StageJob<MergeStage.Arguments> {
        StageJob(
            inputs: [.records: records, .parseReport: parseReport, .rejects: rejects],
            outputs: [
                .report: directory + "/merge-report.json", .ledger: directory + "/ledger.ndjson.gz",
                .review: directory + "/review.json", .failedRows: directory + "/failed-rows.csv",
            ], arguments: MergeStage.Arguments(importId: importId))
    }
}

/// A record with the fields tests care about.
func rec(
    _ title: String, by author: String?, isbn13: String? = nil, shelf: String? = nil, rating: Double? = nil,
    reads: [ReadSpan]? = nil, shelves: [String]? = nil, review: String? = nil, dateAdded: String? = nil,
    format: SourceFormat = .goodreads, match: MatchResult? = nil, metadata: EditionMetadata? = nil
) -> BookRecord {
    var record = BookRecord(format: format, line: 0, title: title)
    record.author = author
    record.isbn13 = isbn13
    record.shelf = shelf
    record.rating = rating
    record.reads = reads
    record.shelves = shelves
    record.review = review
    record.dateAdded = dateAdded
    record.match = match
    record.metadata = metadata
    return record
}

/// A CSV row for `record` (its raw cells do not need to be parseable here, only recognisable).
func row(_ record: BookRecord, id: Int) -> ImportFixture.Row {
    let raw =
        "\(id),\"\(record.title)\",\(record.author ?? ""),\(record.isbn13 ?? ""),\(record.shelf ?? ""),\(record.rating ?? 0)"
    return ImportFixture.Row(raw: raw, record: record)
}

/// Reads every book of a workspace's library.
func libraryBooks(_ workspace: Workspace) throws -> [LibraryBook] {
    try NDJSONReader<LibraryBook>(path: workspace.libraryFile).readAll()
}

func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
