/// What a stage's input or output is for: it picks the executable's option, and lets commands find
/// a file by role rather than by name, which `pipeline.json` may change.
public enum StageFileRole: String, Sendable, CaseIterable {
    /// The imported export (`{csv}`).
    case export
    /// gzip NDJSON, like `rejects`, `ledger` and `texts`.
    case records
    case rejects
    /// It declares the stage's row count (`StageReport`).
    case report
    /// Read by merge for the source's header and row count.
    case parseReport
    /// `{decisions}`, in the workspace.
    case decisions
    case ledger
    /// Rows whose match needs a person.
    case review
    /// Rejected rows in the source's own layout (CSV).
    case failedRows
    case page
    /// Not declared in `pipeline.json`.
    case progress
    /// Rows imported without metadata, in the source's own layout (CSV, beside `failedRows`).
    case notEnrichedRows
    /// `{library}`, in the workspace.
    case library
    /// Parse's reviews and notes, beside its records (`RecordTexts`).
    case texts
}

/// One input or output of a stage: its role, how its executable is given it, and its shipped name.
public struct StageFile: Sendable, Equatable {
    public var role: StageFileRole
    public var passing: Passing
    public var defaultName: String
    /// Written beside the output with this role, unlisted (parse's texts): still recorded in the
    /// manifest, so a run whose file is gone or changed runs the stage again.
    public var besides: StageFileRole?

    /// How the orchestrator hands the file to the stage's executable.
    public enum Passing: Sendable, Equatable {
        case positional
        /// `-o`/`--output`.
        case output
        /// The option named after the role (`optionName`).
        case option
        /// Not passed: the executable finds it by role (render through `RunFiles`).
        case foundByRole
    }

    /// The long option that takes this file (`failedRows` is `--failed-rows`). Stage commands name
    /// their options from it, so the orchestrator and the executable cannot disagree.
    public var optionName: String? {
        switch passing {
        case .positional, .foundByRole: nil
        case .output: "output"
        case .option:
            role.rawValue.reduce(into: "") { name, character in
                name += character.isUppercase ? "-" + character.lowercased() : String(character)
            }
        }
    }

    /// What the orchestrator passes before the file's path (`-o`, `--rejects`).
    public var flag: String? {
        passing == .output ? "-o" : optionName.map { "--" + $0 }
    }

    public init(_ role: StageFileRole, _ passing: Passing, defaultName: String, besides: StageFileRole? = nil) {
        self.role = role
        self.passing = passing
        self.defaultName = defaultName
        self.besides = besides
    }
}

/// The stage contract: everything the orchestrator, the config decoder, the executables, render
/// and the docs know about a stage, in one value; the pipeline's list is `Stage.pipeline`.
public struct Stage: Sendable, Equatable {
    public var name: StageName
    public var executable: String { "shelfline-\(name.rawValue)" }
    /// In the order of `pipeline.json`'s `inputs` (and `outputs`).
    public var inputs: [StageFile]
    public var outputs: [StageFile]
    /// Named after the stage, not configurable.
    public var progress: StageFile? = nil
    /// Files besides those `pipeline.json` lists (the library, merge's `not-enriched.csv`), found by
    /// role. A workspace output is recorded in the manifest, so a library changed since reruns merge.
    public var unlistedInputs: [StageFile] = []
    public var unlistedOutputs: [StageFile] = []
    /// The stages whose `parameters` this stage may decode, in fingerprint order: a change to any reruns it.
    public var parameterStages: [StageName]
    /// Bumped whenever the output for the same input and parameters may change, so the stage reruns.
    public var algorithmVersion: Int
    public var invocation: Invocation
    /// Parameters the built-in default configuration takes from the environment.
    public var environmentParameters: [EnvironmentParameter] = []
    public var activity: ActivityStep

    /// What the import Live Activity shows while the stage runs (nil text: it runs after the
    /// activity ended) and its share of the bar relative to the others' (a stage added brings its
    /// own, no other entry changes); its progress file, if any, moves the bar across its part.
    public struct ActivityStep: Sendable, Equatable {
        public var text: String?
        public var share: Double

        public init(_ text: String?, share: Double) {
            self.text = text
            self.share = share
        }
    }

    /// An environment variable that sets one parameter of the built-in default configuration.
    public struct EnvironmentParameter: Sendable, Equatable {
        public var variable: String
        /// Dotted, inside the stage's `parameters` (`openLibrary.baseURL`).
        public var keyPath: String

        public init(_ variable: String, _ keyPath: String) {
            self.variable = variable
            self.keyPath = keyPath
        }
    }

    /// How the orchestrator starts the executable.
    public enum Invocation: Sendable, Equatable {
        case files
        /// Also `--import-id RUN_ID`: merge records it as the books' provenance.
        case filesAndImportId
        /// `SUBCOMMAND --run RUN_DIR`: the stage finds its files in the run directory by role.
        case runDirectory(subcommand: String)
    }

    public init(
        name: StageName, inputs: [StageFile], outputs: [StageFile], progress: StageFile? = nil,
        unlistedInputs: [StageFile] = [], unlistedOutputs: [StageFile] = [], parameterStages: [StageName],
        algorithmVersion: Int, invocation: Invocation, environmentParameters: [EnvironmentParameter] = [],
        activity: ActivityStep
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.progress = progress
        self.unlistedInputs = unlistedInputs
        self.unlistedOutputs = unlistedOutputs
        self.parameterStages = parameterStages
        self.algorithmVersion = algorithmVersion
        self.invocation = invocation
        self.environmentParameters = environmentParameters
        self.activity = activity
    }

    /// The shipped name of the input with `role` (a programming error when it has none).
    public func defaultInput(_ role: StageFileRole) -> String {
        guard let file = inputs.first(where: { $0.role == role }) else {
            preconditionFailure("stage \(name.rawValue) reads no \(role.rawValue)")
        }
        return file.defaultName
    }

    /// The shipped name of the output with `role`: what the executable writes when not told a name.
    public func defaultOutput(_ role: StageFileRole) -> String {
        guard let file = (outputs + unlistedOutputs).first(where: { $0.role == role }) else {
            preconditionFailure("stage \(name.rawValue) has no \(role.rawValue) output")
        }
        return file.defaultName
    }
}

extension Array where Element == Stage {
    public func named(_ name: StageName) -> Stage? {
        first { $0.name == name }
    }
}

/// A stage's parameter type (`stages[].parameters`), decoded strictly and validated before any stage runs.
public protocol StageParameters: Decodable, Sendable {
    static var stage: StageName { get }
    /// Each bounded number's range by key path (`openLibrary.batchSize`), checked before decoding:
    /// the one place a range is written (`docs/pipeline.schema.json` states it too; tests compare).
    static var ranges: [String: ConfigLimits.Range] { get }
    /// Checks no range can state (a power of two, one value against another).
    func validate(configPath: String) throws
}

extension StageParameters {
    public static var ranges: [String: ConfigLimits.Range] { [:] }
    public func validate(configPath: String) throws {}
}

/// A stage's report: how many rows the stage handled (the orchestrator's `rows=`).
public protocol StageReport {
    var rowCount: Int { get }
}

/// A report written as the stage's `report` file (`PipelineStage.perform`), which the orchestrator reads back.
public protocol FileStageReport: StageReport, Codable {}
