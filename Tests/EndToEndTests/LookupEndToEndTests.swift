import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// `shelfline-lookup` as the orchestrator runs it: the built executable in a fresh directory.
@Suite(.offCooperativePool) struct LookupEndToEndTests {
    static var catalogDirectory: String { ExecutableRunner.repositoryRoot + "/examples/catalog" }
    static var catalogArguments: [String] {
        ["editions.txt.gz", "works.txt.gz", "authors.txt"].flatMap { ["--catalog", catalogDirectory + "/" + $0] }
    }

    static func record(
        _ line: Int, _ title: String, _ author: String?, isbn13: String? = nil, isbn10: String? = nil,
        titleBase: String? = nil, duplicateOf: Int? = nil
    ) -> BookRecord {
        var record = BookRecord(format: .goodreads, line: line, title: title)
        record.author = author
        record.isbn13 = isbn13
        record.isbn10 = isbn10
        record.titleBase = titleBase
        record.dedupe =
            duplicateOf.map { DedupeMark(status: .duplicateInFile, key: "k\($0)", firstLine: $0) }
            ?? DedupeMark(status: .new, key: "k\(line)")
        return record
    }

    /// The example export's books, as parse and dedupe hand them over.
    static let exampleRecords: [BookRecord] = [
        record(2, "The Left Hand of Darkness", "Ursula K. Le Guin", isbn13: "9780441478125"),
        record(
            3, "A Wizard of Earthsea (Earthsea Cycle, #1)", "Ursula K. Le Guin", isbn13: "9780547773742",
            titleBase: "A Wizard of Earthsea"),
        record(
            4, "The Tombs of Atuan (Earthsea Cycle, #2)", "Ursula K. Le Guin", isbn13: "9781442459922",
            titleBase: "The Tombs of Atuan"),
        record(5, "Dune (Dune, #1)", "Frank Herbert", isbn13: "9780441172719", titleBase: "Dune"),
        record(6, "Piranesi", "Susanna Clarke", isbn13: "9781635575637"),
        record(7, "The Dispossessed", "Ursula K. Le Guin"),
        record(8, "Station Eleven", "Emily St. John Mandel", isbn13: "9780385353304"),
        record(9, "Kindred", "Octavia E. Butler", isbn13: "9780807083697", isbn10: "0807083690"),
        record(
            10, "The Name of the Wind (The Kingkiller Chronicle, #1)", "Patrick Rothfuss", isbn13: "9780756404741",
            titleBase: "The Name of the Wind"),
        record(11, "Parable of the Sower (Earthseed, #1)", "Octavia E. Butler", titleBase: "Parable of the Sower"),
        record(12, "Notes from a Basement Press: Poems", "Wren Halloway"),
        record(13, "Dune (Dune, #1)", "Frank Herbert", isbn13: "9780441172719", titleBase: "Dune", duplicateOf: 5),
        record(14, "Le Petit Prince", "Antoine de Saint-Exupéry", isbn13: "9782070612758"),
        record(15, "Project Hail Mary", "Andy Weir", isbn13: "9780593135204"),
        record(16, "The Fifth Season (The Broken Earth, #1)", "N.K. Jemisin", titleBase: "The Fifth Season"),
    ]

    static func writeInput(_ records: [BookRecord], in directory: TemporaryDirectory) throws {
        try GzipFixture.write(records, to: directory.file("deduped.ndjson.gz"))
    }

    struct Report: Decodable {
        var recordsRead: Int
        var counts: EnrichmentCounts
        var duplicatesReused: Int
        var requests: Int
        var catalog: Catalog?
        struct Catalog: Decodable { var built: Bool; var editions: Int }
    }

    /// Issue 12: answers kept for later duplicates are dropped once their last duplicate is written
    /// (memory bounded at 2,000,000 rows); every duplicate still reuses its first row's answer.
    @Test(.bug(id: 12)) func duplicatesFarApartReuseTheirFirstRowsAnswer() throws {
        let directory = TemporaryDirectory("lookup-e2e-duplicates")
        let firsts = (0..<3_000).map { index -> BookRecord in
            var record = Self.exampleRecords[index % 11]
            record.line = index + 2
            record.dedupe = DedupeMark(status: .new, key: "k\(record.line)")
            return record
        }
        // Later duplicates in reverse order: some answers are needed to the end, others only briefly.
        let duplicates = firsts.reversed().enumerated().map { offset, first -> BookRecord in
            var record = first
            record.line = 3_002 + offset
            record.dedupe = DedupeMark(status: .duplicateInFile, key: "k\(first.line)", firstLine: first.line)
            return record
        }
        try Self.writeInput(firsts + duplicates, in: directory)
        let arguments =
            [
                "deduped.ndjson.gz", "-o", "enriched.ndjson.gz", "--report", "lookup-report.json",
                "--workspace", directory.file("ws"), "--source", "catalog",
            ] + Self.catalogArguments
        let result = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(result.status == 0, "\(result)")
        let records = try NDJSONReader<BookRecord>(path: directory.file("enriched.ndjson.gz")).readAll()
        #expect(records.count == 6_000)
        let byLine = Dictionary(uniqueKeysWithValues: records.map { ($0.line, $0) })
        for duplicate in duplicates {
            let first = duplicate.dedupe!.firstLine!
            #expect(byLine[duplicate.line]?.match == byLine[first]?.match, "line \(duplicate.line)")
        }
        let report = try readJSONFile(Report.self, from: directory.file("lookup-report.json"))
        #expect(report.duplicatesReused == 3_000)
        #expect(report.counts.total == 6_000)
    }

    @Test(.bug(id: 4)) func exampleExportIsEnrichedOfflineFromTheSampleCatalog() throws {
        let directory = TemporaryDirectory("lookup-e2e")
        try Self.writeInput(Self.exampleRecords, in: directory)
        // `--source catalog`: the default would ask Open Library for the row the sample catalog lacks.
        let arguments =
            [
                "deduped.ndjson.gz", "-o", "enriched.ndjson.gz", "--report", "lookup-report.json",
                "--progress", "lookup-progress.json", "--workspace", directory.file("ws"), "--source", "catalog",
            ]
            + Self.catalogArguments
        let result = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(result.status == 0, "\(result)")
        let records = try NDJSONReader<BookRecord>(path: directory.file("enriched.ndjson.gz")).readAll()
        #expect(records.map(\.line) == Self.exampleRecords.map(\.line))
        let byLine = Dictionary(uniqueKeysWithValues: records.map { ($0.line, $0) })
        for line in [2, 3, 4, 5, 6, 8, 9, 10, 13, 14, 15] {
            #expect(byLine[line]?.match?.status == .matchedByIsbn, "line \(line)")
            #expect(byLine[line]?.metadata?.editionKey != nil, "line \(line)")
        }
        #expect(byLine[7]?.match?.workKey == "/works/OL910005W", "The Dispossessed by Le Guin, not the namesake")
        #expect(byLine[11]?.match?.workKey == "/works/OL910012W", "Parable of the Sower, not of the Talents")
        #expect(byLine[16]?.match?.workKey == "/works/OL910019W", "Jemisin's Fifth Season, not Brenner's")
        for line in [7, 11, 16] { #expect(byLine[line]?.match?.status == .matchedBySearch, "line \(line)") }
        #expect(byLine[12]?.match?.status == .notEnriched)
        #expect(byLine[12]?.match?.reason == "no candidate")
        #expect(byLine[12]?.metadata == nil)
        #expect(byLine[9]?.metadata?.authors == ["Octavia E. Butler"])
        let report = try readJSONFile(Report.self, from: directory.file("lookup-report.json"))
        #expect(report.recordsRead == 15)
        #expect(report.counts.total == report.recordsRead)
        #expect(report.counts.matchedByIsbn == 11 && report.counts.matchedBySearch == 3 && report.counts.notEnriched == 1)
        #expect(report.duplicatesReused == 1)
        #expect(report.requests == 0)
        #expect(report.catalog?.built == true)
        let progress = try readJSONFile(StageProgress.self, from: directory.file("lookup-progress.json"))
        #expect(progress.finished && progress.processed == 15 && progress.total == 15)

        // A second run reuses the index.
        let again = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(again.status == 0, "\(again)")
        #expect(try readJSONFile(Report.self, from: directory.file("lookup-report.json")).catalog?.built == false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("enriched.ndjson.gz"))).count > 0)
    }

    @Test(.bug(id: 4)) func catalogPathsInPipelineJSONAreRelativeToTheConfigFile() throws {
        let directory = TemporaryDirectory("lookup-e2e")
        for name in ["editions.txt.gz", "works.txt.gz", "authors.txt"] {
            try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.catalogDirectory + "/" + name, toPath: directory.file("data/" + name))
        }
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {
              "sources": ["catalog"], "catalog": ["data/editions.txt.gz", "data/works.txt.gz", "data/authors.txt"]}}]}
            """)
        try FileManager.default.createDirectory(atPath: directory.file("runs/r1"), withIntermediateDirectories: true)
        try GzipFixture.write([Self.exampleRecords[5]], to: directory.file("runs/r1/deduped.ndjson.gz"))
        let result = try ExecutableRunner.run(
            "shelfline-lookup",
            [
                "deduped.ndjson.gz", "-o", "enriched.ndjson.gz", "--config", "../../pipeline.json",
                "--workspace", directory.file("ws"), "--quiet",
            ], in: directory.file("runs/r1"))
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "--quiet prints nothing on success")
        let records = try NDJSONReader<BookRecord>(path: directory.file("runs/r1/enriched.ndjson.gz")).readAll()
        #expect(records.first?.match?.status == .matchedBySearch)
    }

    @Test(
        .bug(id: 4),
        arguments: [
            (["missing.ndjson.gz", "-o", "out.ndjson.gz", "--catalog", "x"], 66, "missing.ndjson.gz"),
            (["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--source", "worldcat"], 64, "worldcat"),
            (["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--source", "catalog"], 78, "catalog"),
            (["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--catalog", "nope.txt.gz", "--source", "catalog"], 66, "nope.txt.gz"),
            (
                ["deduped.ndjson.gz", "-o", "no-such-dir/out.ndjson.gz", "--catalog", "dump.txt", "--source", "catalog"], 73,
                "no-such-dir/out.ndjson.gz"
            ),
        ] as [([String], Int32, String)])
    func badInvocationsFailWithOneLineNamingTheProblem(_ arguments: [String], _ status: Int32, _ named: String) throws {
        let directory = TemporaryDirectory("lookup-e2e")
        try Self.writeInput(Array(Self.exampleRecords.prefix(2)), in: directory)
        directory.write("dump.txt", "")
        let result = try ExecutableRunner.run(
            "shelfline-lookup", arguments + ["--workspace", directory.file("ws")], in: directory.path)
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.contains(named), "\(result)")
        #expect(result.stderr.contains("shelfline-lookup: error:"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.ndjson.gz")))
    }

    @Test(.bug(id: 4)) func invalidParameterIsAConfigError() throws {
        let directory = TemporaryDirectory("lookup-e2e")
        try Self.writeInput(Array(Self.exampleRecords.prefix(1)), in: directory)
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {
              "sources": ["openlibrary"], "openLibrary": {"requestsPerSecond": 0}}}]}
            """)
        let result = try ExecutableRunner.run(
            "shelfline-lookup", ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--workspace", "ws"],
            in: directory.path)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("openLibrary.requestsPerSecond"), "\(result)")
    }

    /// The server never answers while the test runs (and the request timeout is 60 s): a `paused`
    /// exit proves the stop did not wait for the request in flight, without timing anything.
    @Test(.bug(id: 4)) func sigtermPausesWithExit75WithoutWaitingForTheServer() async throws {
        let server = try await FakeOpenLibraryServer()
        server.latency = .seconds(600)
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-e2e")
        try Self.writeInput(Self.exampleRecords, in: directory)
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {
              "sources": ["openlibrary"], "openLibrary": {"baseURL": "\(server.baseURL)", "timeoutSeconds": 60}}}]}
            """)
        let process = ExecutableRunner.start(
            "shelfline-lookup",
            [
                "deduped.ndjson.gz", "-o", "out.ndjson.gz", "--progress", "p.json",
                "--workspace", "ws",
            ], in: directory.path)
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Wait until the stage is actually waiting on the server (fails loudly if it never asks).
        do {
            try await server.waitForRequests(1)
        } catch {
            process.terminate()
            throw error
        }
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 75, "\(stderr)")
        #expect(stderr.contains("paused"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.ndjson.gz")))
        #expect(FileManager.default.fileExists(atPath: directory.file("ws/cache/lookup-cache.sqlite")))
    }

    /// Issue 4 §4: a crash (SIGKILL) loses at most the requests in flight; the rerun asks only for the rest.
    /// The server answers 12 requests and holds the next ones, so the kill lands part-way whatever the load.
    @Test(.bug(id: 4)) func sigkillLosesAtMostTheRequestsInFlight() async throws {
        // Each ISBN's edition is the row's own book (an unrelated one would be an isbnTitleConflict).
        let server = try await FakeOpenLibraryServer(derive: { isbn in
            let number = Int(isbn.dropFirst(9).prefix(3)) ?? 0
            return .init(key: "/books/OL\(number)M", title: "Book \(number)", authors: ["A"], work: "/works/OL\(number)W")
        })
        server.fault = { number, _ in number > 12 ? .json("{}", delay: .seconds(600)) : nil }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-e2e")
        let records = (0..<40).map { number in
            Self.record(
                number + 2, "Book \(number)", "A",
                isbn13: FakeOpenLibraryServer.isbn13(body: "978100000\(String(format: "%03d", number))"))
        }
        try Self.writeInput(records, in: directory)
        // The held requests must stay held until the kill however loaded the machine: with the
        // default 10 s timeout, a slow run saw them time out and retried (18 requests, not 14).
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"sources": ["openlibrary"],
              "openLibrary": {"baseURL": "\(server.baseURL)", "batchSize": 1, "concurrency": 2, "requestsPerSecond": 50,
                              "timeoutSeconds": 900}}}]}
            """)
        let arguments = ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "ws", "--quiet"]
        let process = ExecutableRunner.start("shelfline-lookup", arguments, in: directory.path)
        try process.run()
        do {
            try await server.waitForRequests(14)  // 12 answered, 2 held (concurrency 2)
        } catch {
            kill(process.processIdentifier, SIGKILL)
            throw error
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(server.requests.count == 14)
        server.fault = { _, _ in nil }
        let rerun = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(rerun.status == 0, "\(rerun)")
        struct Counts: Decodable { var requests: Int; var cacheHits: Int; var counts: EnrichmentCounts }
        let report = try readJSONFile(Counts.self, from: directory.file("report.json"))
        #expect(
            report.counts.matchedByIsbn == 40,
            "\(rerun)\n\((try? String(contentsOfFile: directory.file("report.json"), encoding: .utf8)) ?? "")")
        #expect(report.requests + report.cacheHits == 40)
        #expect(report.cacheHits >= 12 - 2, "of the 12 answered, only what was in flight (at most 2) can be lost")
    }

    /// Issue 14 §5: by default the catalog is asked first, then Open Library; when Open Library
    /// cannot be reached the rows the catalog lacks end `offline`, and stderr says so in one line
    /// with the remedy. Open Library is a loopback port that refuses connections.
    @Test(.bug(id: 14)) func offlineImportSettlesMissingRowsAsOfflineWithOneSummaryLine() throws {
        let closed = try RefusingLoopbackPort()
        defer { withExtendedLifetime(closed) {} }  // the port stays bound (refusing) for the whole test
        let directory = TemporaryDirectory("lookup-e2e")
        try Self.writeInput(Self.exampleRecords, in: directory)
        let catalog = ["editions.txt.gz", "works.txt.gz", "authors.txt"].map { "\"\(Self.catalogDirectory)/\($0)\"" }
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {
              "catalog": [\(catalog.joined(separator: ","))], "openLibrary": {"baseURL": "\(closed.baseURL)"}}}]}
            """)
        let result = try ExecutableRunner.run(
            "shelfline-lookup",
            ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "ws", "--quiet"],
            in: directory.path)
        #expect(result.status == 0, "\(result)")
        struct Report: Decodable {
            var sources: [String]
            var recordsRead: Int
            var counts: EnrichmentCounts
            var notEnrichedReasons: [String: Int]
        }
        let report = try readJSONFile(Report.self, from: directory.file("report.json"))
        #expect(report.sources == ["catalog", "openlibrary"], "the default")
        #expect(report.counts.total == report.recordsRead)
        #expect(report.notEnrichedReasons == ["offline": 1], "only the row the catalog lacks needed Open Library")
        let records = try NDJSONReader<BookRecord>(path: directory.file("out.ndjson.gz")).readAll()
        #expect(records.first { $0.line == 12 }?.match?.reason == "offline")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("offline") }
        #expect(lines.count == 1, "\(result)")
        #expect(lines.first?.contains("1 records marked notEnriched (offline)") == true, "\(result)")
        #expect(lines.first?.contains("run the import again") == true, "the remedy: \(result)")
    }

    @Test func helpSaysWhatItReadsWritesAndTheExitStatuses() throws {
        let result = try ExecutableRunner.run("shelfline-lookup", ["--help"])
        #expect(result.status == 0)
        for text in ["Reads:", "Writes:", "--catalog", "--source", "75", "78"] {
            #expect(result.stdout.contains(text), "\(text)\n\(result)")
        }
    }
}
