import Foundation
import ShelflineCore

/// Reading the library file one book at a time, for the export, the page and `shelfline library`.
public enum LibraryBooks {
    /// A missing library is `FileError.missingInput` (66), a line that is no book `FileError.corrupt` (65).
    /// `fields`: decode only these members besides `id` and `title` (nil: all).
    public static func forEach(
        path: String, fields: Set<String>? = nil,
        _ body: (LibraryBook, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try requireLibrary(path)
        let decoder = JSONDecoder()
        let mask = fields.map(LibraryBookScan.Field.mask(of:))
        try LineReader.forEachLine(path: path) { bytes, number in
            guard !bytes.isEmpty else { return }
            try body(try LibraryBookScan.decode(bytes, decoder: decoder, path: path, line: number, only: mask), bytes)
        }
    }

    public static func requireLibrary(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "no library yet; import an export first (shelfline run --csv FILE)")
        }
    }
}
