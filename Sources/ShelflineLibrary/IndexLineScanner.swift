import ShelflineCore

/// Reads a library line's `id`, `keys` and creating import alone: every merge and dedupe scans every
/// book, and `JSONDecoder` spent most of its time on fields the index does not need. It still checks
/// the whole line's syntax; on any doubt, nil, and the caller's `JSONDecoder` names the error.
struct IndexLineScanner {
    struct Fields {
        var id: String?
        var keys: [String]?
        /// The first provenance entry's import, when its `fields` are `["created"]`.
        var createdBy: String?
    }

    static func scan(_ bytes: UnsafeRawBufferPointer) -> Fields? {
        var scanner = JSONScanner(bytes)
        var fields = Fields()
        scanner.skipWhitespace()
        // Names compared as bytes: a `String` per name was most of the scan. A name with an escape may
        // spell a member read here: `JSONDecoder` decides.
        let wellFormed = scanner.rawMembers { scanner, key in
            switch key {
            case "id":
                guard let value = scanner.string() else { return false }
                fields.id = value
            case "keys":
                guard let keys = scanner.stringArray() else { return false }
                fields.keys = keys
            case "provenance":
                var first = true
                return scanner.array { scanner in
                    guard first else { return scanner.skipValue(depth: 2) }
                    first = false
                    guard let created = contribution(&scanner) else { return false }
                    fields.createdBy = created
                    return true
                }
            default:
                return !key.bytes.contains(UInt8(ascii: "\\")) && scanner.skipValue(depth: 1)
            }
            return true
        }
        return wellFormed && scanner.atEnd() ? fields : nil
    }

    /// Its `importId` when its `fields` are `["created"]`; outer nil when malformed.
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
