import Foundation

/// A fresh directory under the system temp dir, removed when the value is dropped.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "shelfline") {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/\(label)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `path/name`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `contents` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ contents: String) -> String {
        let target = file(name)
        try! FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try! Data(contents.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes raw bytes to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let target = file(name)
        try! Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }
}
