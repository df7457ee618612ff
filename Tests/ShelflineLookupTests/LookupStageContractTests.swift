import Foundation
import ShelflineCore
import ShelflineLookup
import TestSupport
import TestTraits
import Testing

/// Lookup's side of the stage protocol: its ranges, declared once on `LookupParameters`, and its
/// sources, registered once in `MetadataSources.all`.
@Suite(.offCooperativePool) struct LookupStageContractTests {
    @Test func parameterRangesAreTheOnesTheSchemaStates() throws {
        #expect(try PipelineSchemaRanges.mismatches(of: LookupStage.self) == [])
    }

    static func lookupSchema() throws -> [String: Any] {
        let path = ExecutableRunner.repositoryRoot + "/docs/pipeline.schema.json"
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let definitions = schema?["$defs"] as? [String: Any]
        return (definitions?["lookupParameters"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]
    }

    /// The schema's `sources` names and sections are the registered sources', and each section
    /// states every setting its source decodes.
    @Test(.bug(id: 37)) func schemaNamesEveryRegisteredSourceAndItsSettings() throws {
        let properties = try Self.lookupSchema()
        let items = (properties["sources"] as? [String: Any])?["items"] as? [String: Any]
        #expect(items?["enum"] as? [String] == MetadataSources.names)
        func defaults<Source: RegisteredSource>(_ source: Source.Type) throws -> Any {
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Source.Settings()), options: .fragmentsAllowed)
        }
        for source in MetadataSources.all {
            let section = properties[source.section] as? [String: Any]
            #expect(section != nil, "no lookupParameters.\(source.section) in the schema for '\(source.sourceName)'")
            guard let settings = try defaults(source) as? [String: Any] else { continue }
            let stated = Set((section?["properties"] as? [String: Any] ?? [:]).keys)
            #expect(Set(settings.keys).subtracting(stated).isEmpty, "\(source.section): settings the schema does not state")
        }
    }

    /// `--help` and the unknown-source message list the registered sources.
    @Test(.bug(id: 37)) func helpAndErrorsNameEveryRegisteredSource() throws {
        let help = try ExecutableRunner.run("shelfline-lookup", ["--help"])
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains(MetadataSources.names.joined(separator: ", ")), "\(help.stdout)")
        let directory = TemporaryDirectory("lookup-sources")
        let unknown = try ExecutableRunner.run(
            "shelfline-lookup", ["in.ndjson.gz", "-o", "out.ndjson.gz", "--source", "nowhere"], in: directory.path)
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains(MetadataSources.names.joined(separator: ", ")), "\(unknown.stderr)")
    }

    /// `SourceShapes` (Core, where the page and merge read it) names only registered sources, each
    /// once: a shape under a misspelt name would never be used.
    @Test(.bug(id: 37)) func sourceShapesNameRegisteredSources() {
        let names = SourceShapes.all.map(\.source)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy(MetadataSources.names.contains), "\(names)")
    }
}
