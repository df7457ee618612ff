/// Publisher lists kept once, referred to by id (1–3 bytes, not 12 or more of text); ids in order
/// of first appearance, so a dump always gives the same index. Past the limits, the text stays.
struct PublisherNames {
    static let limit = 100_000
    static let maximumBytes = 96

    private var ids: [String: Int] = [:]
    private let insert: SQLiteStatement

    init(_ database: SQLiteDatabase) throws {
        insert = try database.prepare("INSERT INTO publishers(id, name) VALUES (?, ?)")
    }

    mutating func bind(_ publishers: [String], to statement: SQLiteStatement, at index: Int32) throws {
        guard let text = CatalogIndex.encodeList(publishers) else { return statement.bind(index, nil as String?) }
        if let id = ids[text] { return statement.bind(index, id) }
        guard ids.count < Self.limit, text.utf8.count <= Self.maximumBytes else { return statement.bind(index, text) }
        let id = ids.count + 1
        insert.bind(1, id)
        insert.bind(2, text)
        try insert.run()
        ids[text] = id
        statement.bind(index, id)
    }
}
