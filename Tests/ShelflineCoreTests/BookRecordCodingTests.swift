import Foundation
import ShelflineCore
import Testing

/// `BookRecord`'s JSON conformance is written out, not synthesised (`shelfPositions` is read against
/// `shelves`: RecordShelfPositions.swift), so a stored property missing from its `CodingKeys`,
/// `init(from:)` or `encode(to:)` (all generated from codegen/fields.json) would be dropped silently
/// from every stage's records. This fills every scalar and string-list property through JSON and checks each comes
/// back, read and written.
@Suite struct BookRecordCodingTests {
    /// Properties whose types this test does not fill; a new property of another type must be
    /// given a sample value below (or added here, and checked by its own test).
    static let structured: Set<String> = ["format", "reads", "shelfPositions", "dedupe", "match", "metadata"]

    /// A JSON value of the property's declared type (matched on the type: a nil optional casts
    /// to every optional type).
    static func sample(for value: Any) -> String? {
        switch ObjectIdentifier(type(of: value)) {
        case ObjectIdentifier(String.self), ObjectIdentifier(String?.self): #""x""#
        case ObjectIdentifier(Int.self), ObjectIdentifier(Int?.self): "7"
        case ObjectIdentifier(Double?.self): "1.5"
        case ObjectIdentifier(Bool?.self): "true"
        case ObjectIdentifier([String]?.self): #"["x"]"#
        case ObjectIdentifier([String: String]?.self): #"{"x":"y"}"#
        default: nil
        }
    }

    @Test func everyStoredPropertyIsReadAndWrittenUnderItsName() throws {
        let base = BookRecord(format: .goodreads, line: 2, byteOffset: 0, byteLength: 1, title: "T")
        var members = [#""format":"goodreads""#]
        var filled: [String] = []
        for child in Mirror(reflecting: base).children {
            let name = try #require(child.label)
            guard let sample = Self.sample(for: child.value) else {
                #expect(Self.structured.contains(name), "no sample value for the record's property '\(name)'")
                continue
            }
            members.append("\"\(name)\":\(sample)")
            filled.append(name)
        }
        #expect(filled.count > 40)
        let decoded = try JSONDecoder().decode(BookRecord.self, from: Data("{\(members.joined(separator: ","))}".utf8))
        let values = Dictionary(uniqueKeysWithValues: Mirror(reflecting: decoded).children.map { ($0.label!, $0.value) })
        for name in filled {
            #expect(values[name].map { "\($0)" } != "nil", "'\(name)' was not read")
        }
        let written = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(decoded)) as? [String: Any])
        #expect(Set(filled).subtracting(written.keys).isEmpty, "not written: \(Set(filled).subtracting(written.keys).sorted())")
        #expect(try JSONDecoder().decode(BookRecord.self, from: JSONEncoder().encode(decoded)) == decoded)
    }
}
