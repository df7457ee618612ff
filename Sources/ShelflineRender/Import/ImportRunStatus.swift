import Foundation
import ShelflineCore
import ShelflineReports

/// What one run directory says about an import so far: whichever of the stage reports exist.
///
/// Reports are written atomically by their stages, so a file either is complete or absent. Reports
/// whose exact shape belongs to another stage (dedupe, lookup) are read tolerantly: only the
/// counts named below are looked up, at any depth.
public struct ImportRunStatus: Sendable, Equatable {
    public var runDirectory: String
    public var parse: ParseReport?
    /// `duplicateInFile` from `dedupe-report.json`, when dedupe has finished.
    public var dedupeDuplicates: Int?
    /// `notEnriched` from the lookup report, when it has one.
    public var lookupNotEnriched: Int?
    public var merge: MergeReport?
    /// The stages whose report file exists (a stage's report is the last file it writes).
    public var finished: Set<StageName> = []
    /// The progress file of each stage that has written one (lookup's rows asked, merge's records
    /// resolved then folded into the library). Progress is advisory: one that does not decode is left out.
    public var progress: [StageName: StageProgress] = [:]

    /// The names of the run's files (renamed outputs included), from the stage descriptions.
    public var files: RunFiles

    /// Reads the run directory, finding each stage's file by role under the name `files` gives it.
    /// A missing directory is `FileError.missingInput`; a report that exists but does not decode
    /// is `FileError.corrupt` naming it.
    public static func read(runDirectory: String, files: RunFiles) throws -> ImportRunStatus {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: runDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FileError.missingInput(path: runDirectory, reason: "not a run directory")
        }
        /// The path of a file that exists, by its name (nil when the stage has no such file).
        func existing(_ name: String?) -> String? {
            guard let name else { return nil }
            let path = name.hasPrefix("/") ? name : runDirectory + "/" + name
            return FileManager.default.fileExists(atPath: path) ? path : nil
        }

        var status = ImportRunStatus(runDirectory: runDirectory, files: files)
        for stage in files.stages {
            if existing(files.output(stage.name, .report)) != nil { status.finished.insert(stage.name) }
            if let path = existing(files.progress(stage.name)) {
                status.progress[stage.name] = try? readJSONFile(StageProgress.self, from: path)
            }
        }
        if let path = existing(files.output(.parse, .report)) {
            status.parse = try readJSONFile(ParseReport.self, from: path)
        }
        if let path = existing(files.output(.dedupe, .report)) {
            status.dedupeDuplicates = try readJSONFile(JSONValue.self, from: path).firstCount(named: "duplicateInFile")
        }
        if let path = existing(files.output(.lookup, .report)) {
            status.lookupNotEnriched = try readJSONFile(JSONValue.self, from: path).firstCount(named: "notEnriched")
        }
        if let path = existing(files.output(.merge, .report)) {
            status.merge = try readJSONFile(MergeReport.self, from: path)
        }
        return status
    }
}

extension JSONValue {
    /// The first whole number stored under `key`, searching objects breadth-first.
    func firstCount(named key: String) -> Int? {
        var queue: [JSONValue] = [self]
        while !queue.isEmpty {
            let value = queue.removeFirst()
            switch value {
            case .object(let object):
                if case .number(let number)? = object[key], number >= 0, number == number.rounded() {
                    return Int(number)
                }
                for child in object.keys.sorted() { queue.append(object[child]!) }
            case .array(let array):
                queue.append(contentsOf: array)
            default:
                break
            }
        }
        return nil
    }
}
