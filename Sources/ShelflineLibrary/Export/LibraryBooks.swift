import Foundation
import ShelflineCore

/// Reading the library file one book at a time, for the export, the page and `shelfline library`.
public enum LibraryBooks {
    /// Calls `body` with each book of the library at `path`, in file order, decoded on two threads
    /// of their own (`DecodedLines`). A missing library is `FileError.missingInput` (66); a line that
    /// is not a book is `FileError.corrupt` naming it (65), after `body` has had every book before it.
    /// `fields`: decode only these members of each book (besides `id` and `title`; nil: all).
    public static func forEach(path: String, fields: Set<String>? = nil,
                               _ body: (LibraryBook, UnsafeRawBufferPointer) throws -> Void) throws {
        try requireLibrary(path)
        let mask = fields.map(LibraryBookScan.Field.mask(of:))
        try DecodedLines.forEach(path: path, decode: { bytes, number in
            try LibraryBookScan.decode(bytes, path: path, line: number, only: mask)
        }) { book, bytes, _ in
            try body(book, bytes)
        }
    }

    /// Throws `FileError.missingInput` (66) when there is no library at `path` yet.
    public static func requireLibrary(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "no library yet; import an export first (shelfline run --csv FILE)")
        }
    }
}
