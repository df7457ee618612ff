import Foundation
import ShelflineCore
@testable import ShelflineLookup

/// Fuzz target: the Open Library dump reader (a dump line → an index row), through the index build.
///
/// The input is a dump file (`type key revision last_modified JSON` lines). It is read with the
/// reader the build uses (`ParsedDumpReader`), then built into a catalog index in a fresh cache
/// directory. Invariants: no crash or trap; a dump never fails the build (bad lines are skipped and
/// counted); the index holds exactly the editions whose first line parsed (`stats.editions`), and
/// counts every other bad or repeated line as skipped; every ISBN of a kept edition finds an
/// edition, and when only one edition carries it, that edition with the title its line gave.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDump(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let dump = scratchFile("dump.txt", input)
    var editions: [Int: CatalogDumpRecord.Edition] = [:]
    var carriers: [Int: Set<Int>] = [:]
    var kept: [String: Set<Int>] = ["work": [], "author": [], "redirect": []]
    var skipped = 0
    do {
        try ParsedDumpReader.forEachBatch(path: dump) { lines in
            for line in lines {
                switch line.record {
                case nil, .success(.ignored)?: continue
                case .failure?: skipped += 1
                case .success(.edition(let edition))?:
                    guard editions[edition.id] == nil else { skipped += 1; continue }
                    editions[edition.id] = edition
                    for isbn in edition.isbns { carriers[isbn, default: []].insert(edition.id) }
                case .success(.work(let work))?: if !kept["work"]!.insert(work.id).inserted { skipped += 1 }
                case .success(.author(let id, _))?: if !kept["author"]!.insert(id).inserted { skipped += 1 }
                case .success(.authorRedirect(let id, _))?: if !kept["redirect"]!.insert(id).inserted { skipped += 1 }
                }
            }
        }
    } catch {
        fuzzFail("reading the dump failed: \(error)", input)
    }
    let cache = fuzzScratch + "/cache"
    try? FileManager.default.removeItem(atPath: cache)
    let index: CatalogIndex
    do {
        index = try CatalogIndex.open(dumps: [dump], cacheDirectory: cache, log: Logfmt(quiet: true, sink: { _ in }))
    } catch {
        fuzzFail("a dump failed the index build: \(error)", input)
    }
    if index.stats.editions != editions.count {
        fuzzFail("\(editions.count) editions parsed, \(index.stats.editions) in the index", input)
    }
    if index.stats.skippedLines != skipped {
        fuzzFail("\(skipped) lines to skip, \(index.stats.skippedLines) skipped", input)
    }
    for (isbn, ids) in carriers {
        let found: EditionMetadata?
        do {
            found = try index.editions(isbns: [String(isbn)])[String(isbn)]
        } catch {
            fuzzFail("ISBN \(isbn): \(error)", input)
        }
        guard let found else { fuzzFail("ISBN \(isbn) of editions \(ids.sorted()) not found", input) }
        if ids.count == 1, let edition = editions[ids.first!], found.title != edition.title {
            fuzzFail("ISBN \(isbn): title \(found.title ?? "nil") in the index, \(edition.title) in the dump", input)
        }
    }
    return 0
}
