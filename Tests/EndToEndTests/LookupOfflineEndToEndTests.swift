import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// A source found out of reach is not asked again in the run: every later row it would have
/// served is settled at once (`notEnriched`, reason `offline`), at the cost of a row no source has.
@Suite(.offCooperativePool) struct LookupOfflineEndToEndTests {
    typealias Report = LookupHTTPLimitsEndToEndTests.Report

    @Test(.bug(id: 25)) func sourceFoundOfflineIsNotAskedForTheRowsOfLaterChunks() throws {
        let directory = TemporaryDirectory("lookup-e2e-offline-chunks")
        // 600 books the sample catalog lacks, half with an ISBN, in 30 chunks of 20.
        let records = (0..<600).map { number in
            LookupEndToEndTests.record(
                number + 2, "Unlisted Book \(number)", "Author \(number % 17)",
                isbn13: number % 2 == 0 ? FakeOpenLibraryServer.isbn13(body: "97910\(String(format: "%07d", number))") : nil)
        }
        try LookupEndToEndTests.writeInput(records, in: directory)
        let catalog = ["editions.txt.gz", "works.txt.gz", "authors.txt"].map {
            "\"\(LookupEndToEndTests.catalogDirectory)/\($0)\""
        }
        // A name in the reserved `.invalid` domain never resolves, with or without a network.
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"chunkSize": 20,
              "catalog": [\(catalog.joined(separator: ","))], "openLibrary": {"baseURL": "https://shelfline-e2e.invalid"}}}]}
            """)
        let arguments = ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "ws", "--quiet"]
        let result = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(Report.self, from: directory.file("report.json"))
        #expect(report.recordsRead == 600)
        #expect(report.notEnrichedReasons == ["offline": 600], "\(report.notEnrichedReasons)")
        let counters = try #require(report.http["openlibrary"])
        #expect(counters.offline?.contains("name resolution failed") == true, "\(counters)")
        // At most the requests started before the first answer (concurrency 5): nothing after that
        // is sent, queued or refused one by one — 30 chunks would have queued about 600.
        #expect(counters.requests <= 5, "\(counters)")
        #expect(counters.notSent <= 5, "\(counters)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("offline") }
        #expect(lines.count == 1 && lines.first?.contains("600 records marked notEnriched (offline)") == true, "\(result)")

        // Offline answers are not cached: the next run asks again.
        let again = try ExecutableRunner.run("shelfline-lookup", arguments, in: directory.path)
        #expect(again.status == 0, "\(again)")
        let second = try readJSONFile(Report.self, from: directory.file("report.json"))
        #expect(second.cacheHits == 0 && second.requests >= 1, "\(second.requests) requests, \(second.cacheHits) cache hits")
    }
}
