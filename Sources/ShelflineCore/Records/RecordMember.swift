/// One member of a record's JSON, as `JSONDecoder` and `JSONEncoder` read and write it: the table
/// `BookRecord.members`, generated from the fields, serves both directions, so `Codable` has no
/// per-field code. Absent optionals are omitted and read as nil.
struct RecordMember {
    let decode: (KeyedDecodingContainer<AnyKey>, inout BookRecord) throws -> Void
    let encode: (BookRecord, inout KeyedEncodingContainer<AnyKey>) throws -> Void

    static func required<Value: Codable>(_ name: String, _ field: WritableKeyPath<BookRecord, Value>) -> RecordMember {
        let key = AnyKey(stringValue: name)
        return RecordMember(
            decode: { container, record in record[keyPath: field] = try container.decode(Value.self, forKey: key) },
            encode: { record, container in try container.encode(record[keyPath: field], forKey: key) })
    }

    static func optional<Value: Codable>(_ name: String, _ field: WritableKeyPath<BookRecord, Value?>) -> RecordMember {
        let key = AnyKey(stringValue: name)
        return RecordMember(
            decode: { container, record in record[keyPath: field] = try container.decodeIfPresent(Value.self, forKey: key) },
            encode: { record, container in try container.encodeIfPresent(record[keyPath: field], forKey: key) })
    }
}

extension BookRecord {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        self.init(format: .generic, line: 0, title: "")
        for member in Self.members { try member.decode(container, &self) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for member in Self.members { try member.encode(self, &container) }
    }
}
