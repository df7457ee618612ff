import Foundation
import ShelflineCore

/// The order in which imports first reached the library (`library/imports.json`): the later import wins
/// a cell, and an older export run again keeps its place, so it never undoes a later one. `shelfline
/// rebuild` replays in this order. Order only: a library restored or deleted keeps it.
public struct ImportOrder: Codable, Sendable, Equatable {
    /// The first imported first.
    public var imports: [String]

    public init(imports: [String] = []) { self.imports = imports }

    public static func path(in workspace: Workspace) -> String { workspace.libraryDirectory + "/imports.json" }

    /// Empty when none was recorded yet.
    public static func load(workspace: Workspace) throws -> ImportOrder {
        let path = path(in: workspace)
        guard FileManager.default.fileExists(atPath: path) else { return ImportOrder() }
        do {
            return try readJSONFile(ImportOrder.self, from: path)
        } catch {
            throw FileError.corrupt(
                path: path, line: nil,
                reason: "not the library's import order (\(error)); "
                    + "remove it and run `shelfline rebuild` to write it again")
        }
    }

    /// Empty for an import not recorded yet (it is the newest).
    public func imports(after importId: String) -> Set<String> {
        guard let index = imports.firstIndex(of: importId) else { return [] }
        return Set(imports[(index + 1)...])
    }

    /// Unchanged when `importId` already has its place.
    public func appending(_ importId: String) -> ImportOrder {
        imports.contains(importId) ? self : ImportOrder(imports: imports + [importId])
    }

    public func write(workspace: Workspace) throws {
        try writeJSONFile(self, to: Self.path(in: workspace))
    }
}
