/// Whether the start of an input is a binary file rather than CSV/TSV text, and which kind.
///
/// Refused only for a known signature, or when a tenth of the first 64 KiB are control bytes
/// other than tab, LF and CR: random bytes hold about 12 %, UTF-16 text about 50 %, a real export
/// close to none (docs/parse.md). A NUL in text is dropped from its cell, never a reason to refuse.
public enum BinaryContent {
    /// After a UTF-8 BOM.
    public static let sniffLength = 1 << 16

    /// Files users pick by mistake.
    static let signatures: [(bytes: [UInt8], name: String)] = [
        ([0x1F, 0x8B], "gzip-compressed"),
        ([0x50, 0x4B, 0x03, 0x04], "a zip archive or .xlsx/.ods spreadsheet"),
        ([0x50, 0x4B, 0x05, 0x06], "an empty zip archive"),
        ([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1], "an .xls spreadsheet"),
        (Array("%PDF-".utf8), "a PDF document"),
        (Array("SQLite format 3\0".utf8), "an SQLite database"),
        ([0x28, 0xB5, 0x2F, 0xFD], "zstd-compressed"),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz-compressed"),
        ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "a 7-Zip archive"),
        ([0x89, 0x50, 0x4E, 0x47], "a PNG image"),
        ([0xFF, 0xD8, 0xFF], "a JPEG image"),
        ([0xFF, 0xFE], "UTF-16 or UTF-32 text (save the export as UTF-8)"),
        ([0xFE, 0xFF], "UTF-16 text (save the export as UTF-8)"),
    ]

    /// Nil for text.
    public static func kind(of start: [UInt8]) -> String? {
        for signature in signatures where start.starts(with: signature.bytes) {
            return signature.name
        }
        var controls = 0
        for byte in start where byte < 0x20 || byte == 0x7F {
            if byte != 0x09 && byte != 0x0A && byte != 0x0D { controls += 1 }
        }
        return !start.isEmpty && controls * 10 >= start.count
            ? "a tenth or more of its first 64 KiB are NUL or other control bytes" : nil
    }
}
