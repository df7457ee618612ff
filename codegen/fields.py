#!/usr/bin/env python3
"""Writes the per-field code of records and library books from the one table of fields.

codegen/fields.json lists every field of `BookRecord` and `LibraryBook`: its name (also its JSON key),
Swift type, which structs have it, the columns that feed it, how merge combines it and its JSON schema.
This script writes, from that table alone, the per-field Swift code (stored properties, JSON encoders,
byte scanners, the record's JSON members for its Codable, column roles, merge's per-field rules, export
columns), docs/library-book.schema.json and docs/export.md's "not carried" rows. Python 3 standard library
only. The Swift files are build products, never committed: the `Fields` build plugin (Plugins/Fields) runs
`--swift` for each target that compiles them, so a table edit reaches the code on the next build.

    python3 codegen/fields.py                         # rewrite the two docs (`make generate`)
    python3 codegen/fields.py --check                 # exit 1, naming them, when a doc is not what the table gives
    python3 codegen/fields.py --swift TARGET DIRECTORY  # write TARGET's Swift files into DIRECTORY

Table keys of a field (docs/ARCHITECTURE.md, "Adding a field"):
  name, type            Swift name and JSON key; Swift type without `?` (optional unless `required`).
  in                    "record" (BookRecord, parse's ParsedRecord) and/or "library" (LibraryBook).
  columns               the ColumnRole cases (import columns) that feed the field, in role order.
  read: "cell"          parse copies the column's trimmed cell as it is (`RecordBuilder.verbatim`).
  merge: "newerNonEmpty"  a later import's non-empty value replaces the book's (`BookMerger.ownTexts`).
  tracked: false        not one of the fields a merge fold reports as changed (`ChangedFields.Field`).
  parsed                ParsedRecord's type when it differs (FieldText: a byte range of the row), null: none.
  recordScan / libraryScan: "identity" | "hand"   read by the hand-written part of the byte scanner.
  json: "apart" | "apartFlag"   the texts parse may write apart (`RecordTexts`).
  notCarried            the CSV exports (goodreads, storygraph) without a column for it (docs/export.md's rows,
                        `ExportFormat.limits`).
  export                per CSV export, the columns the field fills and their positions (`{"goodreads": {"ISBN": 6}}`);
                        with the top-level `exports` (each format's `own` columns no field fills, its `limits` in
                        words), the exports' headers, `ExportFormat.limits` and `.filledFromMetadata`.
  exportFilled          an export fills the field's empty cell from lookup's metadata (`ExportFormat.filledFromMetadata`).
  recordMark, libraryMark   a `// MARK:` section starting at the field.
  doc, recordDoc, libraryDoc   the property's doc comment; schema: its JSON schema when not the type's default.
                        An `"enum": "importFormats"` in it is the registered import formats (read from
                        docs/pipeline.schema.json, which ImportFormatRegistryTests writes from `ImportFormats.all`).
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.environ.get("SHELFLINE_FIELDS_TABLE", os.path.join(ROOT, "codegen", "fields.json"))  # another table: tests
HEADER = "// Written at build time by codegen/fields.py from codegen/fields.json (Plugins/Fields): edit the table.\n"
WIDTH = 130


def load():
    """The table, or one line naming where it is broken (the build shows it as the plugin's error)."""
    try:
        with open(TABLE, encoding="utf-8") as f:
            table = json.load(f)
        for field in table["fields"]:
            field.setdefault("required", False)
    except OSError as error:
        raise SystemExit(f"{TABLE}: cannot read the table of fields: {error.strerror}")
    except json.JSONDecodeError as error:
        raise SystemExit(f"{TABLE}:{error.lineno}:{error.colno}: not JSON: {error.msg}")
    except (KeyError, TypeError, AttributeError):
        raise SystemExit(f"{TABLE}: not a table of fields (an object whose \"fields\" is a list of objects)")
    return table


def of(table, struct):
    return [f for f in table["fields"] if struct in f["in"]]


def swift_type(field):
    return field["type"] if field["required"] else field["type"] + "?"


def doc_lines(text, indent):
    """A doc comment wrapped at the line length, one `///` line per line."""
    out, line = [], ""
    for word in text.split(" "):
        if line and len(indent) + 4 + len(line) + 1 + len(word) > 110:
            out.append(line)
            line = word
        else:
            line = word if not line else line + " " + word
    if line:
        out.append(line)
    return [f"{indent}/// {l}" for l in out]


def struct_doc(lines):
    return [("/// " + l) if l else "///" for l in lines]


def wrapped(prefix, items, indent, separator=",", suffix=""):
    """`prefix` then `items`, each but the last followed by `separator`, wrapped at the line length;
    continuation lines start with `indent`."""
    lines, line = [], prefix
    for index, item in enumerate(items):
        piece = item + (separator if index < len(items) - 1 else suffix)
        at_start = line in (prefix, indent)
        candidate = line + piece if at_start else line + " " + piece
        if len(candidate) > WIDTH and not at_start:
            lines.append(line)
            line = indent + piece
        else:
            line = candidate
    lines.append(line)
    return lines


def properties(table, struct, key, mark_key, doc_key):
    lines = []
    for field in of(table, struct):
        mark = field.get(mark_key)
        if mark:
            if lines:
                lines.append("")
            lines.append(f"    // MARK: {mark}")
        doc = field.get(doc_key) or field.get("doc")
        if doc:
            lines += doc_lines(doc, "    ")
        lines.append(f"    {key} {field['name']}: {swift_type(field)}")
    return lines


def parsed_type(field):
    kind = field.get("parsed", field["type"])
    return kind if field["required"] else kind + "?"


# MARK: - BookRecord


def book_record(table):
    fields = of(table, "record")
    out = [HEADER, *struct_doc(table["structs"]["BookRecord"])]
    out.append("public struct BookRecord: Codable, Sendable, Equatable {")
    out += properties(table, "record", "public var", "recordMark", "recordDoc")
    out += ["}", "", "extension BookRecord {"]
    out.append("    /// Its JSON members, as `Codable` reads and writes them (`RecordMember`); `shelfPositions` last, as it")
    out.append("    /// is read against `shelves`.")
    out.append("    nonisolated(unsafe) static let members: [RecordMember] = [")
    members, last = [], []
    for f in fields:
        name = f["name"]
        if f["type"] == "[ShelfPosition]":
            last.append(f'.shelfPositions("{name}", \\.{name})')
        else:
            members.append(f'.{"required" if f["required"] else "optional"}("{name}", \\.{name})')
    out += wrapped("        ", members + last, "        ", ",", ",")
    out += ["    ]", "}"]
    return out


RECORD_SCAN = {
    "String": "string",
    "[String]": "strings",
    "Int": "int",
    "Double": "double",
    "Bool": "bool",
    "[String: String]": "stringMap",
    "[ReadSpan]": "readSpans",
}


def book_record_scan(table):
    out = [HEADER, "extension BookRecordScan {"]
    out.append("    /// A member only `.all` reads (the identity members are read in `scan`).")
    out.append("    static func readerField(_ key: MemberName, _ s: inout JSONScanner, _ record: inout BookRecord) -> Bool {")
    out.append("        switch key {")
    for f in of(table, "record"):
        if f.get("recordScan"):
            continue
        out.append(f'        case "{f["name"]}": return s.{RECORD_SCAN[f["type"]]}(into: &record.{f["name"]})')
    out += ["        default: return s.skipUnknown(key, depth: 1)", "        }", "    }", "}"]
    return out


# MARK: - Parse


def parsed_record(table):
    fields = [f for f in of(table, "record") if f.get("parsed", "") is not None]
    out = [HEADER, "import ShelflineCore", "", *struct_doc(table["structs"]["ParsedRecord"]), "struct ParsedRecord {"]
    out += ["    /// The bytes `FieldText.cell` ranges point into.", "    var cells: [UInt8] = []"]
    for f in fields:
        out.append(f"    var {f['name']}: {parsed_type(f)}")
    return out + ["}"]


def parsed_record_from_book_record(table):
    """Tests only: feeds a `BookRecord` to the fast encoder, to compare it with `JSONEncoder`."""
    fields = [f for f in of(table, "record") if f.get("parsed", "") is not None]
    out = [HEADER, "import ShelflineCore", "@testable import ShelflineParse", ""]
    out += ["extension ParsedRecord {", "    /// The parse-stage fields of `record`, all as strings.", "    init(_ record: BookRecord) {"]
    required = [f for f in fields if f["required"]]
    args = ["cells: []"] + [f"{f['name']}: {convert(f, 'record.' + f['name'])}" for f in required]
    out += ["        self.init("] + wrapped("            ", args, "            ", ",", ")")
    for f in fields:
        if not f["required"]:
            out.append(f"        {f['name']} = {convert(f, 'record.' + f['name'])}")
    out += ["    }", "}", "", "extension BookRecordJSON {"]
    out += ["    /// `record` (as parse writes it: no later stage's annotations) through the fast encoder."]
    out += ["    mutating func encode(_ record: BookRecord) throws { encode(ParsedRecord(record)) }", "}"]
    return out


def convert(field, value):
    parsed = field.get("parsed")
    if parsed == "FieldText":
        return f".string({value})" if field["required"] else f"{value}.map(FieldText.string)"
    if parsed == "[FieldText]":
        return f"{value}.map {{ $0.map(FieldText.string) }}"
    return value


JSON_WRITER = {
    "FieldText": "text({v}, cells)",
    "[FieldText]": "texts({v}, cells)",
    "String": "string({v})",
    "Int": "integer({v})",
    "Double": "double({v})",
    "Bool": 'literal({v} ? "true" : "false")',
    "SourceFormat": "string({v}.rawValue)",
    "[String: String]": "stringMap({v})",
    "[ReadSpan]": "readSpans({v})",
    "[ShelfPosition]": "shelfPositions({v}, shelves: record.shelves, cells)",
}


def book_record_json(table):
    out = [HEADER, "extension BookRecordJSON {"]
    out.append("    /// The members of `record`'s line, in the order JSONEncoder's `.sortedKeys` writes them (no braces).")
    out.append("    mutating func members(_ record: ParsedRecord, _ cells: UnsafeBufferPointer<UInt8>, apart: Bool) {")
    out.append("        var first = true")
    for f in sorted(of(table, "record"), key=lambda f: f["name"]):
        name = f["name"]
        if f.get("json") == "apartFlag":
            out.append(f'        if apart {{ key("{name}", &first); literal("true") }}')
            continue
        if f.get("parsed", "") is None:
            continue
        write = JSON_WRITER[f.get("parsed", f["type"])]
        if f["required"]:
            out.append(f'        key("{name}", &first); {write.format(v="record." + name)}')
            continue
        guard = "!apart, " if f.get("json") == "apart" else ""
        body = f'key("{name}", &first); {write.format(v="value")}'
        line = f"        if {guard}let value = record.{name} {{ {body} }}"
        out += [line] if len(line) <= WIDTH else [f"        if {guard}let value = record.{name} {{", f"            {body}", "        }"]
    out += ["    }", "}"]
    return out


def column_role(table):
    docs = table["columnDocs"]
    out = [HEADER, *struct_doc(table["structs"]["ColumnRole"])]
    out.append("public enum ColumnRole: String, CaseIterable, Sendable, Codable {")
    run = []
    for role in [role for f in of(table, "record") for role in f.get("columns", [])]:
        if role in docs:
            if run:
                out += wrapped("    case ", run, "        ")
            out += doc_lines(docs[role], "    ")
            run = []
        run.append(role)
    out += wrapped("    case ", run, "        ")
    out.append("}")
    return out


def record_builder(table):
    cells = [f["name"] for f in of(table, "record") if f.get("read") == "cell"]
    out = [HEADER, "extension RecordBuilder {"]
    out.append("    /// Cells kept as they are (trimmed), each in the record field of the same name.")
    out.append("    /// (`nonisolated(unsafe)`: a constant; key paths are immutable but not `Sendable`.)")
    out.append("    nonisolated(unsafe) static let verbatim: [(ColumnRole, WritableKeyPath<ParsedRecord, FieldText?>)] = [")
    out += [f"        (.{name}, \\.{name})," for name in cells]
    out += ["    ]", "}"]
    return out


# MARK: - Library


def library_book(table):
    out = [HEADER, "import ShelflineCore", "", *struct_doc(table["structs"]["LibraryBook"])]
    out.append("public struct LibraryBook: Codable, Sendable, Equatable {")
    out += properties(table, "library", "public var", "libraryMark", "libraryDoc")
    out.append("}")
    return out


LIBRARY_WRITER = {
    "String": "string",
    "[String]": "strings",
    "Int": "int",
    "Double": "double",
    "Bool": "bool",
    "[String: String]": "stringMap",
    "[ReadSpan]": "readSpans",
    "[ShelfPosition]": "shelfPositions",
    "[Contribution]": "contributions",
}


def library_book_encoding(table):
    out = [HEADER, "import ShelflineCore", "", "extension LibraryBook {"]
    out.append("    /// Appends the book as one compact JSON object (no newline), keys sorted, absent values omitted.")
    out.append("    public func appendJSON(to out: inout [UInt8]) {")
    out.append("        var writer = JSONObjectWriter(out: take(&out))")
    for f in sorted(of(table, "library"), key=lambda f: f["name"]):
        out.append(f'        writer.{LIBRARY_WRITER[f["type"]]}("{f["name"]}", {f["name"]})')
    out += ["        out = writer.finish()", "    }", "}"]
    return out


LIBRARY_SCAN = {
    "String": "s.string()",
    "[String]": "s.stringArray()",
    "Int": "s.int()",
    "Bool": "s.boolean()",
    "[String: String]": "s.stringMap()",
    "[ReadSpan]": "BookRecordScan.readSpans(&s)",
    "[ShelfPosition]": "BookRecordScan.shelfPositions(&s)",
}


def library_book_scan(table):
    fields = of(table, "library")
    if len(fields) > 64:
        raise SystemExit("LibraryBookScan's field masks are 64 bits: at most 64 library fields")
    out = [HEADER, "import ShelflineCore", "", "extension LibraryBookScan {"]
    out.append("    /// The members of a library line, named as in the JSON.")
    out.append("    enum Field: String, CaseIterable {")
    out += wrapped("        case ", [f["name"] for f in fields], "            ")
    out += ["    }", ""]
    out.append("    /// Reads the member `field` names into `book` (false: not its type); `scan` reads the others.")
    out.append("    static func read(_ field: Field, _ s: inout JSONScanner, into book: inout LibraryBook) -> Bool {")
    out.append("        switch field {")
    for f in fields:
        if f.get("libraryScan"):
            continue
        out.append(f'        case .{f["name"]}: return set({LIBRARY_SCAN[f["type"]]}, &book.{f["name"]})')
    out += ["        default: return false", "        }", "    }", "}"]
    return out


def book_merger(table):
    library = of(table, "library")
    tracked = sorted(f["name"] for f in library if f.get("tracked", True))
    if len(tracked) > 64:
        raise SystemExit("ChangedFields is 64 bits: at most 64 tracked library fields")
    texts = [f["name"] for f in table["fields"] if f.get("merge") == "newerNonEmpty"]
    for name in texts:
        field = next(f for f in table["fields"] if f["name"] == name)
        if field["type"] != "String" or set(field["in"]) != {"record", "library"}:
            raise SystemExit(f"{name}: merge newerNonEmpty needs a String field of both the record and the library book")
    out = [HEADER, "import ShelflineCore", "", "extension BookMerger {"]
    out.append("    /// The exports' own text cells, each a field of the same name in the record and the book: a later")
    out.append("    /// non-empty cell replaces the book's (`combineOwnCells`, `applyOwnCells`).")
    out.append("    /// Named by field and read through a `switch`, not key paths: reading a key path of a")
    out.append("    /// `BookRecord` copies the whole record (every string retained, then released) per cell,")
    out.append("    /// 16 copies a row, measured at 6 % of merge's CPU on a 200,000-row first import.")
    out.append("    static let ownTexts: [ChangedFields.Field] = [")
    out += wrapped("        ", [f".{n}" for n in texts], "        ", ",", ",")
    out += ["    ]", "}", "", "extension ChangedFields {"]
    out.append("    /// Every field a fold can change, named as in the library's JSON; declared in sorted order (a test checks).")
    out.append("    enum Field: Int, CaseIterable {")
    out += wrapped("        case ", tracked, "            ")
    out += ["    }", "}", ""]
    out.append("/// The text cells of `BookMerger.ownTexts`, which records and library books both have under the")
    out.append("/// same names: one `switch` reads and writes them in either (see `ownTexts` for why not key paths).")
    out.append("protocol OwnTextCells {")
    out += [f"    var {n}: String? {{ get set }}" for n in texts]
    out += ["}", "", "extension BookRecord: OwnTextCells {}", "extension LibraryBook: OwnTextCells {}", ""]
    out += ["extension OwnTextCells {", "    /// The cell `field` names (nil for a field not in `BookMerger.ownTexts`)."]
    out += ["    func ownText(_ field: ChangedFields.Field) -> String? {", "        switch field {"]
    out += [f"        case .{n}: {n}" for n in texts]
    out += ["        default: nil", "        }", "    }", ""]
    out += ["    mutating func setOwnText(_ field: ChangedFields.Field, _ value: String?) {", "        switch field {"]
    out += [f"        case .{n}: {n} = value" for n in texts]
    out += ['        default: preconditionFailure("\\(field.name) is not an own text cell")', "        }", "    }", "}"]
    return out


SCHEMA_TYPES = {
    "String": {"type": "string"},
    "Int": {"type": "integer"},
    "Bool": {"type": "boolean"},
    "Double": {"type": "number"},
    "[String]": {"type": "array", "items": {"type": "string"}},
}


def import_formats():
    """The registered import formats, from docs/pipeline.schema.json's `parse.format` enum (which
    ImportFormatRegistryTests writes from `ImportFormats.all`), without `auto`."""
    with open(os.path.join(ROOT, "docs", "pipeline.schema.json"), encoding="utf-8") as f:
        choices = json.load(f)["$defs"]["parseParameters"]["properties"]["format"]["enum"]
    return [name for name in choices if name != "auto"]


def resolve_enums(value, formats):
    """`value` with each `"enum": "importFormats"` replaced by the registered formats' names."""
    if isinstance(value, dict):
        return {k: formats if (k, v) == ("enum", "importFormats") else resolve_enums(v, formats) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_enums(v, formats) for v in value]
    return value


def library_schema(table):
    schema = dict(table["schema"])
    fields = of(table, "library")
    schema["required"] = [f["name"] for f in fields if f["required"]]
    schema["properties"] = {
        f["name"]: f.get("schema") or SCHEMA_TYPES[f["type"]] for f in sorted(fields, key=lambda f: f["name"])
    }
    return json.dumps(resolve_enums(schema, import_formats()), indent=2, ensure_ascii=False) + "\n"


def export_doc(table):
    """docs/export.md with its "library fields not carried" rows of the CSV exports as the table says."""
    with open(os.path.join(ROOT, "docs", "export.md"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    for index, line in enumerate(lines):
        for fmt in ("goodreads", "storygraph"):
            if line.startswith(f"| `{fmt}` | `"):
                names = sorted(f["name"] for f in of(table, "library") if fmt in f.get("notCarried", []))
                lines[index] = f"| `{fmt}` | " + ", ".join(f"`{n}`" for n in names) + " |"
    return "\n".join(lines)


# MARK: - Export


CSV_EXPORTS = {"goodreads": "GoodreadsExport", "storygraph": "StoryGraphExport"}


def export_header(table, fmt):
    """The export's columns in order: each field's `export` names its columns and their positions,
    the format's `own` the columns no field fills; every position from 1 is named once."""
    named = {}
    claims = [(f["name"], f.get("export", {}).get(fmt, {})) for f in table["fields"]]
    claims.append((f"exports.{fmt}.own", table["exports"][fmt].get("own", {})))
    for owner, columns in claims:
        for column, position in columns.items():
            if named.setdefault(position, column) != column:
                raise SystemExit(f"{owner}: {fmt} column {position} is `{named[position]}`, not `{column}`")
    if sorted(named) != list(range(1, len(named) + 1)):
        raise SystemExit(f"{fmt}: export columns {sorted(named)} leave a position unnamed")
    if len(set(named.values())) != len(named):
        raise SystemExit(f"{fmt}: an export column is named at two positions")
    return [named[position] for position in sorted(named)]


def swift_string(text):
    return json.dumps(text, ensure_ascii=False)


def string_lines(text, indent):
    """A long string literal as `"…" + "…"` lines, cut between words."""
    pieces, piece = [], ""
    for word in text.split(" "):
        if piece and len(indent) + 7 + len(piece) + 1 + len(word) > 118:
            pieces.append(piece + " ")
            piece = word
        else:
            piece = word if not piece else piece + " " + word
    pieces.append(piece)
    return [f"{indent}{swift_string(pieces[0])}"] + [f"{indent}    + {swift_string(p)}" for p in pieces[1:]]


def export_columns(table):
    library = of(table, "library")
    out = [HEADER, "import ShelflineCore", ""]
    for fmt, kind in CSV_EXPORTS.items():
        out.append(f"extension {kind} {{")
        out.append("    /// The header: each column where a field's `export` (or the format's `own`) puts it.")
        out.append("    static let header = [")
        out += wrapped("        ", [swift_string(c) for c in export_header(table, fmt)], "        ", ",", ",")
        out += ["    ]", "}", ""]
    filled = []
    for f in library:
        if f.get("exportFilled"):
            column = next(iter(f.get("export", {}).get("goodreads", {})), None)
            if column is None:
                raise SystemExit(f"{f['name']}: exportFilled needs a goodreads export column")
            filled.append((f["name"], column))
    out.append("extension ExportFormat {")
    out.append("    /// The cells an export fills from lookup's metadata when the reader's export left them empty")
    out.append("    /// (library field, Goodreads column): only from the edition the reader's own ISBN named (a")
    out.append("    /// match by ISBN), and never an identifier, title or author, so that export → import → export")
    out.append("    /// gives the same file (`ExportCells.value`). StoryGraph has none of these columns.")
    out.append("    public static let filledFromMetadata: [(field: String, column: String)] = [")
    out += wrapped("        ", [f"({swift_string(n)}, {swift_string(c)})" for n, c in filled], "        ", ",", ",")
    out += ["    ]", ""]
    out.append("    /// Where a format keeps less than the library, in words (for `--help` and the docs): its own")
    out.append("    /// limits, then the library fields it has no column for (`notCarried` in the table).")
    out += ["    public var limits: String {", "        switch self {"]
    for fmt, spec in table["exports"].items():
        text = spec["limits"].replace("{filled}", ", ".join(f"`{c}`" for _, c in filled))
        names = sorted(f["name"] for f in library if fmt in f.get("notCarried", []))
        if names:
            text += "; no column for " + ", ".join(f"`{n}`" for n in names)
        out.append(f"        case .{fmt}:")
        out += string_lines(text, "            ")
    out += ["        }", "    }", "}"]
    return out


# The Swift files, by the target they are compiled into: the `Fields` build plugin (Plugins/Fields) runs
# `fields.py --swift TARGET DIR` before each build of those targets, so generated code is never committed.
SWIFT = {
    "ShelflineCore": {
        "BookRecord.generated.swift": book_record,
        "BookRecordScan.generated.swift": book_record_scan,
    },
    "ShelflineParse": {
        "ParsedRecord.generated.swift": parsed_record,
        "BookRecordJSON.generated.swift": book_record_json,
        "ColumnRole.generated.swift": column_role,
        "RecordBuilder.generated.swift": record_builder,
    },
    "ShelflineParseTests": {"ParsedRecordFromBookRecord.generated.swift": parsed_record_from_book_record},
    "ShelflineLibrary": {
        "LibraryBook.generated.swift": library_book,
        "LibraryBookEncoding.generated.swift": library_book_encoding,
        "LibraryBookScan.generated.swift": library_book_scan,
        "BookMerger.generated.swift": book_merger,
        "ExportColumns.generated.swift": export_columns,
    },
}


def docs(table):
    return {"docs/library-book.schema.json": library_schema(table), "docs/export.md": export_doc(table)}


def swift(table, target, directory):
    return {os.path.join(directory, name): "\n".join(make(table)) + "\n" for name, make in SWIFT[target].items()}


def main():
    args = sys.argv[1:]
    if not (args in ([], ["--check"]) or (len(args) == 3 and args[0] == "--swift" and args[1] in SWIFT)):
        raise SystemExit("usage: codegen/fields.py [--check | --swift TARGET DIRECTORY]")
    table = load()
    # Relative to the working directory, for writing and cleaning alike.
    directory = os.path.abspath(args[2]) if args[:1] == ["--swift"] else None
    try:  # every file is made before any is written, so a bad row leaves the last good files
        files = swift(table, args[1], directory) if directory else docs(table)
    except KeyError as error:
        raise SystemExit(f"{TABLE}: a field or struct lacks the key {error}")
    stale = []
    for path, text in files.items():
        full = os.path.join(ROOT, path)
        try:
            with open(full, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current == text:
            continue
        stale.append(path)
        if args != ["--check"]:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
    if directory:  # a generated file the table no longer gives would still be compiled; others are not ours
        for name in set(os.listdir(directory)) - set(SWIFT[args[1]]):
            if name.endswith(".generated.swift"):
                os.remove(os.path.join(directory, name))
    if stale and args == ["--check"]:
        print("stale generated files (run `make generate`): " + ", ".join(stale), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
