import ShelflineCore

/// The parse stage's `parameters` object in `pipeline.json`. Every key is optional: `{}` works.
public struct ParseParameters: Decodable, Sendable, Equatable {
    public var format: FormatChoice = .auto
    /// Exit 65 above this share of rejected rows (0…1), given at least `minRejectedRows`.
    public var maxRejectedShare = 0.1
    /// One odd row in a 9-row file is not "probably the wrong file"; 0 or 1: the share alone decides.
    public var minRejectedRows = 10
    /// The file's columns are those of `format` (`ImportFormat.headerlessColumns`).
    public var noHeader = false
    /// Nil: columns are guessed from their names. JSON `columns` is short for `generic.columns`.
    public var generic: GenericMapping?

    /// "Probably the wrong file".
    public func tooManyRejected(_ rejected: Int, of read: Int) -> Bool {
        read > 0 && rejected >= minRejectedRows && Double(rejected) / Double(read) > maxRejectedShare
    }
}

// Decoding in an extension keeps the memberwise initialiser (`ParseParameters(minRejectedRows: 3)`).
extension ParseParameters {
    enum CodingKeys: String, CodingKey { case format, maxRejectedShare, minRejectedRows, noHeader, generic, columns }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decodeIfPresent(FormatChoice.self, forKey: .format) ?? .auto
        // `ranges` (ParseStageContract.swift) are checked before decoding.
        maxRejectedShare = try container.decodeIfPresent(Double.self, forKey: .maxRejectedShare) ?? maxRejectedShare
        minRejectedRows = try container.decodeIfPresent(Int.self, forKey: .minRejectedRows) ?? minRejectedRows
        noHeader = try container.decodeIfPresent(Bool.self, forKey: .noHeader) ?? false
        generic = try container.decodeIfPresent(GenericMapping.self, forKey: .generic)
        if let columns = try GenericMapping.columns(.columns, in: container) {
            guard generic == nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: .columns, in: container, debugDescription: "give either columns or generic.columns, not both")
            }
            generic = GenericMapping(columns: columns)
        }
    }
}

/// Which header names hold which fields in a CSV that is none of the known exports; a role left
/// out is looked up under its own name.
public struct GenericMapping: Decodable, Sendable, Equatable {
    public var columns: [ColumnRole: String] = [:]
    /// Separator of `additionalAuthors` and `shelves` lists.
    public var listSeparator = ","
}

// Decoding and parsing in an extension keep the memberwise initialiser (`GenericMapping(columns:)`).
extension GenericMapping {
    enum CodingKeys: String, CodingKey { case columns, listSeparator }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        columns = try Self.columns(.columns, in: container) ?? [:]
        listSeparator = try container.decodeIfPresent(String.self, forKey: .listSeparator) ?? ","
        guard listSeparator.count == 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .listSeparator, in: container,
                debugDescription: "expected a single character")
        }
    }

    public static let roles: [ColumnRole] = ColumnRole.allCases.filter { ![.publication, .isbnList, .lastDateRead].contains($0) }

    /// Spreadsheet words accepted as field names beside the roles' own.
    public static let aliases: [String: ColumnRole] = [
        "added": .dateAdded, "started": .dateStarted, "finished": .dateRead, "tags": .shelves,
    ]

    public static var fieldNames: String {
        (roles.map(\.rawValue) + aliases.keys.sorted().map { "\($0) (\(aliases[$0]!.rawValue))" }).joined(separator: ", ")
    }

    /// The role of a role's own name or an alias.
    public static func role(named name: String) -> ColumnRole? {
        if let role = aliases[name] { return role }
        return ColumnRole(rawValue: name).flatMap { roles.contains($0) ? $0 : nil }
    }

    /// The field → header object under `key`, nil when absent; the error points at a bad field.
    static func columns<Key>(_ key: Key, in container: KeyedDecodingContainer<Key>) throws -> [ColumnRole: String]? {
        guard let raw = try container.decodeIfPresent([String: String].self, forKey: key) else { return nil }
        let nested = try container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
        var columns: [ColumnRole: String] = [:]
        for (field, header) in raw {
            guard let role = role(named: field) else {
                throw DecodingError.dataCorruptedError(
                    forKey: AnyKey(field), in: nested, debugDescription: "unknown field '\(field)'; expected one of \(fieldNames)"
                )
            }
            columns[role] = header
        }
        return columns
    }

    /// `--columns title=Name,author=Writer,…`.
    public init(argument: String) throws {
        var columns: [ColumnRole: String] = [:]
        for item in argument.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0.trimmingSpaces) }
            guard parts.count == 2, !parts[1].isEmpty else {
                throw UsageError("--columns: '\(item)' is not FIELD=HEADER (e.g. --columns title=Name,author=Writer)")
            }
            guard let role = Self.role(named: parts[0]) else {
                throw UsageError("--columns: unknown field '\(parts[0])'; expected one of \(Self.fieldNames)")
            }
            columns[role] = parts[1]
        }
        guard !columns.isEmpty else { throw UsageError("--columns: expected FIELD=HEADER,… (e.g. title=Name,author=Writer)") }
        self.init(columns: columns)
    }

    /// The same for `shelfline-parse` and `shelfline run`.
    public static let optionHelp =
        "Read any spreadsheet by naming its columns: FIELD=HEADER,… (e.g. title=Name,author=Writer,isbn=ISBN,rating=Stars,shelf=Status,added=Added,finished=Finished)."

    public static var accepted: String {
        "Fields: \(fieldNames). Dates: yyyy-mm-dd, yyyy/mm/dd or mm/dd/yyyy, a time after them ignored. "
            + "Ratings: stars 0–5 (0 is unrated)."
    }

    /// Parse's `parameters` with this mapping replacing any configured one: `--columns` for one run.
    public func replacingColumns(in parameters: JSONValue) -> JSONValue {
        guard case .object(var object) = parameters else { return parameters }
        object["columns"] = .object(Dictionary(uniqueKeysWithValues: columns.map { ($0.key.rawValue, .string($0.value)) }))
        if case .object(var generic)? = object["generic"] {
            generic["columns"] = nil
            object["generic"] = generic.isEmpty ? nil : .object(generic)
        }
        return .object(object)
    }

    /// Configured columns must all be present, and a title column.
    public var schema: ExportSchema {
        var byRole: [ColumnRole: [String]] = [:]
        for role in Self.roles {
            byRole[role] = [ExportSchema.key(columns[role] ?? role.rawValue)]
        }
        let required = Set(columns.keys).union([.title]).sorted { $0.rawValue < $1.rawValue }
        return ExportSchema(
            format: .generic, signature: required.map { [ExportSchema.key(columns[$0] ?? $0.rawValue)] },
            columns: byRole)
    }
}
