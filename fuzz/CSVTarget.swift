import Foundation
import ShelflineCore
import ShelflineReports
@testable import ShelflineParse

/// Fuzz target: the CSV reader with the record builder, through the whole parse stage.
///
/// The first byte picks the options (format, header-less reading, a small row size limit); the
/// rest is the export. Invariants: no crash or trap; reading with tiny and large blocks gives the
/// same rows; rowsRead = rowsWritten + rowsRejected, and the files hold exactly those rows; every
/// record line is valid JSON that decodes as a `BookRecord`; errors are documented ones.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let options = input.first ?? 0
    let csv = Array(input.dropFirst())
    let maxRowBytes = options & 0x80 != 0 ? 64 : DelimitedReader.defaultMaxRowBytes

    // The reader does not depend on where its blocks end.
    func rows(blockSize: Int) -> [String] {
        let reader = DelimitedReader(source: .bytes(csv), blockSize: blockSize, maxRowBytes: maxRowBytes)
        var row = DelimitedRow(), out: [String] = []
        while (try? reader.next(into: &row)) == true {
            let fields = (0..<row.count).map { row.bytes($0).map(String.init).joined(separator: ".") }
            out.append("\(row.line)@\(row.byteOffset)+\(row.byteLength) \(row.malformation ?? "") \(fields)")
        }
        return out
    }
    let small = rows(blockSize: 61), large = rows(blockSize: 1 << 16)
    if small != large { fuzzFail("block size changes the rows:\n\(small)\nvs\n\(large)", input) }

    let formats = FormatChoice.allCases
    let output = fuzzScratch + "/out.ndjson.gz", rejectsFile = fuzzScratch + "/rejects.ndjson.gz"
    let reportFile = fuzzScratch + "/report.json"
    var arguments = ParseStage.Arguments(format: formats[Int(options & 0x07) % formats.count], noHeader: options & 0x08 != 0)
    arguments.maxRowBytes = maxRowBytes
    let job = StageJob(inputs: [.export: scratchFile("input.csv", csv)],
                       outputs: [.records: output, .rejects: rejectsFile, .report: reportFile], arguments: arguments)
    let parameters = ParseParameters(generic: options & 0x10 != 0 ? GenericMapping() : nil)
    for path in [output, rejectsFile, reportFile] { unlink(path) }
    var published = true
    var report: ParseReport?
    do {
        let read = try ParseStage(job: job, parameters: parameters).run()
        report = read
        try ParseStage.rejectedShare(read, parameters: parameters, rejects: rejectsFile)
    } catch let error as DataError {
        // Too many rows rejected: the outputs are written all the same.
        checkError(error, allowed: [.dataError], input)
    } catch let error as ParseError {
        published = false
        checkError(error, allowed: [.dataError], input)
    } catch {
        published = false
        checkError(error, allowed: [.usage, .dataError], input)
    }
    let exists = FileManager.default.fileExists(atPath: output)
    guard published else {
        if exists { fuzzFail("a failed run published its records", input) }
        return 0
    }
    guard exists, let report else {
        fuzzFail("outputs missing after a run", input)
    }
    // Every row read is written, rejected or skipped (a row its format marks as not to import).
    let skipped = report.rowsSkipped ?? 0
    if report.rowsRead != report.rowsWritten + report.rowsRejected + skipped {
        fuzzFail(
            "rows not conserved: \(report.rowsRead) != \(report.rowsWritten) + \(report.rowsRejected) + \(skipped) skipped",
            input)
    }
    var records = 0
    do {
        try GzipReader(path: output).forEachLine { line, _ in
            if !isValidJSON(line) { fuzzFail("record line is not JSON: \(String(decoding: line, as: UTF8.self))", input) }
            _ = try JSONDecoder().decode(BookRecord.self, from: Data(line))
            records += 1
        }
        let rejects = try NDJSONReader<RejectedRow>(path: rejectsFile).readAll()
        let skippedRows = rejects.filter { $0.skipped == true }.count
        if records != report.rowsWritten || rejects.count - skippedRows != report.rowsRejected || skippedRows != skipped {
            fuzzFail("files hold \(records) records, \(rejects.count) rejects; report says \(report)", input)
        }
    } catch {
        fuzzFail("outputs do not read back: \(error)", input)
    }
    return 0
}
