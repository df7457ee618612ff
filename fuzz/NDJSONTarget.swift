import Foundation
import ShelflineCore

/// Fuzz target: the gzip NDJSON reader with the record decoder.
///
/// First byte even: the rest is a gzip file as found on disk (header, deflate, trailer, several
/// members, truncation). Odd: the rest is NDJSON text, compressed by `NDJSONWriter` and read back.
/// Invariants: no crash or trap; a bad file is a documented error (65, or 74 for a read error);
/// every line read is counted (records read + the failing line = lines written, blank lines
/// aside); each record re-encodes to valid JSON that decodes to the same record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let payload = Array(input.dropFirst())
    let path = fuzzScratch + "/records.ndjson.gz"
    var linesWritten: Int?
    if (input.first ?? 0) & 1 == 0 {
        _ = scratchFile("records.ndjson.gz", payload)
    } else {
        do {
            let writer = try NDJSONWriter<BookRecord>(path: path)
            let lines = payload.split(separator: 0x0A, omittingEmptySubsequences: false)
            for line in lines where !line.isEmpty {
                try Array(line).withUnsafeBytes { try writer.appendRaw($0) }
            }
            try writer.commit()
            linesWritten = lines.filter { !$0.isEmpty }.count
        } catch {
            fuzzFail("writing NDJSON failed: \(error)", input)
        }
    }
    var read = 0
    do {
        try NDJSONReader<BookRecord>(path: path).forEach { record, _ in
            read += 1
            let encoded = try JSONEncoder.shelfline.encode(record)
            if !isValidJSON(encoded) { fuzzFail("re-encoded record is not JSON", input) }
            let again = try JSONDecoder().decode(BookRecord.self, from: encoded)
            if again != record { fuzzFail("record changes on a round trip: \(record) vs \(again)", input) }
        }
        if let linesWritten, linesWritten != read { fuzzFail("\(linesWritten) lines written, \(read) read", input) }
    } catch {
        checkError(error, allowed: [.dataError, .ioError], input)
        if let linesWritten, read >= linesWritten { fuzzFail("error after every line was read: \(error)", input) }
    }
    return 0
}
