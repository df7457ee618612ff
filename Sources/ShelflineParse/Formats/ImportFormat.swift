import ShelflineCore

/// One export format Shelfline reads, registered once in `ImportFormats.all`.
///
/// Detection, `--format`, the help texts and the docs checks all come from that list. `name` is
/// persisted in every record (`SourceFormat`), so it never changes.
protocol ImportFormat: Sendable {
    var name: SourceFormat { get }
    /// One line for `--help` and docs/parse.md.
    var summary: String { get }
    func schema(_ parameters: ParseParameters) -> ExportSchema
    func listSeparator(_ parameters: ParseParameters) -> Character
    /// Whether `--format auto` tries it.
    func detected(with parameters: ParseParameters) -> Bool
    /// Header key → why the library cannot hold that column, said in the parse report.
    var cannotCarry: [String: String] { get }
    /// Whether the report names unread columns (a spreadsheet's; a known export documents them).
    var reportsUnreadColumns: Bool { get }
    /// The column orders of its exports, for files whose header row was lost.
    var headerlessColumns: [[String]] { get }
    func looksLikeDataRow(_ cells: [String]) -> Bool
    var authorCell: AuthorCell { get }
    var coauthorCell: CoauthorCell { get }
    /// Short rows read missing cells as empty (hand-made CSVs); otherwise a short row is damage.
    var acceptsShortRows: Bool { get }
    /// Reads `ExportSchema.own`'s cells after the shared rules; returns why the row is rejected, or nil.
    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String?
    /// Why the source says not to import the row (a book in its bin): skipped, not a failed row.
    func skipReason(_ cells: OwnCells) -> String?
    /// No title column: `readOwnCells` names the book instead.
    var titleFromOwnCells: Bool { get }
    /// No reading state: a read date says read, a start date currently reading.
    var shelfFromReadDates: Bool { get }
}

/// A format whose schema does not depend on the parse parameters; its name is the schema's.
protocol FixedSchemaFormat: ImportFormat {
    static var schema: ExportSchema { get }
}

extension FixedSchemaFormat {
    var name: SourceFormat { Self.schema.format }
    func schema(_ parameters: ParseParameters) -> ExportSchema { Self.schema }
}

/// How a format writes the author cell.
enum AuthorCell: Sendable {
    case name
    /// One name written `Last, First`.
    case invertedName
    /// Every author, the first being the author. Split on the first of `separators` the cell holds
    /// (Calibre's `["&", ","]` keeps `Le Guin, Ursula K. & Attebery, Brian`'s inverted names).
    case list(separators: [Character] = [","])
}

/// How a format writes the additional-authors cell.
enum CoauthorCell: Sendable {
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

    /// `summary` up to its first ":".
    var displayName: String { String(summary.prefix { $0 != ":" }) }
}

/// The formats Shelfline reads, in detection order (most specific signature first).
enum ImportFormats {
    static let all: [any ImportFormat] = [
        GoodreadsFormat(), StoryGraphFormat(), LibraryThingFormat(), CalibreFormat(), BookWyrmFormat(), OpenreadsFormat(),
        OpenLibraryReadingLogFormat(), GenericFormat(),
    ]
}

/// A row's `ExportSchema.own` cells, by their index there.
struct OwnCells {
    let cells: RowCells
    let positions: [Int?]

    /// The trimmed cell, nil when absent or empty.
    func string(_ index: Int) -> String? { cells.string(positions[index]) }
}

/// Which export format to read: detected from the header (`auto`), or one registered format.
public enum FormatChoice: Hashable, Sendable, Codable, RawRepresentable, CaseIterable, DecoderListedValues {
    case auto
    case format(SourceFormat)

    public init?(rawValue: String) { self.init(rawValue, formats: ImportFormats.all) }

    init?(_ name: String, formats: [any ImportFormat]) {
        if name == "auto" {
            self = .auto
        } else if let format = formats.first(where: { $0.name.rawValue == name }) {
            self = .format(format.name)
        } else {
            return nil
        }
    }

    /// A name of the formats under `CodingUserInfoKey.importFormats` (a run with its own list).
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

    public static var allCases: [FormatChoice] { [.auto] + ImportFormats.all.map { .format($0.name) } }

    public static var help: String {
        "Export format: auto (detect from the header), "
            + ImportFormats.all.map(\.name.rawValue).joined(separator: ", ") + "."
    }

    /// "Goodreads, StoryGraph, … or a mapped CSV", for help texts.
    public static var readableNames: String {
        let names = ImportFormats.all.map(\.displayName)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }
}

extension CodingUserInfoKey {
    /// The `[any ImportFormat]` a decoded `FormatChoice` may name; absent: `ImportFormats.all`.
    static let importFormats = CodingUserInfoKey(rawValue: "shelfline.importFormats")!
}
