import Foundation
import ShelflineCore

/// Whether a stage must run, and why.
public enum StageDecision: Sendable, Equatable {
    case upToDate
    case run(reason: String)
    case waiting(on: StageName)

    public var isUpToDate: Bool { self == .upToDate }

    public var text: String {
        switch self {
        case .upToDate: "up to date"
        case .run(let reason): "will run: \(reason)"
        case .waiting(let stage): "pending: waits for \(stage.rawValue)"
        }
    }
}

/// Decides, from manifests and content hashes, which stages of a run are complete.
public struct StagePlanner: Sendable {
    public var config: PipelineConfig
    /// Given by the commands layer: the stage types live in libraries the orchestrator does not link.
    public var stages: [Stage]
    public var workspace: Workspace

    /// The description of `stage` (the commands layer gives every stage's).
    public func description(_ stage: StageName) -> Stage {
        guard let description = stages.named(stage) else { preconditionFailure("no description of stage \(stage.rawValue)") }
        return description
    }

    /// Where a declared input or output lives for `run`.
    public func path(of name: String, in run: RunDirectory) -> String? {
        name == "{csv}" ? run.existingInput : workspace.file(named: name) ?? run.file(name)
    }

    /// Inputs that may be absent (their absence is part of the fingerprint).
    static let optionalInputs: Set<String> = ["{decisions}", "{library}"]

    /// Workspace files a stage writes besides its declared outputs (merge's library), recorded in
    /// its manifest: a library restored, damaged or removed since makes merge run again (merge is
    /// idempotent, so one another import changed costs a merge that writes nothing).
    public func workspaceOutputs(of stage: StageName) -> [String] {
        description(stage).unlistedOutputs.map(\.defaultName).filter { $0.hasPrefix("{") }
    }

    /// Whether runs of `stage` wrote `name` (merge's library) from content `ancestor` to `current`,
    /// one after another (each manifest's `workspaceBefore` → `outputs`). A library restored,
    /// damaged or written by anything else has no such line back, and the stage runs again.
    public func descends(_ name: String, of stage: StageName, from ancestor: String, to current: String) -> Bool {
        var before: [String: Set<String>] = [:]
        for run in RunDirectory.all(in: workspace) {
            guard let manifest = run.manifest(stage), let after = manifest.outputs.first(where: { $0.name == name })?.sha256,
                let earlier = manifest.workspaceBefore?.first(where: { $0.name == name })?.sha256, earlier != after
            else { continue }
            before[after, default: []].insert(earlier)
        }
        var seen: Set<String> = [current]
        var pending = [current]
        while let next = pending.popLast() {
            if next == ancestor { return true }
            for earlier in before[next] ?? [] where seen.insert(earlier).inserted { pending.append(earlier) }
        }
        return false
    }

    /// Stamps the workspace files `stage` writes, before it runs (`StageManifest.workspaceBefore`),
    /// reusing the latest manifest's stamp while stat facts match: the library is rehashed only
    /// when something outside the runs changed it.
    public func workspaceStamps(before stage: StageName, known: [String: FileStamp]) throws -> [FileStamp] {
        var stamps: [FileStamp] = []
        for name in workspaceOutputs(of: stage) {
            guard let path = workspace.file(named: name) else { continue }
            let latest = RunDirectory.latest(in: workspace)?.manifest(stage)?.outputs.first { $0.name == name }
            let now = FileStamp.make(name: name, path: path, sha256: "")
            let recorded = [known[name], latest].compactMap { $0 }.first { $0.sameFile(as: now) }
            stamps.append(try FileStamp.make(name: name, path: path, previous: recorded) ?? .absent(name))
        }
        return stamps
    }

    /// Run files a stage writes beside a declared output (`StageFile.besides`: parse's texts).
    public func besideOutputs(of stage: StageName) throws -> [String] {
        let declaration = try config.declaration(stage)
        let description = description(stage)
        return description.unlistedOutputs.compactMap { file in
            guard let role = file.besides, let index = description.outputs.firstIndex(where: { $0.role == role }),
                index < declaration.outputs.count
            else { return nil }
            return StageFiles.beside(declaration.outputs[index], named: file.defaultName)
        }
    }

    /// The hash of every parameter object `stage` decodes.
    public func parametersHash(_ stage: StageName) -> String {
        ContentHash.bytes(config.fingerprintedParameters(description(stage)))
    }

    /// Stamps a stage's inputs, or returns the first missing required one. `known`: stamps this run
    /// took (earlier stages' outputs), reused while stat facts match, so no file is hashed twice.
    public func inputStamps(
        _ declaration: StageDeclaration, run: RunDirectory, previous: StageManifest?,
        known: [String: FileStamp] = [:]
    ) throws -> Result<[FileStamp], MissingInput> {
        var stamps: [FileStamp] = []
        for name in declaration.inputs {
            let old = known[name] ?? previous?.inputs.first { $0.name == name }
            guard let path = path(of: name, in: run), let stamp = try FileStamp.make(name: name, path: path, previous: old) else {
                if Self.optionalInputs.contains(name) {
                    stamps.append(.absent(name))
                    continue
                }
                return .failure(MissingInput(name: name))
            }
            stamps.append(stamp)
        }
        return .success(stamps)
    }

    public struct MissingInput: Error, Sendable, Equatable {
        public var name: String
    }

    /// A decision, with the input stamps computed on the way, so a stage about to run does not hash them twice.
    public struct StageCheck: Sendable {
        public var decision: StageDecision
        public var inputs: Result<[FileStamp], MissingInput>?
    }

    public func check(_ stage: StageName, run: RunDirectory) throws -> StageCheck {
        let declaration = try config.declaration(stage)
        guard let manifest = run.manifest(stage) else {
            return StageCheck(decision: .run(reason: "never completed in this run"))
        }
        let algorithmVersion = description(stage).algorithmVersion
        if manifest.algorithmVersion != algorithmVersion {
            return StageCheck(
                decision: .run(reason: "algorithm version changed (\(manifest.algorithmVersion) → \(algorithmVersion))"))
        }
        if manifest.parametersHash != parametersHash(stage) {
            return StageCheck(decision: .run(reason: "parameters changed"))
        }
        let inputs = try inputStamps(declaration, run: run, previous: manifest)
        switch inputs {
        case .failure(let missing):
            return StageCheck(decision: .run(reason: "input missing: \(missing.name)"), inputs: inputs)
        case .success(let stamps):
            for stamp in stamps where manifest.inputs.first(where: { $0.name == stamp.name })?.sha256 != stamp.sha256 {
                return StageCheck(decision: .run(reason: "input changed: \(stamp.name)"), inputs: inputs)
            }
        }
        for recorded in manifest.outputs {
            guard let path = path(of: recorded.name, in: run),
                let stamp = try FileStamp.make(name: recorded.name, path: path, previous: recorded)
            else { return StageCheck(decision: .run(reason: "output missing: \(recorded.name)"), inputs: inputs) }
            if stamp.sha256 != recorded.sha256 {
                // Later imports wrote on top of this merge's library: merging again would only repeat it.
                if workspaceOutputs(of: stage).contains(recorded.name),
                    descends(recorded.name, of: stage, from: recorded.sha256, to: stamp.sha256)
                {
                    continue
                }
                return StageCheck(decision: .run(reason: "output modified: \(recorded.name)"), inputs: inputs)
            }
        }
        return StageCheck(decision: .upToDate, inputs: inputs)
    }

    /// Decisions for every stage in order, without running anything; with `askAgain`, as `run`
    /// decides at `now`.
    public func plan(run: RunDirectory, askAgain: AskAgain? = nil, now: Date = Date()) throws -> [(StageName, StageDecision)] {
        var result: [(StageName, StageDecision)] = []
        var blocker: StageName?
        for declaration in config.stages {
            if let blocker {
                result.append((declaration.name, .waiting(on: blocker)))
                continue
            }
            var decision = try check(declaration.name, run: run).decision
            if decision.isUpToDate, let rows = askAgain?.rows(declaration.name, in: run, now: now), rows > 0 {
                decision = .run(reason: AskAgain.reason(rows: rows))
            }
            if !decision.isUpToDate { blocker = declaration.name }
            result.append((declaration.name, decision))
        }
        return result
    }
}
