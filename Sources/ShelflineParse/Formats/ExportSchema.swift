import Foundation
import ShelflineCore

/// How one export format names its columns, and which of them identify it.
public struct ExportSchema: Sendable {
    public var format: SourceFormat
    /// Header keys (`key`) that must all be present, each as its alternatives.
    public var signature: [[String]]
    /// For each role, the header keys that may hold it, best first.
    public var columns: [ColumnRole: [String]]
    /// The columns only the format reads (`ImportFormat.readOwnCells`).
    public var own: [[String]] = []

    public var expectedHeaders: String {
        signature.map { $0.joined(separator: "/") }.joined(separator: ", ")
    }

    /// Trimmed, lowercase, spaces collapsed, wrapping quotes (old LibraryThing: `'TITLE'`) removed.
    public static func key(_ header: String) -> String {
        var text = PersonName.collapse(header).lowercased()
        if text.count >= 2 && text.hasPrefix("'") && text.hasSuffix("'") {
            text = String(text.dropFirst().dropLast())
        }
        return text
    }

    /// Nil when a signature header is missing.
    public func resolve(header keys: [String]) -> ColumnMap? {
        var index: [String: Int] = [:]
        for (position, key) in keys.enumerated() where index[key] == nil { index[key] = position }
        for alternatives in signature where !alternatives.contains(where: { index[$0] != nil }) {
            return nil
        }
        var map = ColumnMap(format: format, columnCount: keys.count)
        for (role, names) in columns {
            if let position = names.lazy.compactMap({ index[$0] }).first { map[role] = position }
        }
        map.own = own.map { names in names.lazy.compactMap { index[$0] }.first }
        return map
    }
}

/// For one file: which column holds each role.
public struct ColumnMap: Sendable, Equatable {
    public var format: SourceFormat
    public var columnCount: Int
    /// The position of each of the schema's `own` columns.
    public var own: [Int?] = []
    /// Read once per file (`RecordBuilder` keeps the positions it uses), so a dictionary will do.
    var positions: [ColumnRole: Int] = [:]

    public subscript(role: ColumnRole) -> Int? {
        get { positions[role] }
        set { positions[role] = newValue }
    }

    var readColumns: Set<Int> { Set(positions.values).union(own.compactMap { $0 }) }
}
