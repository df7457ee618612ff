import Foundation

/// How a metadata source's numbered covers (`EditionMetadata.coverId`), and a book's ISBN when no
/// source gave a cover, become image URLs: `{id}` and `{isbn}` stand for them in a URL.
public struct CoverURLTemplate: Sendable, Equatable {
    /// The URL of the cover numbered `{id}`.
    public var byId: String
    /// The URL of an edition's cover by its ISBN `{isbn}` (percent-encoded), when the source serves
    /// covers by ISBN.
    public var byISBN: String?

    public init(byId: String, byISBN: String? = nil) {
        self.byId = byId
        self.byISBN = byISBN
    }

    /// The URL of the cover numbered `id`.
    public func url(id: Int) -> String { byId.replacingOccurrences(of: "{id}", with: String(id)) }
}

/// What the library and the page need to know of a metadata source's own ids beyond its name.
public struct SourceShape: Sendable, Equatable {
    /// Its name (`MetadataSources`, `enrichmentSource`).
    public var source: String
    /// How its cover numbers become URLs; nil for a source whose covers are whole URLs
    /// (`EditionMetadata.coverURL`) or that has none.
    public var covers: CoverURLTemplate?
    /// What its work ids begin with, where one field holds its work or edition ids (a candidate's
    /// `key`); nil when its ids do not say.
    public var workKeyPrefix: String?

    public init(source: String, covers: CoverURLTemplate? = nil, workKeyPrefix: String? = nil) {
        self.source = source
        self.covers = covers
        self.workKeyPrefix = workKeyPrefix
    }

    /// Whether `key`, one of its ids, names a work (not an edition).
    public func isWorkKey(_ key: String) -> Bool { workKeyPrefix.map(key.hasPrefix) ?? false }
}

/// The sources whose ids have a shape the library or the page reads: the one place such a source
/// declares it. In Core, not in lookup, so that merge and the page read it without linking lookup.
/// A source whose ids need no reading (a whole cover URL, an edition key kept as it is) is not here.
public enum SourceShapes {
    /// Open Library's covers service, whose numbers the catalog (Open Library's dump) shares.
    public static let openLibraryCovers = CoverURLTemplate(
        byId: "https://covers.openlibrary.org/b/id/{id}-M.jpg",
        byISBN: "https://covers.openlibrary.org/b/isbn/{isbn}-M.jpg?default=false")

    /// Each source's shape; the first's covers are also those a book's ISBN is looked up by when
    /// no source gave one.
    public static let all: [SourceShape] = [
        SourceShape(source: "catalog", covers: openLibraryCovers, workKeyPrefix: "/works/"),
        SourceShape(source: "openlibrary", covers: openLibraryCovers, workKeyPrefix: "/works/"),
    ]

    /// The shape of `source`'s ids. A book or candidate no listed source names (`review`: a
    /// candidate a reader accepted; nil: stored before sources named themselves) has the first's,
    /// the only shape stored then.
    public static func of(_ source: String?) -> SourceShape? {
        all.first { $0.source == source } ?? all.first
    }
}
