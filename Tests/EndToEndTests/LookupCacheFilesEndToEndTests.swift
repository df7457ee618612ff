import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// The files lookup keeps in the workspace's `cache/` — the catalog index and the lookup cache —
/// can always be rebuilt, so damage never stops a run and a killed build never leaks its scratch.
@Suite(.offCooperativePool) struct LookupCacheFilesEndToEndTests {
    enum Damage: String, CaseIterable, Sendable {
        /// Cut to half its length, as a full disk or an interrupted copy leaves it.
        case truncated
        /// Its bytes replaced by others of the same length.
        case overwritten

        func apply(to path: String) throws {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            switch self {
            case .truncated: try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
            case .overwritten: try Data(repeating: 0x5A, count: bytes.count).write(to: URL(fileURLWithPath: path))
            }
        }
    }

    static func cacheFiles(_ directory: TemporaryDirectory, _ matching: (String) -> Bool) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.file("ws/cache"))) ?? []).filter(matching).sorted()
    }

    static let catalogRun =
        [
            "deduped.ndjson.gz", "-o", "enriched.ndjson.gz", "--report", "lookup-report.json",
            "--workspace", "ws", "--source", "catalog",
        ] + LookupEndToEndTests.catalogArguments

    @Test(.bug(id: 23, "§4"), arguments: Damage.allCases)
    func damagedCatalogIndexIsSetAsideAndRebuilt(_ damage: Damage) throws {
        let directory = TemporaryDirectory("lookup-e2e-index-damage")
        try LookupEndToEndTests.writeInput(LookupEndToEndTests.exampleRecords, in: directory)
        let first = try ExecutableRunner.run("shelfline-lookup", Self.catalogRun, in: directory.path)
        #expect(first.status == 0, "\(first)")
        let expected = try NDJSONReader<BookRecord>(path: directory.file("enriched.ndjson.gz")).readAll()
        let index = try #require(Self.cacheFiles(directory) { $0.hasPrefix("catalog-") && $0.hasSuffix(".sqlite") }.first)
        try damage.apply(to: directory.file("ws/cache/" + index))

        let second = try ExecutableRunner.run("shelfline-lookup", Self.catalogRun, in: directory.path)
        #expect(second.status == 0, "\(second)")
        let warnings = second.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(second)")
        #expect(
            warnings.first?.contains("catalog index") == true && warnings.first?.contains("set aside as") == true, "\(second)")
        #expect(
            Self.cacheFiles(directory) { $0.hasPrefix(index + ".corrupt-") }.count == 1, "the damaged file kept for inspection")
        struct Report: Decodable { var catalog: LookupEndToEndTests.Report.Catalog? }
        #expect(try readJSONFile(Report.self, from: directory.file("lookup-report.json")).catalog?.built == true)
        #expect(try NDJSONReader<BookRecord>(path: directory.file("enriched.ndjson.gz")).readAll() == expected)

        // The rebuilt index is used as any other: no warning, not rebuilt.
        let third = try ExecutableRunner.run("shelfline-lookup", Self.catalogRun, in: directory.path)
        #expect(third.status == 0 && !third.stderr.contains("warning"), "\(third)")
    }

    @Test(.bug(id: 23, "§4"), arguments: Damage.allCases)
    func damagedLookupCacheIsSetAsideAndRebuilt(_ damage: Damage) async throws {
        let books = FakeOpenLibraryServer.numberedBooks(40)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-e2e-cache-damage")
        let records = books.sorted { $0.key < $1.key }.enumerated().map { offset, book in
            LookupEndToEndTests.record(offset + 2, book.value.title, "Ann Author", isbn13: book.key)
        }
        try LookupEndToEndTests.writeInput(records, in: directory)
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"sources": ["openlibrary"],
              "openLibrary": {"baseURL": "\(server.baseURL)", "requestsPerSecond": 100, "batchSize": 1}}}]}
            """)
        let arguments = ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "ws", "--quiet"]
        let first = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(first.status == 0, "\(first)")
        let asked = server.requests.count
        try damage.apply(to: directory.file("ws/cache/lookup-cache.sqlite"))

        let second = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(second.status == 0, "\(second)")
        let warnings = second.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(second)")
        #expect(warnings.first?.contains("lookup cache") == true && warnings.first?.contains("set aside as") == true, "\(second)")
        #expect(
            Self.cacheFiles(directory) {
                $0.hasPrefix("lookup-cache.sqlite.corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
            }
            .count == 1)
        struct Report: Decodable { var requests: Int; var cacheHits: Int; var counts: EnrichmentCounts }
        let report = try readJSONFile(Report.self, from: directory.file("report.json"))
        #expect(report.counts.matchedByIsbn == 40, "every row answered again")
        #expect(report.cacheHits == 0 && server.requests.count - asked == asked, "asked again: the old answers are gone")

        // The rebuilt cache answers the next run.
        let third = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(third.status == 0 && !third.stderr.contains("warning"), "\(third)")
        #expect(try readJSONFile(Report.self, from: directory.file("report.json")).cacheHits == 40)
    }

    /// A build killed with SIGKILL leaves `catalog-<hash>.sqlite.building-<pid>`: the next start
    /// removes the scratch of every process that no longer exists, and leaves a live one's.
    @Test(.bug(id: 23, "§5")) func scratchFilesOfDeadIndexBuildsAreRemovedAtTheNextStart() throws {
        let directory = TemporaryDirectory("lookup-e2e-scratch")
        try LookupEndToEndTests.writeInput(LookupEndToEndTests.exampleRecords, in: directory)
        try FileManager.default.createDirectory(atPath: directory.file("ws/cache"), withIntermediateDirectories: true)
        // A process that has exited: its pid names no process (until reused, which the kernel delays).
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = [
            "catalog-0123456789abcdef.sqlite.building-\(gone.processIdentifier)",
            "catalog-fedcba9876543210.sqlite.building-\(gone.processIdentifier)",
        ]
        let live = "catalog-0123456789abcdef.sqlite.building-\(getpid())"  // this test process: alive
        for name in dead + [live] {
            _ = directory.write("ws/cache/" + name, String(repeating: "x", count: 4096))
        }
        let result = try ExecutableRunner.run("shelfline-lookup", Self.catalogRun, in: directory.path)
        #expect(result.status == 0, "\(result)")
        #expect(Self.cacheFiles(directory) { $0.contains(".building-") } == [live])
    }
}
