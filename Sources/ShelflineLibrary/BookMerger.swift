import Foundation
import ShelflineCore

/// The merge rules: how one import's rows for a book fold into that book.
///
/// First the import's rows for the book are combined into one contribution (in source-line
/// order), then the contribution is applied to the book. Every rule is idempotent, so applying
/// the same import again changes nothing and the library stays byte-identical.
public enum BookMerger {
    /// Exclusive shelves ranked: never downgrade. `did-not-finish` only comes from a row that says so.
    static func shelfRank(_ shelf: String) -> Int {
        switch shelf {
        case "read": 4
        case "did-not-finish": 3
        case "currently-reading": 2
        default: 1  // to-read and custom exclusive shelves
        }
    }

    /// The import's rows for one book, combined: `records` in source-line order.
    struct Combined {
        var record: BookRecord
        var lines: [Int]
        var rowIds: [String]
        /// Best match among the rows: isbn > search > review > not enriched.
        var match: MatchResult?
        var metadata: EditionMetadata?
    }

    static func combine(_ records: [BookRecord]) -> Combined {
        let sorted = records.sorted { $0.line < $1.line }
        var combined = sorted[0]
        for next in sorted.dropFirst() {
            // Bibliographic: the first row that has a value.
            fillNil(&combined.titleBase, next.titleBase)
            fillNil(&combined.series, next.series)
            fillNil(&combined.seriesPosition, next.seriesPosition)
            fillNil(&combined.author, next.author)
            fillNil(&combined.additionalAuthors, next.additionalAuthors)
            fillNil(&combined.isbn13, next.isbn13)
            fillNil(&combined.isbn10, next.isbn10)
            fillNil(&combined.asin, next.asin)
            fillNil(&combined.publisher, next.publisher)
            fillNil(&combined.binding, next.binding)
            fillNil(&combined.pages, next.pages)
            fillNil(&combined.year, next.year)
            fillNil(&combined.originalYear, next.originalYear)
            // Reader: the same rules as across imports, later row as the newer one.
            combined.shelf = mergeShelf(combined.shelf, next.shelf)
            combined.shelves = union(combined.shelves, next.shelves)
            combined.reads = mergeReads(combined.reads, next.reads)
            combined.readCount = maxOptional(combined.readCount, next.readCount)
            combined.dateAdded = minOptional(combined.dateAdded, next.dateAdded)
            if let rating = next.rating { combined.rating = rating }
            if let review = nonEmpty(next.review) { combined.review = review }
            if let notes = nonEmpty(next.notes) { combined.notes = notes }
            combined.owned = mergeOwned(combined.owned, next.owned)
        }
        var best: BookRecord?
        for record in sorted where record.match != nil {
            if best == nil || matchRank(record.match!.status) > matchRank(best!.match!.status) { best = record }
        }
        return Combined(record: combined, lines: sorted.map(\.line), rowIds: sorted.compactMap(\.rowId),
                        match: best?.match, metadata: best?.metadata)
    }

    static func matchRank(_ status: MatchStatus) -> Int {
        switch status {
        case .matchedByIsbn: 3
        case .matchedBySearch: 2
        case .needsReview: 1
        case .notEnriched: 0
        }
    }

    /// Folds one import's `records` (all for book `id`) into `book` (nil: a new book).
    /// Returns the new book; unchanged books compare equal to the input.
    public static func fold(book existing: LibraryBook?, id: String, records: [BookRecord], grantedKeys: [String],
                            importId: String) -> LibraryBook {
        let combined = combine(records)
        let incoming = combined.record
        var book = existing ?? LibraryBook(id: id, title: incoming.titleBase ?? incoming.title)
        var changed: Set<String> = existing == nil ? ["title"] : []

        func set<T: Equatable>(_ field: WritableKeyPath<LibraryBook, T?>, _ name: String, _ value: T?,
                               bibliographic: Bool = false) {
            guard let value else { return }
            let fromMetadata = book.metadataFields?.contains(name) ?? false
            if bibliographic {
                if book[keyPath: field] == nil || fromMetadata {
                    if book[keyPath: field] != value { book[keyPath: field] = value; changed.insert(name) }
                    if fromMetadata { removeMetadataField(name, from: &book); changed.insert("metadataFields") }
                }
            } else if book[keyPath: field] != value {
                book[keyPath: field] = value
                changed.insert(name)
            }
        }

        // Keys
        let keys = Set(book.keys).union(grantedKeys).sorted()
        if keys != book.keys { book.keys = keys; changed.insert("keys") }

        // Bibliographic from the export: fill gaps (or replace what only metadata supplied).
        set(\.series, "series", incoming.series, bibliographic: true)
        set(\.seriesPosition, "seriesPosition", incoming.seriesPosition, bibliographic: true)
        set(\.author, "author", incoming.author, bibliographic: true)
        set(\.additionalAuthors, "additionalAuthors", incoming.additionalAuthors, bibliographic: true)
        set(\.isbn13, "isbn13", incoming.isbn13, bibliographic: true)
        set(\.isbn10, "isbn10", incoming.isbn10, bibliographic: true)
        set(\.asin, "asin", incoming.asin, bibliographic: true)
        set(\.publisher, "publisher", incoming.publisher, bibliographic: true)
        set(\.binding, "binding", incoming.binding, bibliographic: true)
        set(\.pages, "pages", incoming.pages, bibliographic: true)
        set(\.year, "year", incoming.year, bibliographic: true)
        set(\.originalYear, "originalYear", incoming.originalYear, bibliographic: true)

        // Reader fields.
        let shelf = mergeShelf(book.shelf, incoming.shelf)
        if shelf != book.shelf { book.shelf = shelf; changed.insert("shelf") }
        let shelves = union(book.shelves, incoming.shelves)
        if shelves != book.shelves { book.shelves = shelves; changed.insert("shelves") }
        let reads = mergeReads(book.reads, incoming.reads)
        if reads != book.reads { book.reads = reads; changed.insert("reads") }
        let readCount = maxOptional(book.readCount, incoming.readCount)
        if readCount != book.readCount { book.readCount = readCount; changed.insert("readCount") }
        let dateAdded = minOptional(book.dateAdded, incoming.dateAdded)
        if dateAdded != book.dateAdded { book.dateAdded = dateAdded; changed.insert("dateAdded") }
        set(\.rating, "rating", incoming.rating.flatMap { $0 > 0 ? $0 : nil })
        set(\.review, "review", nonEmpty(incoming.review))
        set(\.notes, "notes", nonEmpty(incoming.notes))
        let owned = mergeOwned(book.owned, incoming.owned)
        if owned != book.owned { book.owned = owned; changed.insert("owned") }

        // Lookup: metadata fills gaps; never touches reader fields.
        if let match = combined.match {
            switch match.status {
            case .matchedByIsbn, .matchedBySearch:
                if let metadata = combined.metadata { applyMetadata(metadata, match: match, to: &book, changed: &changed) }
                if book.reviewDecision != "accepted" {
                    set(\.editionKey, "editionKey", match.editionKey ?? combined.metadata?.editionKey)
                    set(\.workKey, "workKey", match.workKey ?? combined.metadata?.workKey)
                    set(\.enrichment, "enrichment", match.status.rawValue)
                    set(\.enrichmentSource, "enrichmentSource", match.source ?? combined.metadata?.source)
                }
                if book.needsReview != nil { book.needsReview = nil; changed.insert("needsReview") }
            case .needsReview:
                if book.reviewDecision == nil && book.editionKey == nil && book.needsReview != true {
                    book.needsReview = true
                    changed.insert("needsReview")
                }
            case .notEnriched:
                break
            }
        }

        if !changed.isEmpty {
            // The import that creates a book contributed all of it: `created` says so in one word.
            let fields = existing == nil ? ["created"] : changed.sorted()
            if var last = book.provenance.last, last.importId == importId {
                last.lines = Array(Set(last.lines).union(combined.lines)).sorted()
                let rowIds = Array(Set(last.rowIds ?? []).union(combined.rowIds)).sorted()
                last.rowIds = rowIds.isEmpty ? nil : rowIds
                last.fields = Array(Set(last.fields).union(fields)).sorted()
                book.provenance[book.provenance.count - 1] = last
            } else {
                book.provenance.append(Contribution(importId: importId, format: incoming.format, lines: combined.lines,
                                                    rowIds: combined.rowIds.isEmpty ? nil : combined.rowIds, fields: fields))
            }
        }
        return book
    }

    /// Lookup metadata fills empty bibliographic fields (and refreshes fields it filled before).
    static func applyMetadata(_ metadata: EditionMetadata, match: MatchResult, to book: inout LibraryBook,
                              changed: inout Set<String>) {
        func fill<T: Equatable>(_ field: WritableKeyPath<LibraryBook, T?>, _ name: String, _ value: T?) {
            guard let value else { return }
            let fromMetadata = book.metadataFields?.contains(name) ?? false
            guard book[keyPath: field] == nil || fromMetadata else { return }
            if book[keyPath: field] != value {
                book[keyPath: field] = value
                changed.insert(name)
            }
            if !fromMetadata {
                book.metadataFields = ((book.metadataFields ?? []) + [name]).sorted()
                changed.insert("metadataFields")
            }
        }
        fill(\.subtitle, "subtitle", nonEmpty(metadata.subtitle))
        fill(\.author, "author", metadata.authors?.first)
        if let authors = metadata.authors, authors.count > 1 { fill(\.additionalAuthors, "additionalAuthors", Array(authors.dropFirst())) }
        fill(\.isbn13, "isbn13", metadata.isbn13)
        fill(\.isbn10, "isbn10", metadata.isbn10)
        fill(\.publisher, "publisher", metadata.publishers?.first)
        fill(\.pages, "pages", metadata.pages)
        fill(\.year, "year", metadata.year)
        fill(\.coverId, "coverId", metadata.coverId)
    }

    static func removeMetadataField(_ name: String, from book: inout LibraryBook) {
        let rest = (book.metadataFields ?? []).filter { $0 != name }
        book.metadataFields = rest.isEmpty ? nil : rest
    }

    /// Applies a recorded review decision; idempotent.
    public static func apply(_ decision: ReviewDecision, to book: inout LibraryBook) {
        switch decision.action {
        case .accept:
            if let candidate = decision.candidate {
                book.editionKey = candidate.key
                if let workKey = candidate.workKey { book.workKey = workKey }
                if book.author == nil, let author = candidate.authors.first { book.author = author }
            }
            book.enrichment = "review"
            book.enrichmentSource = "review"
            book.reviewDecision = "accepted"
        case .reject:
            book.reviewDecision = "rejected"
        }
        book.needsReview = nil
    }

    // MARK: Field rules

    static func mergeShelf(_ current: String?, _ incoming: String?) -> String? {
        guard let incoming, !incoming.isEmpty else { return current }
        guard let current else { return incoming }
        return shelfRank(incoming) >= shelfRank(current) ? incoming : current
    }

    static func union(_ a: [String]?, _ b: [String]?) -> [String]? {
        let all = Set((a ?? []) + (b ?? [])).filter { !$0.isEmpty }
        return all.isEmpty ? nil : all.sorted()
    }

    /// Every distinct reading, sorted; a span that only repeats part of another (`{end: d}` beside
    /// `{start: s, end: d}`) is the same reading and is dropped.
    static func mergeReads(_ a: [ReadSpan]?, _ b: [ReadSpan]?) -> [ReadSpan]? {
        let all = Set((a ?? []) + (b ?? [])).filter { $0.start != nil || $0.end != nil }
        let kept = all.filter { span in
            !all.contains { other in
                other != span && (span.start == nil || span.start == other.start) && (span.end == nil || span.end == other.end)
            }
        }
        guard !kept.isEmpty else { return nil }
        return kept.sorted { ($0.end ?? $0.start ?? "", $0.start ?? "") < ($1.end ?? $1.start ?? "", $1.start ?? "") }
    }

    static func mergeOwned(_ current: Bool?, _ incoming: Bool?) -> Bool? {
        guard let incoming else { return current }
        return (current ?? false) || incoming
    }

    static func maxOptional<T: Comparable>(_ a: T?, _ b: T?) -> T? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }

    static func minOptional<T: Comparable>(_ a: T?, _ b: T?) -> T? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    static func nonEmpty(_ text: String?) -> String? {
        // Stops at the first visible character (the White_Space property is the set
        // `.whitespacesAndNewlines` trims), instead of trimming a copy of a whole review.
        guard let text, text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { return nil }
        return text
    }

    static func fillNil<T>(_ target: inout T?, _ value: T?) {
        if target == nil { target = value }
    }
}
