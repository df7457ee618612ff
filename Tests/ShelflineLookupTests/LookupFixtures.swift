import Foundation
import ShelflineLookup
import TestSupport

@testable import ShelflineCore

/// Shared helpers of the lookup tests: the sample catalog, records, contexts, dump lines.
enum LookupFixtures {
    static var sampleCatalog: [String] {
        let directory = ExecutableRunner.repositoryRoot + "/examples/catalog"
        return [directory + "/editions.txt.gz", directory + "/works.txt.gz", directory + "/authors.txt"]
    }

    /// A record as parse/dedupe would write it.
    static func record(
        line: Int, title: String, author: String? = nil, isbn13: String? = nil, titleBase: String? = nil,
        dedupe: DedupeMark? = nil
    ) -> BookRecord {
        var record = BookRecord(format: .goodreads, line: line, title: title)
        record.author = author
        record.isbn13 = isbn13
        record.titleBase = titleBase
        record.dedupe = dedupe
        return record
    }

    static func writeRecords(_ records: [BookRecord], to path: String) throws {
        try GzipFixture.write(records, to: path)
    }

    static func readRecords(_ path: String) throws -> [BookRecord] {
        try NDJSONReader<BookRecord>(path: path).readAll()
    }

    /// A context whose lookup parameters are `parameters` (JSON), with a pinned clock.
    static func context(
        _ parameters: String, directory: String, now: Date = Date(timeIntervalSince1970: 1_790_000_000),
        cancellation: CancellationFlag = CancellationFlag()
    ) throws -> StageContext {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(parameters.utf8))
        let config = PipelineConfig(stages: [StageDeclaration(name: .lookup, inputs: [], outputs: [], parameters: value)])
        return StageContext(
            now: { now }, config: config, configPath: directory + "/pipeline.json",
            workspace: Workspace(root: directory + "/ws"), log: Logfmt(quiet: true), cancellation: cancellation)
    }

    /// One dump line in the Open Library layout.
    static func dumpLine(_ type: String, _ key: String, _ json: String) -> String {
        "/type/\(type)\t\(key)\t1\t2026-01-01T00:00:00\t\(json)\n"
    }

    /// Valid ISBN-13 from a 12-digit body.
    static func isbn13(_ body: String) -> String { FakeOpenLibraryServer.isbn13(body: body) }
}

extension LookupCache {
    func lookup(source: String, key: String, now: Date) throws -> Entry? {
        try lookup(source: source, keys: [key], now: now)[key]
    }
}
