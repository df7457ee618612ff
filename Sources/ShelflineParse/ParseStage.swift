#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ShelflineCore

/// The parse stage: one library export in, gzip NDJSON `BookRecord`s out, every row counted.
///
/// Reads the input in large blocks, writes through `NDJSONWriter`/`AtomicFile` only, and publishes
/// the records, rejects and report together at the end: on any error no output is touched.
/// It knows nothing about command lines; `ParseCommand` and tests call `run`.
public struct ParseStage {
    /// Paths and settings for one run.
    public struct Job: Sendable {
        public var input: String
        public var output: String
        public var rejects: String?
        public var report: String?
        /// `--format`, overriding `parameters.format` when given.
        public var format: FormatChoice?
        public var parameters: ParseParameters

        public init(input: String, output: String, rejects: String? = nil, report: String? = nil,
                    format: FormatChoice? = nil, parameters: ParseParameters = ParseParameters()) {
            self.input = input
            self.output = output
            self.rejects = rejects
            self.report = report
            self.format = format
            self.parameters = parameters
        }
    }

    public let job: Job
    public let log: Logfmt
    public let cancellation: CancellationFlag?

    public init(job: Job, log: Logfmt = Logfmt(quiet: true), cancellation: CancellationFlag? = nil) {
        self.job = job
        self.log = log
        self.cancellation = cancellation
    }

    /// Runs the stage and returns its report (also written to `job.report` when given).
    /// Throws `ParseError.tooManyRejected` after publishing everything when the rejected share is
    /// above the threshold.
    @discardableResult
    public func run() throws -> ParseReport {
        let path = job.input
        let descriptor = try Self.openInput(path)
        defer { close(descriptor) }
        let reader = DelimitedReader(source: .descriptor(descriptor, path: path), blockSize: 1 << 18)

        // Header: sniff binary data and the delimiter, then recognise the format by names.
        let sniff = try reader.peek(1 << 16)
        if sniff.contains(0) { throw ParseError.binaryData(path: path) }
        let firstLine = try reader.peekFirstLine()
        reader.delimiter = Self.delimiter(forHeaderLine: firstLine)
        var row = DelimitedRow()
        guard try reader.next(into: &row) else { throw ParseError.emptyFile(path: path) }
        if row.malformation != nil {
            let found = [TextRepair.decode(firstLine).text]
            throw ParseError.unrecognisedHeader(path: path, found: found, expected: expectedHeaders())
        }
        var headerRepaired = 0
        let header = (0..<row.count).map { index -> String in
            row.storage[row.range(index)].withUnsafeBufferPointer { bytes in
                var repaired = false
                let text = TextRepair.decode(bytes, repaired: &repaired)
                if repaired { headerRepaired += 1 }
                return text
            }
        }
        let headerOffset = row.byteOffset, headerLength = row.byteLength
        let (map, listSeparator) = try recognise(header: header)
        let builder = RecordBuilder(map: map, listSeparator: listSeparator)

        // Outputs: all created before any row is read, all published at the end.
        let output = try NDJSONWriter<BookRecord>(path: job.output)
        let rejects = try job.rejects.map { try NDJSONWriter<RejectedRow>(path: $0) }
        let reportFile = try job.report.map { try AtomicFile(path: $0) }
        var abandon = true
        defer {
            if abandon {
                output.abandon()
                rejects?.abandon()
                reportFile?.abandon()
            }
        }

        var rowsRead = 0, rowsWritten = 0, rowsRejected = 0, fieldsRepaired = headerRepaired
        var json = BookRecordJSON()
        var record = ParsedRecord(cells: [], format: map.format, line: 0, byteOffset: 0, byteLength: 0, title: .string(""))
        while try reader.next(into: &row) {
            rowsRead += 1
            if rowsRead & 0xFFF == 0, cancellation?.isCancelled == true {
                throw TryLaterError("\(path): parse interrupted after \(rowsRead) rows; nothing was written, run it again")
            }
            if let rejection = builder.build(row, into: &record, repairedFields: &fieldsRepaired) {
                rowsRejected += 1
                if let rejects {
                    // The row's fields were counted in fieldsRepaired already; this only makes its text.
                    var alreadyCounted = false
                    let raw = reader.lastRowBytes.withUnsafeBufferPointer { TextRepair.decode($0, repaired: &alreadyCounted) }
                    try rejects.append(RejectedRow(line: row.line, reason: rejection.reason, byteOffset: row.byteOffset,
                                                   byteLength: row.byteLength, raw: raw))
                }
            } else {
                json.encode(record)
                // Let go of the row's bytes, so the reader refills its buffer in place.
                record.cells = []
                try json.withBytes { try output.appendRaw($0) }
                rowsWritten += 1
            }
        }

        let report = ParseReport(
            input: path, format: map.format, delimiter: reader.delimiter == 0x09 ? "\t" : ",", header: header,
            headerByteOffset: headerOffset, headerByteLength: headerLength, rowsRead: rowsRead,
            rowsWritten: rowsWritten, rowsRejected: rowsRejected, fieldsRepaired: fieldsRepaired)
        try output.commit()
        try rejects?.commit()
        if let reportFile {
            var data = try JSONEncoder.shelflinePretty.encode(report)
            data.append(UInt8(ascii: "\n"))
            try reportFile.write(Array(data))
            try reportFile.commit()
        }
        abandon = false
        log.event([
            "stage": "parse", "input": path, "format": map.format.rawValue, "rows_read": rowsRead,
            "rows_written": rowsWritten, "rows_rejected": rowsRejected, "fields_repaired": fieldsRepaired,
        ])
        let threshold = job.parameters.maxRejectedShare
        if rowsRead > 0 && Double(rowsRejected) / Double(rowsRead) > threshold {
            throw ParseError.tooManyRejected(path: path, rejected: rowsRejected, read: rowsRead, threshold: threshold,
                                             rejects: job.rejects)
        }
        return report
    }

    /// The column map for `header` under the chosen format, or the error a user can act on.
    func recognise(header: [String]) throws -> (ColumnMap, Character) {
        let keys = header.map(ExportSchema.key)
        let choice = job.format ?? job.parameters.format
        let separator = job.parameters.generic?.listSeparator.first ?? ","
        switch choice {
        case .auto:
            for schema in ExportSchema.builtIn {
                if let map = schema.resolve(header: keys) { return (map, ",") }
            }
            if let generic = job.parameters.generic, let map = generic.schema.resolve(header: keys) {
                return (map, separator)
            }
            throw ParseError.unrecognisedHeader(path: job.input, found: header, expected: expectedHeaders())
        case .generic:
            let schema = (job.parameters.generic ?? GenericMapping()).schema
            if let map = schema.resolve(header: keys) { return (map, separator) }
            throw ParseError.headerMismatch(path: job.input, format: "generic (as mapped)", missing: missing(schema, keys))
        case .goodreads, .storygraph, .librarything:
            let schema = ExportSchema.schema(for: SourceFormat(rawValue: choice.rawValue)!)!
            if let map = schema.resolve(header: keys) { return (map, ",") }
            throw ParseError.headerMismatch(path: job.input, format: choice.rawValue, missing: missing(schema, keys))
        }
    }

    private func missing(_ schema: ExportSchema, _ keys: [String]) -> [String] {
        schema.signature.filter { alternatives in !alternatives.contains(where: keys.contains) }
            .map { "'\($0.joined(separator: "' or '"))'" }
    }

    private func expectedHeaders() -> [String] {
        var expected = ExportSchema.builtIn.map { "\($0.format.rawValue) (\($0.expectedHeaders))" }
        if let generic = job.parameters.generic {
            expected.append("generic as configured (\(generic.schema.expectedHeaders))")
        }
        return expected
    }

    /// Tab when the header line has more tabs than commas outside quotes, else comma.
    static func delimiter(forHeaderLine line: [UInt8]) -> UInt8 {
        var tabs = 0, commas = 0, quoted = false
        for byte in line {
            if byte == 0x22 { quoted.toggle() }
            if quoted { continue }
            if byte == 0x09 { tabs += 1 }
            if byte == 0x2C { commas += 1 }
        }
        return tabs > commas ? 0x09 : 0x2C
    }

    /// Opens the input for reading; a missing path, a directory or an unreadable file is exit 66,
    /// an empty file exit 65.
    static func openInput(_ path: String) throws -> Int32 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FileError.missingInput(path: path, reason: systemErrorMessage())
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw FileError.missingInput(path: path, reason: "is a directory, expected a CSV or TSV file")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw FileError.missingInput(path: path, reason: systemErrorMessage())
        }
        if (info.st_mode & S_IFMT) == S_IFREG && info.st_size == 0 {
            close(descriptor)
            throw ParseError.emptyFile(path: path)
        }
        return descriptor
    }
}
