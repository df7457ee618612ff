import Foundation
import ShelflineCore
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The parse stage: one library export in, gzip NDJSON `BookRecord`s out, every row counted.
///
/// All outputs are published together at the end: on any error none is touched.
public struct ParseStage {
    let job: StageJob<Arguments>
    /// The configured ones; the job's arguments override them.
    var parameters = ParseParameters()
    var log = Logfmt(quiet: true)
    var cancellation: CancellationFlag?

    /// The caller writes the report (`PipelineStage.perform`), then checks it (`rejectedShare`).
    @discardableResult
    func run() throws -> ParseReport {
        let path = job.input(.export), records = job.output(.records), rejectsPath = job.outputs[.rejects]
        let textsPath = RecordTexts.path(besides: records)
        try StageFiles.check(inputs: [path], outputs: [records, textsPath, rejectsPath, job.outputs[.report]])
        let descriptor = try Self.openInput(path)
        defer { close(descriptor) }
        let reader = DelimitedReader(
            source: .descriptor(descriptor, path: path), blockSize: 1 << 18,
            maxRowBytes: job.arguments.maxRowBytes)

        if let kind = BinaryContent.kind(of: try reader.peek(BinaryContent.sniffLength)) {
            throw ParseError("\(path): binary data (\(kind)), not a CSV or TSV export")
        }
        let firstLine = try reader.peekFirstLine()
        reader.delimiter = Self.delimiter(forHeaderLine: firstLine)
        var row = DelimitedRow()
        var nulBytes = 0, nulLines: [Int] = []
        // The reader dropped a cell's NULs and kept the row; the report says where.
        func countNULs() {
            guard row.nulBytes > 0 else { return }
            nulBytes += row.nulBytes
            if nulLines.count < ParseReport.nulByteLinesKept { nulLines.append(row.line) }
        }
        guard try reader.next(into: &row) else { throw ParseError.emptyFile(path: path) }
        countNULs()
        let noHeader = job.arguments.noHeader ?? parameters.noHeader
        if row.malformation != nil && !noHeader {
            let found = [TextRepair.decode(firstLine).text]
            throw ParseError.unrecognisedHeader(path: path, found: found, expected: expectedHeaders(), suggestion: nil)
        }
        let decoded = (0..<row.count).map { TextRepair.decode(Array(row.storage[row.range($0)])) }
        let firstCells = decoded.map(\.text)
        var headerRepaired = decoded.count(where: \.repaired)
        let header: [String], headerOffset: Int, headerLength: Int
        if noHeader {
            // The first row is data: it is read again below, its repaired fields counted then.
            header = try headerlessColumns(fieldCount: row.count)
            (headerOffset, headerLength, headerRepaired) = (0, 0, 0)
        } else {
            (header, headerOffset, headerLength) = (firstCells, row.byteOffset, row.byteLength)
        }
        let (format, map, listSeparator) = try recognise(header: header, firstRow: firstCells)
        let builder = RecordBuilder(format: format, map: map, listSeparator: listSeparator)

        // One chunk compresses while the next fills: with the stage's own thread that keeps both
        // cores busy; a further chunk in flight would only hold memory.
        let output = try NDJSONWriter<BookRecord>(path: records, threads: 1)
        // Reviews and notes, apart from the records (`RecordTexts`).
        let texts = try NDJSONWriter<BookRecord>(path: textsPath, hashing: true, threads: 1)
        let rejects = try rejectsPath.map { try NDJSONWriter<RejectedRow>(path: $0) }
        var abandon = true
        defer {
            if abandon {
                output.abandon()
                texts.abandon()
                rejects?.abandon()
            }
        }

        var rowsRead = 0, rowsWritten = 0, rowsRejected = 0, rowsSkipped = 0, fieldsRepaired = headerRepaired,
            extraEmptyFields = 0
        var json = BookRecordJSON()
        var record = ParsedRecord(cells: [], format: map.format, line: 0, byteOffset: 0, byteLength: 0, title: .string(""))
        var firstRowIsData = noHeader
        while try firstRowIsData || reader.next(into: &row) {
            if !firstRowIsData { countNULs() }
            firstRowIsData = false
            rowsRead += 1
            if rowsRead & 0xFFF == 0, cancellation?.isCancelled == true {
                throw TryLaterError("\(path): parse interrupted after \(rowsRead) rows; nothing was written, run it again")
            }
            if let rejection = builder.build(
                row, into: &record, repairedFields: &fieldsRepaired,
                extraEmptyFields: &extraEmptyFields)
            {
                if rejection.skipped { rowsSkipped += 1 } else { rowsRejected += 1 }
                if let rejects {
                    // Its repaired fields are counted already: this only makes the text.
                    var raw = TextRepair.decode(reader.lastRowBytes).text
                    if raw.isEmpty && row.byteLength > 0 {
                        // A row over the size limit is not kept in memory; the source has it whole.
                        raw = "(\(row.byteLength) bytes at offset \(row.byteOffset) of \(path), not copied here)"
                    }
                    try rejects.append(
                        RejectedRow(
                            line: row.line, reason: rejection.reason, byteOffset: row.byteOffset,
                            byteLength: row.byteLength, raw: raw, skipped: rejection.skipped ? true : nil))
                }
            } else {
                json.encode(record, textsApart: true)
                // Let go of the row's bytes, so the reader refills its buffer in place.
                record.cells = []
                try json.withBytes { try output.appendRaw($0) }
                if json.wroteTexts { try json.withBytes(texts: true) { try texts.appendRaw($0) } }
                rowsWritten += 1
            }
        }

        try output.commit()
        try texts.commit()
        try rejects?.commit()
        abandon = false
        // Named by its hash, so merge joins these texts to these records or refuses.
        let textsReference = RecordTexts.Reference(
            file: Self.relative(textsPath, to: job.outputs[.report] ?? records),
            sha256: try texts.sha256 ?? ContentHash.file(textsPath), lines: texts.count)
        let report = ParseReport(
            input: path, format: map.format, delimiter: reader.delimiter == 0x09 ? "\t" : ",", header: header,
            headerByteOffset: headerOffset, headerByteLength: headerLength, rowsRead: rowsRead,
            rowsWritten: rowsWritten, rowsRejected: rowsRejected, fieldsRepaired: fieldsRepaired,
            rowsWithEmptyExtraFields: extraEmptyFields > 0 ? extraEmptyFields : nil,
            nulBytesDropped: nulBytes > 0 ? nulBytes : nil, nulByteLines: nulBytes > 0 ? nulLines : nil, texts: textsReference,
            notCarried: Self.notCarried(header: header, by: format, map: map), rowsSkipped: rowsSkipped > 0 ? rowsSkipped : nil)
        log.event([
            "stage": "parse", "input": path, "format": map.format.rawValue, "rows_read": rowsRead,
            "rows_written": rowsWritten, "rows_rejected": rowsRejected, "rows_skipped": rowsSkipped,
            "fields_repaired": fieldsRepaired,
        ])
        if nulBytes > 0 {
            log.event([
                "stage": "parse", "event": "nul_bytes_dropped", "count": nulBytes,
                "lines": nulLines.map(String.init).joined(separator: ","),
            ])
        }
        return report
    }

    /// `column: why`, in header order; nil when none.
    static func notCarried(header: [String], by format: any ImportFormat, map: ColumnMap) -> [String]? {
        let reasons = format.cannotCarry
        let read = format.reportsUnreadColumns ? map.readColumns : []
        let said = header.indices.compactMap { index -> String? in
            let name = header[index]
            if let reason = reasons[ExportSchema.key(name)] { return "\(name): \(reason)" }
            guard format.reportsUnreadColumns, !read.contains(index), !ExportSchema.key(name).isEmpty else { return nil }
            return "\(name): not read (no field is guessed from this name; map it with --columns)"
        }
        return said.isEmpty ? nil : said
    }

    /// Relative to the report's directory when it lies there (a run's files move together).
    static func relative(_ path: String, to report: String) -> String {
        let absolute = (try? Workspace.absolute(path, role: .output)) ?? path
        let directory = ((try? Workspace.absolute(report, role: .output)) ?? report) as NSString
        let base = directory.deletingLastPathComponent
        if (absolute as NSString).deletingLastPathComponent == base { return (absolute as NSString).lastPathComponent }
        return absolute
    }

    func headerlessColumns(fieldCount: Int) throws -> [String] {
        let choice = job.arguments.format ?? parameters.format
        let known = job.arguments.formats.filter { !$0.headerlessColumns.isEmpty }
        guard case .format(let name) = choice, let format = known.first(where: { $0.name == name }) else {
            throw UsageError(
                "--no-header needs "
                    + known.map { "--format \($0.name.rawValue)" }.joined(separator: " or ")
                    + " (their column orders are known); got '\(choice.rawValue)'")
        }
        guard let header = format.headerlessColumns.first(where: { $0.count == fieldCount }) else {
            let widths = format.headerlessColumns.map { "\($0.count)" }.joined(separator: " or ")
            throw ParseError(
                "\(job.input(.export)):1: --no-header: the first row has \(fieldCount) fields; \(name.rawValue) exports have \(widths)"
            )
        }
        return header
    }

    func headerlessCommand(_ format: SourceFormat) -> String {
        var words = [
            "shelfline-parse", "--no-header", "--format", format.rawValue, job.input(.export), "-o", job.output(.records),
        ]
        if let rejects = job.outputs[.rejects] { words += ["--rejects", rejects] }
        if let report = job.outputs[.report] { words += ["--report", report] }
        return words.map(Self.shellQuoted).joined(separator: " ")
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:@%+,".contains($0)) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A first row that looks like a known export's data row makes the error suggest `--no-header`.
    func recognise(header: [String], firstRow: [String] = []) throws -> (any ImportFormat, ColumnMap, Character) {
        let keys = header.map(ExportSchema.key)
        var parameters = self.parameters, choice = job.arguments.format ?? parameters.format
        if let columns = job.arguments.columns {
            parameters.generic = columns
            if job.arguments.format == nil { choice = .format(.generic) }
        }
        let failure: ParseError
        switch choice {
        case .auto:
            for format in job.arguments.formats where format.detected(with: parameters) {
                if let map = format.schema(parameters).resolve(header: keys) {
                    return (format, map, format.listSeparator(parameters))
                }
            }
            failure = ParseError.unrecognisedHeader(
                path: job.input(.export), found: header, expected: expectedHeaders(),
                suggestion: HeaderSuggestion(header: header, formats: job.arguments.formats).text)
        case .format(let name):
            guard let format = job.arguments.formats.first(where: { $0.name == name }) else {
                let choices = ["auto"] + job.arguments.formats.map(\.name.rawValue)
                throw UsageError("unknown format '\(name.rawValue)'; expected one of \(choices.joined(separator: ", "))")
            }
            let schema = format.schema(parameters)
            if let map = schema.resolve(header: keys) { return (format, map, format.listSeparator(parameters)) }
            let missing = schema.signature.filter { alternatives in !alternatives.contains(where: keys.contains) }
            let lacking = missing.map { "'\($0.joined(separator: "' or '"))'" }.joined(separator: ", ")
            failure = ParseError("\(job.input(.export)):1: not a \(format.name.rawValue) export: header lacks \(lacking)")
        }
        let noHeader = job.arguments.noHeader ?? parameters.noHeader
        guard !noHeader, let format = job.arguments.formats.first(where: { $0.looksLikeDataRow(firstRow) }) else {
            throw failure
        }
        let name = format.name.rawValue
        throw ParseError(
            "\(job.input(.export)):1: no header row: the first line looks like a \(name) export's data row "
                + "(\(firstRow.count) fields); if the header was lost, read it with: \(headerlessCommand(format.name)) "
                + "(pipeline.json: parse parameters {\"noHeader\": true, \"format\": \"\(name)\"})")
    }

    private func expectedHeaders() -> [String] {
        job.arguments.formats.filter { $0.detected(with: parameters) }.map { format in
            "\(format.name.rawValue) (\(format.schema(parameters).expectedHeaders))"
        }
    }

    /// Tab when the line has more tabs than commas outside quotes.
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

    /// A directory is refused here; a FIFO or device `StageFiles.check` has refused already.
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
        if info.st_size == 0 {
            close(descriptor)
            throw ParseError.emptyFile(path: path)
        }
        return descriptor
    }
}
