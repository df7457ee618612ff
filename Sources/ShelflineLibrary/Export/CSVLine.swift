/// One CSV row as Goodreads and StoryGraph write it: quoted only for a comma, quote or line break. A
/// leading `=`, `+`, `-` or `@` is not escaped: a prefix would change the cell for every importing service
/// (docs/export.md, "Cells a spreadsheet would run").
struct CSVLine {
    var bytes: [UInt8] = []
    private var first = true

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        first = true
    }

    mutating func cell(_ text: String?) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        guard var text, !text.isEmpty else { return }
        text.withUTF8 { utf8 in
            let special = utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D || $0 == 0 }
            guard special else { bytes.append(contentsOf: utf8); return }
            // A NUL byte is never written (a text from an older import may hold one): docs/export.md.
            let needsQuotes = utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
            if needsQuotes { bytes.append(0x22) }
            for byte in utf8 where byte != 0 {
                if byte == 0x22 { bytes.append(0x22) }
                bytes.append(byte)
            }
            if needsQuotes { bytes.append(0x22) }
        }
    }

    mutating func cell(_ value: Int?) { cell(value.map(String.init)) }

    mutating func end(_ terminator: String) { bytes.append(contentsOf: terminator.utf8) }
}
