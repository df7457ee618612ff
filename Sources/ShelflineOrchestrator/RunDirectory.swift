import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// One import's directory, `<workspace>/runs/<run-id>/`, keyed by the imported file's content.
public struct RunDirectory: Sendable, Equatable {
    public var id: String
    public var path: String

    public init(id: String, workspace: Workspace) {
        self.id = id
        path = workspace.runsDirectory + "/" + id
    }

    /// The first 16 hex digits of the file's SHA-256.
    public static func id(forContentHash hash: String) -> String { String(hash.prefix(16)) }

    public var manifestsDirectory: String { path + "/.manifests" }
    public func manifestPath(_ stage: StageName) -> String { manifestsDirectory + "/\(stage.rawValue).json" }
    public func file(_ name: String) -> String { path + "/" + name }
    /// The run reads this copy, never the original.
    public func inputPath(extension ext: String) -> String { path + "/input" + (ext.isEmpty ? "" : "." + ext) }

    public var existingInput: String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().first { $0 == "input" || $0.hasPrefix("input.") }.map { path + "/" + $0 }
    }

    public func manifest(_ stage: StageName) -> StageManifest? {
        try? readJSONFile(StageManifest.self, from: manifestPath(stage))
    }

    /// The run's own files `stage` reads, directly or through earlier stages, that exist but no
    /// longer hash as their manifest says (edited by hand). A file gone is left to the stage to report.
    public func filesChanged(readBy stage: StageName) throws -> [String] {
        var checked: Set<String> = []
        var changed: [String] = []
        for earlier in StageName.allCases where earlier <= stage {
            guard let manifest = manifest(earlier) else { continue }
            for recorded in earlier == stage ? manifest.inputs : manifest.outputs
            where !recorded.name.hasPrefix("{") && checked.insert(recorded.name).inserted {
                guard let stamp = try FileStamp.make(name: recorded.name, path: file(recorded.name), previous: recorded) else {
                    continue
                }
                if stamp.sha256 != recorded.sha256 { changed.append(recorded.name) }
            }
        }
        return changed
    }

    public static func latest(in workspace: Workspace) -> RunDirectory? {
        let link = workspace.runsDirectory + "/latest"
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { return nil }
        let id = (target as NSString).lastPathComponent
        let run = RunDirectory(id: id, workspace: workspace)
        return FileManager.default.fileExists(atPath: run.path) ? run : nil
    }

    /// Points `runs/latest` at this run atomically (new link, then rename).
    public func markLatest(in workspace: Workspace) throws {
        let link = workspace.runsDirectory + "/latest"
        let temporary = workspace.runsDirectory + "/.latest-\(getpid())"
        unlink(temporary)
        guard symlink(id, temporary) == 0 else { throw FileError.cannotCreate(path: link, reason: systemErrorMessage()) }
        guard rename(temporary, link) == 0 else {
            let reason = systemErrorMessage()
            unlink(temporary)
            throw FileError.cannotCreate(path: link, reason: reason)
        }
    }

    /// Refuses a `runs/latest` that is not a symbolic link before an import starts: `markLatest`
    /// could not replace it afterwards. Nothing is removed: it may hold someone's files.
    public static func refuseUnlinkedLatest(in workspace: Workspace) throws {
        let link = workspace.runsDirectory + "/latest"
        var info = stat()
        guard lstat(link, &info) == 0, (info.st_mode & S_IFMT) != S_IFLNK else { return }
        let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a symbolic link"
        throw FileError.cannotCreate(
            path: link,
            reason: "is \(what), not the link to the latest run; "
                + "move it away (nothing was imported)")
    }

    /// The last stage's manifest exists.
    public var isComplete: Bool {
        guard let last = StageName.allCases.last else { return false }
        return FileManager.default.fileExists(atPath: manifestPath(last))
    }

    /// When `runs/latest`'s run is gone, points it at the newest completed run left, or removes it.
    public static func repairLatest(in workspace: Workspace) throws {
        let link = workspace.runsDirectory + "/latest"
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil, latest(in: workspace) == nil else {
            return
        }
        let last = StageName.allCases[StageName.allCases.count - 1]
        let newest = all(in: workspace).filter(\.isComplete)
            .max { ($0.manifest(last)?.finishedAt ?? 0, $0.id) < ($1.manifest(last)?.finishedAt ?? 0, $1.id) }
        if let newest {
            try newest.markLatest(in: workspace)
        } else {
            unlink(link)
        }
    }

    public static func all(in workspace: Workspace) -> [RunDirectory] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: workspace.runsDirectory)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "latest" }.sorted().map { RunDirectory(id: $0, workspace: workspace) }
    }
}

extension RunDirectory {
    static let staleAge: TimeInterval = 24 * 3600

    /// Runs left incomplete for more than a day: shown by `status`, removed by `clean --stale`.
    /// Judged by each run's own state: a run whose last stage completed is never stale, whatever
    /// today's config says.
    public static func stale(in workspace: Workspace, now: Date) -> [(run: RunDirectory, lastActivity: Date)] {
        all(in: workspace).compactMap { run in
            guard !run.isComplete else { return nil }
            let last = run.lastActivity
            guard now.timeIntervalSince(last) > staleAge else { return nil }
            return (run, last)
        }
    }

    var lastActivity: Date {
        var newest = Date.distantPast
        for directory in [path, manifestsDirectory] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
                if let date = attributes?[.modificationDate] as? Date, date > newest { newest = date }
            }
        }
        return newest
    }
}
