import Foundation
import ShelflineCore
import ShelflineRender

/// Reads a JSON queue file: an array of `{"id", "name", "date"}` (id a string or whole number,
/// date optional), or an object with that array under `beers` (or `queue`); an object with
/// `"sessionExpired": true` stands for the login page. Names lose their container label as on
/// the page.
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
        let list: [JSONValue]
        switch value {
        case .array(let array):
            list = array
        case .object(let object):
            if object["sessionExpired"] == .bool(true) { return .sessionExpired }
            guard case .array(let array)? = object["beers"] ?? object["queue"] else {
                throw BeerQueueError.invalidQueueFile(path: path, reason: "expected an array of beers or an object with 'beers'")
            }
            list = array
        default:
            throw BeerQueueError.invalidQueueFile(path: path, reason: "expected an array of beers or an object with 'beers'")
        }
        var beers: [QueuedBeer] = []
        for (index, item) in list.enumerated() {
            guard case .object = item else {
                throw BeerQueueError.invalidQueueFile(path: path, reason: "beers[\(index)] is not an object")
            }
            guard let id = item["id"]?.integer.map(String.init) ?? item["id"].flatMap({ value -> String? in
                if case .string(let text) = value, !text.isEmpty { return text }
                return nil
            }) else {
                throw BeerQueueError.invalidQueueFile(path: path, reason: "beers[\(index)] has no 'id'")
            }
            guard case .string(let rawName)? = item["name"], !BeerQueuePage.collapse(rawName).isEmpty else {
                throw BeerQueueError.invalidQueueFile(path: path, reason: "beers[\(index)] has no 'name'")
            }
            let date = item["date"].map(\.text) ?? ""
            beers.append(QueuedBeer(id: id, name: ContainerLabel.displayName(rawName), date: BeerQueuePage.collapse(date)))
        }
        return .queue(beers)
    }
}
