/// Editions' publisher lists kept once each in the `publishers` table and referred to by id
/// (an INTEGER in `editions.publishers`; a TEXT there is the list itself): a few publishers
/// name most editions, and the id takes 1–3 bytes where the text takes 12 or more. Ids are given
/// in the order lists first appear, so a dump
/// always gives the same index. Memory stays bounded: after `limit` lists, or for a list longer
/// than `maximumBytes`, the text is stored in the edition as before.
struct PublisherNames {
    static let limit = 100_000
    static let maximumBytes = 96

    private var ids: [String: Int] = [:]
    private let insert: SQLiteStatement

    init(_ database: SQLiteDatabase) throws {
        insert = try database.prepare("INSERT INTO publishers(id, name) VALUES (?, ?)")
    }

    /// Binds `publishers` (`CatalogIndex.encodeList`'s text) as its id, adding it to the table
    /// when new, or as the text itself.
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
