import Foundation
import ShelflineCore
import ShelflineReports

/// What one run directory says about an import so far: whichever of the stage reports exist.
///
/// Reports are written atomically, so a file is complete or absent. Dedupe's, whose shape belongs
/// to its stage, is read tolerantly: only the count below, at any depth.
public struct ImportRunStatus: Sendable, Equatable {
    public var runDirectory: String
    public var parse: ParseReport?
    public var dedupeDuplicates: Int?
    public var merge: MergeReport?
    /// A stage's report is the last file it writes.
    public var finished: Set<StageName> = []
    /// Progress is advisory: one that does not decode is left out.
    public var progress: [StageName: StageProgress] = [:]
    /// Renamed outputs included.
    public var files: RunFiles

    /// Reads whichever reports exist; one that does not decode is an error naming it.
    public static func read(runDirectory: String, files: RunFiles) throws -> ImportRunStatus {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: runDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FileError.missingInput(path: runDirectory, reason: "not a run directory")
        }
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
        func report<Report: Decodable>(_ stage: StageName, _ type: Report.Type) throws -> Report? {
            try existing(files.output(stage, .report)).map { try readJSONFile(type, from: $0) }
        }
        status.parse = try report(.parse, ParseReport.self)
        status.dedupeDuplicates = try report(.dedupe, JSONValue.self)?.firstCount(named: "duplicateInFile")
        status.merge = try report(.merge, MergeReport.self)
        return status
    }
}

extension JSONValue {
    /// Breadth-first.
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
