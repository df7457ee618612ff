import Foundation

/// How a source's numbered covers (`EditionMetadata.coverId`), or a book's ISBN when no source gave
/// a cover, become URLs: `{id}` and `{isbn}` (percent-encoded) stand for them.
public struct CoverURLTemplate: Sendable, Equatable {
    public var byId: String
    /// Nil when the source serves no covers by ISBN.
    public var byISBN: String?

    public func url(id: Int) -> String { byId.replacingOccurrences(of: "{id}", with: String(id)) }
}

/// What the library and the page need to know of a metadata source's own ids beyond its name.
public struct SourceShape: Sendable, Equatable {
    public var source: String
    /// Nil for a source whose covers are whole URLs (`EditionMetadata.coverURL`) or that has none.
    public var covers: CoverURLTemplate?
    /// What its work ids begin with, where one field holds work or edition ids (a candidate's
    /// `key`); nil when its ids do not say.
    public var workKeyPrefix: String?

    public func isWorkKey(_ key: String) -> Bool { workKeyPrefix.map(key.hasPrefix) ?? false }
}

/// The one place a source whose ids the library or the page reads declares their shape: in Core, so
/// merge and the page need not link lookup.
public enum SourceShapes {
    /// The catalog (Open Library's dump) shares its numbers.
    public static let openLibraryCovers = CoverURLTemplate(
        byId: "https://covers.openlibrary.org/b/id/{id}-M.jpg",
        byISBN: "https://covers.openlibrary.org/b/isbn/{isbn}-M.jpg?default=false")

    /// The first's covers are also those a book's ISBN is looked up by when no source gave one.
    public static let all: [SourceShape] = [
        SourceShape(source: "catalog", covers: openLibraryCovers, workKeyPrefix: "/works/"),
        SourceShape(source: "openlibrary", covers: openLibraryCovers, workKeyPrefix: "/works/"),
    ]

    /// A source not listed (`review`; nil: stored before sources named themselves) has the first's,
    /// the only shape stored then.
    public static func of(_ source: String?) -> SourceShape? {
        all.first { $0.source == source } ?? all.first
    }
}
