/// What a stage's declared input or output is for. The role decides which option of the stage's
/// executable takes the file, and lets other commands (render, the orchestrator's summary) find
/// a file by what it is rather than by its name, which `pipeline.json` may change.
public enum StageFileRole: String, Sendable, CaseIterable {
    /// The imported export (`{csv}`).
    case export
    /// gzip NDJSON records, one per row.
    case records
    /// Rows parse could not read (gzip NDJSON).
    case rejects
    /// The stage's own JSON report; it declares the stage's row count (`StageReport`).
    case report
    /// Parse's report, read by merge for the source's header and row count.
    case parseReport
    /// Review decisions (`{decisions}`, in the workspace).
    case decisions
    /// Per-row ledger (gzip NDJSON).
    case ledger
    /// Rows whose match needs a person (JSON).
    case review
    /// Rejected rows in the source's own layout (CSV).
    case failedRows
    /// The import's report page.
    case page
    /// Progress JSON rewritten while the stage runs (not declared in `pipeline.json`).
    case progress
    /// Rows imported without metadata, in the source's own layout (CSV, beside `failedRows`).
    case notEnrichedRows
    /// The library (`{library}`, in the workspace).
    case library
    /// Parse's reviews and notes, apart from its records (gzip NDJSON, beside them: `RecordTexts`).
    case texts
}

/// One input or output of a stage: its role, how its executable is given it, and the name the
/// shipped `pipeline.json` gives it.
public struct StageFile: Sendable, Equatable {
    public var role: StageFileRole
    public var passing: Passing
    public var defaultName: String
    /// An unlisted output written in the directory of the stage's output with this role, under
    /// `defaultName` (parse's texts, beside its records): recorded in the stage's manifest when
    /// written, like a declared output, so a run whose file is gone or changed since runs the
    /// stage again (`StagePlanner.besideOutputs`).
    public var besides: StageFileRole?

    /// How the orchestrator hands the file to the stage's executable.
    public enum Passing: Sendable, Equatable {
        /// The positional argument.
        case positional
        /// The stage's main output: `-o`/`--output`.
        case output
        /// The option named after the role (`optionName`: `--rejects`, `--parse-report`).
        case option
        /// Not passed: the executable finds it by role (render reads the run directory through
        /// `RunFiles`; merge reads `{decisions}` from the workspace).
        case foundByRole
    }

    /// The long option that takes this file (`--output`, or the role in kebab case: `failedRows`
    /// is `--failed-rows`); nil when it is positional or found by role. Stage commands name their
    /// options from it (`NameSpecification.stageFile`), so the orchestrator and the executable
    /// cannot disagree.
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

/// The stage contract: everything the orchestrator, the config decoder, the stage executables,
/// render and the docs need to know about a stage, in one value. The pipeline's list of them, in
/// order, is `Stage.pipeline` (ShelflineReports); each stage type takes its entry from it
/// (`PipelineStage.description`), and the commands pass the list to whatever needs several.
public struct Stage: Sendable, Equatable {
    public var name: StageName
    /// The executable that runs it (beside `shelfline`, or in `SHELFLINE_BIN`).
    public var executable: String { "shelfline-\(name.rawValue)" }
    /// What `pipeline.json`'s `inputs` list, in order.
    public var inputs: [StageFile]
    /// What `pipeline.json`'s `outputs` list, in order.
    public var outputs: [StageFile]
    /// Progress JSON the stage rewrites while it runs, named after the stage (not configurable).
    public var progress: StageFile? = nil
    /// Files the stage reads and writes besides those `pipeline.json` lists, found by role under
    /// the description's names: the library (`{library}`, in the workspace), merge's
    /// `not-enriched.csv` (beside its failed rows). A workspace output is recorded in the stage's
    /// manifest, so a library changed since reruns merge (`StagePlanner.workspaceOutputs`).
    public var unlistedInputs: [StageFile] = []
    public var unlistedOutputs: [StageFile] = []
    /// The stages whose `parameters` this stage decodes, in the order they are fingerprinted:
    /// a stage may decode only these (`StageContext.parameters`), and a change to any reruns it.
    public var parameterStages: [StageName]
    /// Bumped whenever the stage's output for the same input and parameters may change, so the
    /// orchestrator reruns it (part of every stage fingerprint).
    public var algorithmVersion: Int
    /// What the executable is told about the run besides its files.
    public var invocation: Invocation
    /// Parameters the built-in default configuration (no `pipeline.json`) takes from the
    /// environment, when set (`PipelineConfig.builtInDefault`).
    public var environmentParameters: [EnvironmentParameter] = []
    /// The stage's step of the import activity's progress bar.
    public var activity: ActivityStep

    /// What the import Live Activity shows while the stage runs: its words (`Looking up books…`;
    /// nil for a stage that runs once the activity has ended) and its share of the progress bar,
    /// relative to the other stages' (its part is its share over their sum, so a stage added brings
    /// its own and no other entry changes); the bar stands at the sum of the earlier stages' parts
    /// when the stage starts, and the stage's progress file, if it has one, moves it across its own.
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
        /// The dotted key inside the stage's `parameters` (`openLibrary.baseURL`).
        public var keyPath: String

        public init(_ variable: String, _ keyPath: String) {
            self.variable = variable
            self.keyPath = keyPath
        }
    }

    /// How the orchestrator starts the executable.
    public enum Invocation: Sendable, Equatable {
        /// The files, as each `StageFile.passing` says.
        case files
        /// The files, and `--import-id RUN_ID` (merge records it as the books' provenance).
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

    /// The shipped name of this stage's input with `role` (a programming error when it has none).
    public func defaultInput(_ role: StageFileRole) -> String {
        guard let file = inputs.first(where: { $0.role == role }) else {
            preconditionFailure("stage \(name.rawValue) reads no \(role.rawValue)")
        }
        return file.defaultName
    }

    /// The shipped name of this stage's output with `role`: what its executable writes when run by
    /// hand without naming it. Asking for a role the stage does not produce is a programming error.
    public func defaultOutput(_ role: StageFileRole) -> String {
        guard let file = (outputs + unlistedOutputs).first(where: { $0.role == role }) else {
            preconditionFailure("stage \(name.rawValue) has no \(role.rawValue) output")
        }
        return file.defaultName
    }
}

extension Array where Element == Stage {
    /// The description of `name` in this list (the stages a command knows, as the layer above the
    /// stage libraries gives them), or nil.
    public func named(_ name: StageName) -> Stage? {
        first { $0.name == name }
    }
}

/// A stage's parameter type (`stages[].parameters` in `pipeline.json`), decoded strictly by
/// `PipelineConfig.parameters(_:)` and checked by `validate` before any stage runs.
public protocol StageParameters: Decodable, Sendable {
    /// The stage whose `parameters` object this type decodes.
    static var stage: StageName { get }
    /// The allowed range of each bounded number, by key path inside `parameters`
    /// (`openLibrary.batchSize`): checked before decoding (78 naming the key), and stated by
    /// `docs/pipeline.schema.json` (tests keep the two equal). The one place a range is written.
    static var ranges: [String: ConfigLimits.Range] { get }
    /// Checks no range can state (a power of two, one value against another); a `ConfigError` (78) naming the key.
    func validate(configPath: String) throws
}

extension StageParameters {
    public static var ranges: [String: ConfigLimits.Range] { [:] }
    public func validate(configPath: String) throws {}
}

/// A stage's report: it says how many rows the stage handled (the orchestrator's `rows=`).
public protocol StageReport {
    var rowCount: Int { get }
}

/// A report written as the stage's `report` file (`PipelineStage.perform`), which the orchestrator reads back.
public protocol FileStageReport: StageReport, Codable {}
