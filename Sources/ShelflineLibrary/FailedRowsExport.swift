import Foundation
import ShelflineCore
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#endif

/// A row for the failed-rows export: where its raw bytes sit in the source file.
public struct FailedRow: Sendable, Equatable {
    public var line: Int
    public var byteOffset: Int
    public var byteLength: Int
    public var reason: String
    /// Shown when the source file is gone: the rejected row's text, or title | author | ISBN.
    public var fallbackText: String
    var bookId: UInt64?
}

/// `failed-rows.csv` (rejected rows) and `not-enriched.csv` (rows imported without metadata): the source's
/// header and each row's bytes verbatim, so the user can fix them and import again. When the source is
/// gone or changed, `Source Line,Reason,Row` instead (`fallbackReason`).
public enum FailedRowsExport {
    /// Merge's unlisted `notEnrichedRows` output, beside failed-rows.csv.
    public static func notEnrichedPath(besides failedRows: String) -> String {
        StageFiles.beside(failedRows, named: MergeStage.description.defaultOutput(.notEnrichedRows))
    }

    /// Streams `rows`, called again for the fallback, the only reader of `texts`; uncommitted, a file is removed.
    static func write(
        rows: (_ texts: Bool, (FailedRow) throws -> Void) throws -> Void, parse: ParseReport, to path: String
    ) throws -> (rows: Int, fallbackReason: String?) {
        var count = 0
        do {
            let file = try AtomicFile(path: path)
            try verbatim(rows, parse: parse, into: file, count: &count)
            try file.commit()
            return (count, nil)
        } catch let problem as SourceProblem {
            count = 0
            let file = try AtomicFile(path: path)
            try file.write("Source Line,Reason,Row\n")
            try rows(true) { row in
                try file.write("\(row.line),\(quote(row.reason)),\(quote(row.fallbackText))\n")
                count += 1
            }
            try file.commit()
            return (count, problem.reason)
        }
    }

    struct SourceProblem: Error { var reason: String }

    static func verbatim(
        _ rows: (_ texts: Bool, (FailedRow) throws -> Void) throws -> Void, parse: ParseReport, into file: AtomicFile,
        count: inout Int
    ) throws {
        let fd = open(parse.input, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SourceProblem(reason: "\(parse.input): \(systemErrorMessage())") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw SourceProblem(reason: "\(parse.input): not a regular file")
        }
        let size = Int(info.st_size)
        // Rows come in line order: a megabyte window serves thousands (a `pread` per row was a third of the
        // export, measured). One buffer reused: a fresh megabyte would be a new mapping faulted in again.
        var window: [UInt8] = []
        var windowStart = 0, windowCount = 0
        func read(offset: Int, count: Int) throws -> ArraySlice<UInt8> {
            if offset < windowStart || offset + count > windowStart + windowCount {
                let length = min(max(1 << 20, count), size - offset)
                if window.count < length { window = [UInt8](repeating: 0, count: length) }
                let got = window.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(offset)) }
                guard got == length else { throw SourceProblem(reason: "\(parse.input): read failed") }
                windowStart = offset
                windowCount = length
            }
            return window[(offset - windowStart)..<(offset - windowStart + count)]
        }
        // Written from the window, valid until the next call: copying each row cost a third of the export's CPU.
        func line(offset: Int, length: Int) throws -> (bytes: ArraySlice<UInt8>, addNewline: Bool) {
            guard offset >= 0, length >= 0, offset + length <= size else {
                throw SourceProblem(reason: "\(parse.input): shorter than the parse report says (changed since parse?)")
            }
            // Up to two bytes more: the source's own line ending.
            let extra = min(2, size - offset - length)
            let buffer = try read(offset: offset, count: length + extra)
            let start = buffer.startIndex
            var end = length
            if length == 0 || buffer[start + length - 1] != UInt8(ascii: "\n") {
                if extra >= 1, buffer[start + length] == UInt8(ascii: "\n") {
                    end = length + 1
                } else if extra == 2, buffer[start + length] == UInt8(ascii: "\r"),
                    buffer[start + length + 1] == UInt8(ascii: "\n")
                {
                    end = length + 2
                }
            }
            let bytes = buffer[start..<(start + end)]
            return (bytes, bytes.last != UInt8(ascii: "\n"))
        }
        func write(_ line: (bytes: ArraySlice<UInt8>, addNewline: Bool)) throws {
            try line.bytes.withUnsafeBytes { try file.write($0) }
            if line.addNewline { try file.write("\n") }
        }
        let header = try line(offset: parse.headerByteOffset, length: parse.headerByteLength)
        let headerText = String(decoding: header.bytes, as: UTF8.self)
        if let first = parse.header.first(where: { !$0.isEmpty }), !headerText.contains(first) {
            throw SourceProblem(reason: "\(parse.input): header no longer matches the parse report (file changed since parse)")
        }
        try write(header)
        try rows(false) { row in
            try write(try line(offset: row.byteOffset, length: row.byteLength))
            count += 1
        }
    }

    static func quote(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
