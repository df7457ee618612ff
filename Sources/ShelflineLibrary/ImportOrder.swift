import Foundation
import ShelflineCore

/// The order in which imports first reached the library (`library/imports.json`), the one rule for
/// which import wins a cell: the one imported later. Running an older export again (its run, or
/// its content under another file name: the same import id) keeps its place, so its cells never
/// replace what a later import wrote. Merge appends an import the first time it merges
/// it; `shelfline rebuild` replays the stored imports in this order.
///
/// It records order only, not what the library holds: a library restored or deleted keeps the order
/// of the imports that built it. Written atomically, under the merge lock.
public struct ImportOrder: Codable, Sendable, Equatable {
    /// Import ids, the first imported first.
    public var imports: [String]

    public init(imports: [String] = []) { self.imports = imports }

    public static func path(in workspace: Workspace) -> String { workspace.libraryDirectory + "/imports.json" }

    /// The recorded order; empty when none was recorded yet. An unreadable file is an error naming it.
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

    /// The imports that came after `importId`; empty for an import not recorded yet (it is the newest).
    public func imports(after importId: String) -> Set<String> {
        guard let index = imports.firstIndex(of: importId) else { return [] }
        return Set(imports[(index + 1)...])
    }

    /// `importId` placed last, unless it already has its place.
    public func appending(_ importId: String) -> ImportOrder {
        imports.contains(importId) ? self : ImportOrder(imports: imports + [importId])
    }

    public func write(workspace: Workspace) throws {
        try writeJSONFile(self, to: Self.path(in: workspace))
    }
}
