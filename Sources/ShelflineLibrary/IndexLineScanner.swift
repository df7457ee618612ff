import ShelflineCore

/// Reads a library line's `id`, `keys` and creating import without building the whole object:
/// the key scan of every merge and dedupe touches every book, and Foundation's `JSONDecoder`
/// spent most of its time on fields the index does not need.
///
/// Through `JSONScanner`, it still checks the line's JSON syntax (strings, escapes, numbers, literals, nesting), so a line
/// it accepts is a well-formed object; on any doubt it returns nil and the caller decodes the line
/// with `JSONDecoder` to get a precise error.
struct IndexLineScanner {
    struct Fields {
        var id: String?
        var keys: [String]?
        /// The import whose contribution created the book (the first provenance entry, `fields: ["created"]`).
        var createdBy: String?
    }

    /// The fields, or nil when the line is not a well-formed JSON object this scanner understands.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> Fields? {
        var scanner = JSONScanner(bytes)
        var fields = Fields()
        scanner.skipWhitespace()
        // Names compared as bytes (`rawMembers`): a `String` per member name was most of the scan
        // after inflating (perf, second import of 200k rows). A name with an escape may spell a
        // member read here: `JSONDecoder` decides (nil).
        let wellFormed = scanner.rawMembers { scanner, key in
            switch key {
            case "id":
                guard let value = scanner.string() else { return false }
                fields.id = value
            case "keys":
                guard let keys = scanner.stringArray() else { return false }
                fields.keys = keys
            case "provenance":
                guard scanner.take(UInt8(ascii: "[")) else { return false }
                scanner.skipWhitespace()
                if scanner.take(UInt8(ascii: "]")) { return true }
                guard let first = contribution(&scanner) else { return false }
                fields.createdBy = first
                while true {
                    scanner.skipWhitespace()
                    if scanner.take(UInt8(ascii: "]")) { return true }
                    guard scanner.take(UInt8(ascii: ",")) else { return false }
                    scanner.skipWhitespace()
                    guard scanner.skipValue(depth: 2) else { return false }
                }
            default:
                return !key.bytes.contains(UInt8(ascii: "\\")) && scanner.skipValue(depth: 1)
            }
            return true
        }
        return wellFormed && scanner.atEnd() ? fields : nil
    }

    /// One provenance object: its `importId` when its `fields` are `["created"]`, else nil; nil
    /// (outer) when malformed.
    private static func contribution(_ scanner: inout JSONScanner) -> String?? {
        var importId: String?
        var created = false
        let wellFormed = scanner.rawMembers { scanner, key in
            switch key {
            case "importId":
                guard let value = scanner.string() else { return false }
                importId = value
            case "fields":
                guard let names = scanner.stringArray() else { return false }
                created = names == ["created"]
            default:
                return !key.bytes.contains(UInt8(ascii: "\\")) && scanner.skipValue(depth: 3)
            }
            return true
        }
        guard wellFormed else { return nil }
        return .some(created ? importId : nil)
    }
}
