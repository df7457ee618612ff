import ShelflineCore

/// One export format Shelfline reads: its name, how its header is recognised, how its cells map to
/// record fields, what it cannot carry and its one-line documentation.
///
/// Adding a format is writing one type that conforms and naming it once in `ImportFormats.all`:
/// detection, `--format`, the help texts and the checks on the schemas and docs/parse.md all come
/// from that list. Its `name` is persisted in every record (`SourceFormat`), so it never changes.
protocol ImportFormat: Sendable {
    /// The name in `--format`, the parse report and every record.
    var name: SourceFormat { get }
    /// One line saying what the format is, for `--help` and docs/parse.md.
    var summary: String { get }
    /// The header names that identify the format and the columns it reads, under `parameters`.
    func schema(_ parameters: ParseParameters) -> ExportSchema
    /// The separator of its list cells (additional authors, shelves).
    func listSeparator(_ parameters: ParseParameters) -> Character
    /// Whether `--format auto` tries it (default: always).
    func detected(with parameters: ParseParameters) -> Bool
    /// The columns whose content the library cannot hold (header key → why), said in the parse
    /// report when the file has them.
    var cannotCarry: [String: String] { get }
    /// Whether the report names the header's columns nothing reads (a spreadsheet's: its columns
    /// are whatever the user made; a known export's unread columns are documented instead).
    var reportsUnreadColumns: Bool { get }
    /// The column orders of its exports, for files whose header row was lost (empty: unknown).
    var headerlessColumns: [[String]] { get }
    /// Whether `cells` look like one of its data rows (a file whose header row was lost).
    func looksLikeDataRow(_ cells: [String]) -> Bool
    /// How its author cell names the author.
    var authorCell: AuthorCell { get }
    /// How its additional-authors cell lists them.
    var coauthorCell: CoauthorCell { get }
    /// Rows with fewer cells than the header read the missing ones as empty (hand-made CSVs);
    /// otherwise a short row is damage and is rejected.
    var acceptsShortRows: Bool { get }
    /// Reads the cells only this format has (`ExportSchema.own`, in that order) into `record`,
    /// after the shared rules filled it; returns why the row is not imported, or nil.
    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String?
    /// Why the source itself says this row is not to be imported (a book in its bin), or nil. Such
    /// a row is counted as skipped, apart from rejected rows, and is no failed row to fix.
    func skipReason(_ cells: OwnCells) -> String?
    /// The file has no title column: `readOwnCells` names the book instead.
    var titleFromOwnCells: Bool { get }
    /// The format has no reading state: a read date says read, a start date currently reading.
    var shelfFromReadDates: Bool { get }
}

/// A format whose header names are the same whatever the parse parameters: its schema is a constant.
protocol FixedSchemaFormat: ImportFormat {
    static var schema: ExportSchema { get }
}

extension FixedSchemaFormat {
    func schema(_ parameters: ParseParameters) -> ExportSchema { Self.schema }
}

/// How a format writes the author cell.
enum AuthorCell: Sendable {
    /// One name (whitespace runs collapsed).
    case name
    /// One name written `Last, First`.
    case invertedName
    /// Every author: the first is the author, the rest additional authors. The cell is split on the
    /// first of `separators` it holds (Calibre's `["&", ","]`: a cell with ` & ` is split there
    /// alone, so `Le Guin, Ursula K. & Attebery, Brian` keeps its inverted names).
    case list(separators: [Character] = [","])
}

/// How a format writes the additional-authors cell.
enum CoauthorCell: Sendable {
    /// Names split on the list separator.
    case list
    /// `Last, First` names split on this separator.
    case invertedList(Character)
}

extension ImportFormat {
    func detected(with parameters: ParseParameters) -> Bool { true }
    func listSeparator(_ parameters: ParseParameters) -> Character { "," }
    var cannotCarry: [String: String] { [:] }
    var reportsUnreadColumns: Bool { false }
    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String? { nil }
    func skipReason(_ cells: OwnCells) -> String? { nil }
    var titleFromOwnCells: Bool { false }
    var headerlessColumns: [[String]] { [] }
    func looksLikeDataRow(_ cells: [String]) -> Bool { false }
    var authorCell: AuthorCell { .name }
    var coauthorCell: CoauthorCell { .list }
    var acceptsShortRows: Bool { false }
    var shelfFromReadDates: Bool { false }

    /// The format's name as a person writes it (`summary` up to its first ":").
    var displayName: String { String(summary.prefix { $0 != ":" }) }

    /// The header of its export whose rows have `fieldCount` fields, or nil.
    func headerlessHeader(fieldCount: Int) -> [String]? {
        headerlessColumns.first { $0.count == fieldCount }
    }
}

/// The formats Shelfline reads, in detection order (most specific signature first): the one list
/// a new format is added to.
enum ImportFormats {
    static let all: [any ImportFormat] = [
        GoodreadsFormat(), StoryGraphFormat(), LibraryThingFormat(), CalibreFormat(), BookWyrmFormat(), OpenreadsFormat(),
        OpenLibraryReadingLogFormat(), GenericFormat(),
    ]

    /// The registered format named `name`.
    static func named(_ name: SourceFormat) -> (any ImportFormat)? {
        all.first { $0.name == name }
    }
}

/// A row's cells that only its format reads: `ExportSchema.own`'s columns, by their index there.
struct OwnCells {
    let cells: RowCells
    let positions: [Int?]

    /// The trimmed cell of own column `index`, nil when absent or empty.
    func string(_ index: Int) -> String? { cells.string(positions[index]) }
}

/// Which export format to read: detected from the header (`auto`), or one registered format.
public enum FormatChoice: Hashable, Sendable, Codable, RawRepresentable, CaseIterable, DecoderListedValues {
    case auto
    case format(SourceFormat)

    public init?(rawValue: String) { self.init(rawValue, formats: ImportFormats.all) }

    /// `auto`, or the format of `formats` named `name`.
    init?(_ name: String, formats: [any ImportFormat]) {
        if name == "auto" {
            self = .auto
        } else if let format = formats.first(where: { $0.name.rawValue == name }) {
            self = .format(format.name)
        } else {
            return nil
        }
    }

    /// A name of the formats under `CodingUserInfoKey.importFormats` (a parse run with its own list),
    /// else of `ImportFormats.all`.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let choice = Self(name, formats: Self.formats(decoder.userInfo)) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "'\(name)' is not allowed; expected one of "
                        + Self.allowedValues(userInfo: decoder.userInfo).joined(separator: ", ")))
        }
        self = choice
    }

    public static func allowedValues(userInfo: [CodingUserInfoKey: Any]) -> [String] {
        ["auto"] + formats(userInfo).map(\.name.rawValue)
    }

    private static func formats(_ userInfo: [CodingUserInfoKey: Any]) -> [any ImportFormat] {
        userInfo[.importFormats] as? [any ImportFormat] ?? ImportFormats.all
    }

    public var rawValue: String {
        switch self {
        case .auto: "auto"
        case .format(let format): format.rawValue
        }
    }

    /// `auto`, then every registered format, in detection order.
    public static var allCases: [FormatChoice] { [.auto] + ImportFormats.all.map { .format($0.name) } }

    /// The `--format` help: every choice, `auto` explained.
    public static var help: String {
        "Export format: auto (detect from the header), "
            + ImportFormats.all.map(\.name.rawValue).joined(separator: ", ") + "."
    }

    /// "Goodreads, StoryGraph, LibraryThing or a mapped CSV": the formats' names as help texts list them.
    public static var readableNames: String {
        let names = ImportFormats.all.map(\.displayName)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }
}

extension CodingUserInfoKey {
    /// The formats a decoded `FormatChoice` may name (`[any ImportFormat]`); absent: `ImportFormats.all`.
    static let importFormats = CodingUserInfoKey(rawValue: "shelfline.importFormats")!
}
