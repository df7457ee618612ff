import Foundation
import ShelflineActivity
import ShelflineCore

/// A JSON queue file: an array of `{"id", "name", "date"}` (id a string or whole number, date
/// optional), or an object with it under `beers` (or `queue`); `"sessionExpired": true` stands for
/// the login page.
public enum BeerQueueFile {
    public static func read(path: String) throws -> BeerQueueReading {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "no such file or not readable")
        }
        let value: JSONValue
        do {
            value = try readJSONFile(JSONValue.self, from: path)
        } catch let error as FileError {
            throw BeerQueueError.invalidQueueFile(path: path, reason: "\(error)".replacingOccurrences(of: path + ": ", with: ""))
        }
        return try parse(value, path: path)
    }

    static func parse(_ value: JSONValue, path: String) throws -> BeerQueueReading {
        if value["sessionExpired"] == .bool(true) { return .sessionExpired }
        // The array itself, or an object holding it under `beers` or `queue`.
        guard case .array(let list) = value["beers"] ?? value["queue"] ?? value else {
            throw BeerQueueError.invalidQueueFile(path: path, reason: "expected an array of beers or an object with 'beers'")
        }
        // As on a page: a malformed entry is skipped; only a file of nothing but is an error.
        var beers: [QueuedBeer] = []
        var skipped: [SkippedRow] = []
        var seenIds: [String: Int] = [:]
        for (index, item) in list.enumerated() {
            var id = item["id"]?.integer.map(String.init)
            if id == nil, case .string(let text)? = item["id"], !SnapshotText.clean(text).isEmpty {
                id = SnapshotText.clean(text)
            }
            var name = ""
            if case .string(let rawName)? = item["name"] { name = SnapshotText.clean(rawName) }
            let reason: String? =
                switch (item, id) {
                case (.object, nil): "beers[\(index)] has no 'id'"
                case (.object, _) where name.isEmpty: "beers[\(index)] has no 'name'"
                case (.object, let id?): seenIds[id].map { "beers[\(index)] has the same id \(id) as beers[\($0)]" }
                default: "beers[\(index)] is not an object"
                }
            guard let id, reason == nil else {
                skipped.append(SkippedRow(row: index + 1, reason: reason!))
                continue
            }
            seenIds[id] = index
            let date = item["date"].map(\.text) ?? ""
            beers.append(QueuedBeer(id: id, name: ContainerLabel.displayName(name), date: SnapshotText.clean(date)))
        }
        if beers.isEmpty && !skipped.isEmpty {
            throw BeerQueueError.malformedRows(source: path, skipped: skipped)
        }
        return .queue(beers, skipped: skipped)
    }
}
