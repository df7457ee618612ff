import Foundation
import ShelflineCore

/// The merge rules: an import's rows for a book are combined in line order, then applied to the book.
/// Every rule is idempotent: the same import again leaves the library byte-identical.
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

    struct Combined {
        var record: BookRecord
        var lines: [Int]
        var rowIds: [String]
        /// Best match among the rows: isbn > search > review > not enriched.
        var match: MatchResult?
        var metadata: EditionMetadata?
    }

    static func combine(_ records: [BookRecord]) -> Combined {
        // One row (most books): sorting it still copied every field.
        let sorted = records.count == 1 ? records : records.sorted { $0.line < $1.line }
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
            // An invalid ISBN cell travels with the row whose ISBNs the book takes.
            if combined.isbnRaw == nil, combined.isbn13 == nil || combined.isbn13 == next.isbn13 {
                combined.isbnRaw = next.isbnRaw
            }
            fillNil(&combined.asin, next.asin)
            combined.identifiers = unionIdentifiers(combined.identifiers, next.identifiers)
            fillNil(&combined.publisher, next.publisher)
            fillNil(&combined.binding, next.binding)
            fillNil(&combined.pages, next.pages)
            fillNil(&combined.year, next.year)
            fillNil(&combined.originalYear, next.originalYear)
            // Reader: the same rules as across imports, later row as the newer one.
            combined.shelf = mergeShelf(combined.shelf, next.shelf)
            combined.shelves = union(combined.shelves, next.shelves)
            combined.reads = mergeReads(combined.reads, next.reads)
            combined.readCount = pick(combined.readCount, next.readCount, by: max)
            combined.dateAdded = pick(combined.dateAdded, next.dateAdded, by: min)
            if let rating = next.rating { combined.rating = rating }
            if let review = nonEmpty(next.review) { combined.review = review }
            if let notes = nonEmpty(next.notes) { combined.notes = notes }
            combined.owned = mergeOwned(combined.owned, next.owned)
            combineOwnCells(&combined, next)
        }
        // By index: holding the best row as a record copied all its fields, for every book.
        var best: Int?
        for index in sorted.indices {
            guard let match = sorted[index].match else { continue }
            if best == nil || matchRank(match.status) > matchRank(sorted[best!].match!.status) { best = index }
        }
        return Combined(
            record: combined, lines: sorted.map(\.line), rowIds: sorted.compactMap(\.rowId),
            match: best.flatMap { sorted[$0].match }, metadata: best.flatMap { sorted[$0].metadata })
    }

    static func matchRank(_ status: MatchStatus) -> Int {
        switch status {
        case .matchedByIsbn: 3
        case .matchedBySearch: 2
        case .needsReview: 1
        case .notEnriched: 0
        }
    }

    /// Folds one import's `records` for book `id` into `book` (nil: a new book); unchanged, it compares equal.
    /// A cell one of `laterImports` (`ImportOrder`) wrote keeps its value: an older export never undoes a newer.
    public static func fold(
        book existing: LibraryBook?, id: String, records: [BookRecord], grantedKeys: [String],
        importId: String, laterImports: Set<String> = []
    ) -> LibraryBook {
        let combined = combine(records)
        let incoming = combined.record
        var book = existing ?? LibraryBook(id: id, title: incoming.titleBase ?? incoming.title)
        var changed: ChangedFields = existing == nil ? [.title] : []
        // A placeholder title (a reading log's key) is no reader's word: as metadata, lookup's title replaces it.
        if existing == nil, incoming.titleIsPlaceholder == true {
            book.metadataFields = [ChangedFields.Field.title.name]
            changed.insert(.metadataFields)
        }
        let kept = laterImports.isEmpty ? [] : writtenByLater(book.provenance, laterImports)

        func update<T: Equatable>(_ slot: inout T, _ field: ChangedFields.Field, _ value: T) {
            guard slot != value else { return }
            slot = value
            changed.insert(field)
        }

        /// An export's bibliographic value fills a gap, or replaces what only metadata supplied.
        func fill<T: Equatable>(_ slot: inout T?, _ field: ChangedFields.Field, _ value: T?, metadataFields: inout [String]?) {
            guard let value else { return }
            let fromMetadata = metadataFields?.contains(field.name) ?? false
            guard slot == nil || fromMetadata else { return }
            update(&slot, field, value)
            if fromMetadata { removeMetadataField(field.name, from: &metadataFields); changed.insert(.metadataFields) }
        }

        /// The export's value replaces the field, unless a later import wrote it.
        func replace<T: Equatable>(_ slot: inout T?, _ field: ChangedFields.Field, _ value: T?) {
            guard let value, !kept.contains(field) else { return }
            update(&slot, field, value)
        }

        let keys = book.keys.isEmpty && isSortedSet(grantedKeys) ? grantedKeys : Set(book.keys).union(grantedKeys).sorted()
        update(&book.keys, .keys, keys)

        // Before this import's series fills.
        let writtenTitle = existing.map(ExportCells.title) ?? incoming.title
        fill(&book.series, .series, incoming.series, metadataFields: &book.metadataFields)
        fill(&book.seriesPosition, .seriesPosition, incoming.seriesPosition, metadataFields: &book.metadataFields)
        fill(&book.author, .author, incoming.author, metadataFields: &book.metadataFields)
        fill(&book.additionalAuthors, .additionalAuthors, incoming.additionalAuthors, metadataFields: &book.metadataFields)
        fill(&book.isbn13, .isbn13, incoming.isbn13, metadataFields: &book.metadataFields)
        fill(&book.isbn10, .isbn10, incoming.isbn10, metadataFields: &book.metadataFields)
        fill(&book.asin, .asin, incoming.asin, metadataFields: &book.metadataFields)
        update(&book.identifiers, .identifiers, unionIdentifiers(book.identifiers, incoming.identifiers))
        fill(&book.publisher, .publisher, incoming.publisher, metadataFields: &book.metadataFields)
        fill(&book.binding, .binding, incoming.binding, metadataFields: &book.metadataFields)
        fill(&book.pages, .pages, incoming.pages, metadataFields: &book.metadataFields)
        fill(&book.year, .year, incoming.year, metadataFields: &book.metadataFields)
        fill(&book.originalYear, .originalYear, incoming.originalYear, metadataFields: &book.metadataFields)
        // The title when its series put back reads otherwise; an invalid ISBN cell of the row whose ISBNs
        // the book shows (not lookup's).
        update(&book.titleAsWritten, .titleAsWritten, ExportCells.seriesTitle(book) == writtenTitle ? nil : writtenTitle)
        let readerISBN = book.metadataFields?.contains(ChangedFields.Field.isbn13.name) == true ? nil : book.isbn13
        if book.isbnAsWritten == nil, let raw = incoming.isbnRaw, readerISBN == nil || readerISBN == incoming.isbn13 {
            book.isbnAsWritten = raw
            changed.insert(.isbnAsWritten)
        }

        update(&book.shelf, .shelf, kept.contains(.shelf) ? book.shelf : mergeShelf(book.shelf, incoming.shelf))
        if !kept.contains(.shelves), let listed = listedShelves(incoming) {
            update(&book.shelves, .shelves, withoutLeftStates(union(nil, listed), shelf: book.shelf))
        }
        update(&book.reads, .reads, mergeReads(book.reads, incoming.reads))
        update(&book.readCount, .readCount, pick(book.readCount, incoming.readCount, by: max))
        update(&book.dateAdded, .dateAdded, pick(book.dateAdded, incoming.dateAdded, by: min))
        replace(&book.rating, .rating, incoming.rating.flatMap { $0 > 0 ? $0 : nil })
        replace(&book.review, .review, nonEmpty(incoming.review))
        replace(&book.notes, .notes, nonEmpty(incoming.notes))
        update(&book.owned, .owned, mergeOwned(book.owned, incoming.owned))
        applyOwnCells(incoming, to: &book, changed: &changed, kept: kept)

        // Lookup metadata fills gaps, never reader fields.
        if let match = combined.match {
            switch match.status {
            case .matchedByIsbn, .matchedBySearch:
                if let metadata = combined.metadata { applyMetadata(metadata, match: match, to: &book, changed: &changed) }
                if book.reviewDecision != "accepted" {
                    replace(&book.editionKey, .editionKey, match.editionKey ?? combined.metadata?.editionKey)
                    replace(&book.workKey, .workKey, match.workKey ?? combined.metadata?.workKey)
                    replace(&book.enrichment, .enrichment, match.status.rawValue)
                    replace(&book.enrichmentSource, .enrichmentSource, match.source ?? combined.metadata?.source)
                }
                if book.needsReview != nil { book.needsReview = nil; changed.insert(.needsReview) }
            case .needsReview:
                if book.reviewDecision == nil && !book.isEnriched && book.needsReview != true {
                    book.needsReview = true
                    changed.insert(.needsReview)
                }
            case .notEnriched:
                break
            }
        }

        if !changed.isEmpty {
            // The import that creates a book contributed all of it.
            let fields = existing == nil ? ["created"] : changed.names
            if var last = book.provenance.last, last.importId == importId {
                last.lines = Array(Set(last.lines).union(combined.lines)).sorted()
                let rowIds = Array(Set(last.rowIds ?? []).union(combined.rowIds)).sorted()
                last.rowIds = rowIds.isEmpty ? nil : rowIds
                last.fields = Array(Set(last.fields).union(fields)).sorted()
                book.provenance[book.provenance.count - 1] = last
            } else {
                book.provenance.append(
                    Contribution(
                        importId: importId, format: incoming.format, lines: combined.lines,
                        rowIds: combined.rowIds.isEmpty ? nil : combined.rowIds, fields: fields))
            }
        }
        return book
    }

    /// Within one import, a later row's own cells replace an earlier row's, as its review does.
    static func combineOwnCells(_ combined: inout BookRecord, _ next: BookRecord) {
        for field in ownTexts {
            if let value = nonEmpty(next.ownText(field)) { combined.setOwnText(field, value) }
        }
        if let moods = next.moods, !moods.isEmpty { combined.moods = moods }
        if let positions = next.shelfPositions, !positions.isEmpty { combined.shelfPositions = positions }
        if let copies = next.ownedCopies { combined.ownedCopies = copies }
        if nonEmpty(next.review) != nil { combined.spoiler = next.spoiler }
    }

    /// Across imports, a non-empty cell replaces an older import's; an empty one never erases. The spoiler
    /// flag travels with a Goodreads review (other formats have no such column).
    static func applyOwnCells(
        _ incoming: BookRecord, to book: inout LibraryBook, changed: inout ChangedFields,
        kept: ChangedFields = []
    ) {
        for field in ownTexts where !kept.contains(field) {
            if let value = nonEmpty(incoming.ownText(field)), book.ownText(field) != value {
                book.setOwnText(field, value)
                changed.insert(field)
            }
        }
        if !kept.contains(.moods), let moods = incoming.moods, !moods.isEmpty, book.moods != moods {
            book.moods = moods
            changed.insert(.moods)
        }
        if !kept.contains(.shelfPositions) {
            // Goodreads' list as its newest row gives it (`GoodreadsExport.shelfList`); another format keeps
            // the positions of the shelves the book is still on.
            let positions: [ShelfPosition]?
            if incoming.format == .goodreads {
                positions = incoming.shelfPositions
            } else {
                let on = Set(book.shelves ?? []).union(book.shelf.map { [$0] } ?? [])
                positions = book.shelfPositions?.filter { on.contains($0.shelf) }
            }
            let list = positions?.isEmpty ?? true ? nil : positions
            if list != book.shelfPositions {
                book.shelfPositions = list
                changed.insert(.shelfPositions)
            }
        }
        if !kept.contains(.ownedCopies), let copies = incoming.ownedCopies, book.ownedCopies != copies {
            book.ownedCopies = copies
            changed.insert(.ownedCopies)
        }
        if !kept.contains(.spoiler), incoming.format == .goodreads, nonEmpty(incoming.review) != nil,
            book.spoiler != incoming.spoiler
        {
            book.spoiler = incoming.spoiler
            changed.insert(.spoiler)
        }
    }

    /// The cells a later import wrote (provenance `fields`; `created`: all of them), which an earlier import
    /// leaves alone. Cells that only grow and bibliographic gaps are not listed: an earlier import may add.
    static func writtenByLater(_ provenance: [Contribution], _ laterImports: Set<String>) -> ChangedFields {
        var kept: ChangedFields = []
        for contribution in provenance where laterImports.contains(contribution.importId) {
            for name in contribution.fields {
                if name == "created" {
                    kept.formUnion(replacedByLater)
                } else if let field = ChangedFields.field(named: name) {
                    kept.insert(field)
                }
            }
        }
        return kept.intersection(replacedByLater)
    }

    static let replacedByLater = ChangedFields(
        (ownTexts + [
            .rating, .review, .notes, .shelf, .shelves, .moods, .shelfPositions, .ownedCopies, .spoiler, .editionKey,
            .workKey, .enrichment, .enrichmentSource,
        ]).map { ChangedFields($0) })

    /// Metadata fills empty bibliographic fields (and refreshes those it filled before).
    static func applyMetadata(
        _ metadata: EditionMetadata, match: MatchResult, to book: inout LibraryBook,
        changed: inout ChangedFields
    ) {
        func fill<T: Equatable>(_ slot: inout T?, _ field: ChangedFields.Field, _ value: T?, metadataFields: inout [String]?) {
            guard let value else { return }
            let fromMetadata = metadataFields?.contains(field.name) ?? false
            guard slot == nil || fromMetadata else { return }
            if slot != value {
                slot = value
                changed.insert(field)
            }
            if !fromMetadata {
                metadataFields = ((metadataFields ?? []) + [field.name]).sorted()
                changed.insert(.metadataFields)
            }
        }
        // Only a title that is no reader's.
        if book.metadataFields?.contains(ChangedFields.Field.title.name) == true, let title = nonEmpty(metadata.title),
            book.title != title
        {
            book.title = title
            changed.insert(.title)
        }
        fill(&book.subtitle, .subtitle, nonEmpty(metadata.subtitle), metadataFields: &book.metadataFields)
        fill(&book.author, .author, metadata.authors?.first, metadataFields: &book.metadataFields)
        if let authors = metadata.authors, authors.count > 1 {
            fill(&book.additionalAuthors, .additionalAuthors, Array(authors.dropFirst()), metadataFields: &book.metadataFields)
        }
        fill(&book.isbn13, .isbn13, metadata.isbn13, metadataFields: &book.metadataFields)
        fill(&book.isbn10, .isbn10, metadata.isbn10, metadataFields: &book.metadataFields)
        fill(&book.publisher, .publisher, metadata.publishers?.first, metadataFields: &book.metadataFields)
        fill(&book.pages, .pages, metadata.pages, metadataFields: &book.metadataFields)
        fill(&book.year, .year, metadata.year, metadataFields: &book.metadataFields)
        fill(&book.coverId, .coverId, metadata.coverId, metadataFields: &book.metadataFields)
        fill(&book.coverURL, .coverURL, metadata.coverURL, metadataFields: &book.metadataFields)
    }

    static func removeMetadataField(_ name: String, from metadataFields: inout [String]?) {
        let rest = (metadataFields ?? []).filter { $0 != name }
        metadataFields = rest.isEmpty ? nil : rest
    }

    /// Applies a review decision; idempotent.
    public static func apply(_ decision: ReviewDecision, to book: inout LibraryBook) {
        switch decision.action {
        case .accept:
            if let candidate = decision.candidate {
                // A candidate naming no edition carries its work's key as `key`; older runs wrote it without
                // `workKey`, so the source's id shape says (`SourceShapes`).
                let isWork =
                    candidate.key == candidate.workKey
                    || (candidate.workKey == nil
                        && SourceShapes.of(book.enrichmentSource)?.isWorkKey(candidate.key) == true)
                book.editionKey = isWork ? nil : candidate.key
                if let workKey = candidate.workKey ?? (isWork ? candidate.key : nil) { book.workKey = workKey }
                if book.author == nil, let author = candidate.authors.first {
                    // Metadata: an export's author replaces it, a rejection takes it back.
                    book.author = author
                    book.metadataFields = Set((book.metadataFields ?? []) + ["author"]).sorted()
                }
            }
            book.enrichment = "review"
            book.enrichmentSource = "review"
            book.reviewDecision = "accepted"
        case .reject:
            if book.reviewDecision == "accepted" {
                // An acceptance changed to a rejection: the candidate it took goes with it.
                book.editionKey = nil
                book.workKey = nil
                book.enrichment = nil
                book.enrichmentSource = nil
                if book.metadataFields?.contains("author") == true {
                    book.author = nil
                    removeMetadataField("author", from: &book.metadataFields)
                }
            }
            book.reviewDecision = "rejected"
        }
        book.needsReview = nil
    }

    static func mergeShelf(_ current: String?, _ incoming: String?) -> String? {
        guard let incoming, !incoming.isEmpty else { return current }
        guard let current else { return incoming }
        return shelfRank(incoming) >= shelfRank(current) ? incoming : current
    }

    /// A row lists the book's whole shelf list: empty for an empty cell, nil for a mapped CSV without shelves.
    static func listedShelves(_ record: BookRecord) -> [String]? {
        record.format == .generic ? record.shelves : record.shelves ?? []
    }

    /// `shelves` without the reading states the book has left; without an exclusive shelf, they are the
    /// only word on its state and stay.
    static func withoutLeftStates(_ shelves: [String]?, shelf: String?) -> [String]? {
        guard let shelves, shelves.contains(where: { left($0, shelf: shelf) }) else { return shelves }
        let on = shelves.filter { !left($0, shelf: shelf) }
        return on.isEmpty ? nil : on
    }

    static func left(_ name: String, shelf: String?) -> Bool {
        shelf != nil && name != shelf && GoodreadsExport.exclusive.contains(name)
    }

    static func union(_ a: [String]?, _ b: [String]?) -> [String]? {
        // One side empty, the other sorted, distinct, without "": that side (a Set per book was 2 % of merge).
        if a?.isEmpty ?? true, let b, isSortedSet(b), b.first != "" { return b.isEmpty ? nil : b }
        if b?.isEmpty ?? true, let a, isSortedSet(a), a.first != "" { return a.isEmpty ? nil : a }
        // Sort and drop repeats: hashing every name into a `Set` cost more (measured).
        var all = (a ?? []) + (b ?? [])
        all.sort()
        var distinct: [String] = []
        distinct.reserveCapacity(all.count)
        for name in all where !name.isEmpty && distinct.last != name { distinct.append(name) }
        return distinct.isEmpty ? nil : distinct
    }

    /// Every distinct reading, sorted; a span repeating part of another (`{end: d}`, `{start: s, end: d}`) goes.
    static func mergeReads(_ a: [ReadSpan]?, _ b: [ReadSpan]?) -> [ReadSpan]? {
        // One span (most books): what the general path gives, without it.
        if (a?.count ?? 0) + (b?.count ?? 0) <= 1 {
            guard let span = a?.first ?? b?.first, span.start != nil || span.end != nil else { return nil }
            return [span]
        }
        let all = Set((a ?? []) + (b ?? [])).filter { $0.start != nil || $0.end != nil }
        let kept = all.filter { span in
            !all.contains { other in
                other != span && (span.start == nil || span.start == other.start) && (span.end == nil || span.end == other.end)
            }
        }
        guard !kept.isEmpty else { return nil }
        return kept.sorted { ($0.end ?? $0.start ?? "", $0.start ?? "") < ($1.end ?? $1.start ?? "", $1.start ?? "") }
    }

    /// Strictly ascending (sorting a `Set` of it gives it back).
    static func isSortedSet(_ values: [String]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
    }

    static func mergeOwned(_ current: Bool?, _ incoming: Bool?) -> Bool? {
        guard let incoming else { return current }
        return (current ?? false) || incoming
    }

    /// The one value there is, or `choose`'s of both.
    static func pick<T>(_ a: T?, _ b: T?, by choose: (T, T) -> T) -> T? {
        guard let a, let b else { return a ?? b }
        return choose(a, b)
    }

    static func nonEmpty(_ text: String?) -> String? {
        // Stops at the first non-White_Space (what trimming `.whitespacesAndNewlines` checks) without copying.
        guard let text, text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { return nil }
        return text
    }

    /// Every scheme of both; where both have one, the first writer's identifier.
    static func unionIdentifiers(_ first: [String: String]?, _ second: [String: String]?) -> [String: String]? {
        guard let second else { return first }
        guard let first else { return second }
        return first.merging(second) { kept, _ in kept }
    }

    static func fillNil<T>(_ target: inout T?, _ value: T?) {
        if target == nil { target = value }
    }
}

/// The fields one fold changed, as bits in the names' sorted order, so provenance's sorted list falls out:
/// a `Set<String>` per book cost 6 % of merge (measured).
struct ChangedFields: OptionSet {
    static let fieldNames = Field.allCases.map { String(describing: $0) }

    var rawValue: UInt64

    init(rawValue: UInt64) { self.rawValue = rawValue }

    init(_ field: Field) { rawValue = 1 << UInt64(field.rawValue) }

    static let title = ChangedFields(.title)

    private static let byName = Dictionary(uniqueKeysWithValues: Field.allCases.map { ($0.name, $0) })

    /// Nil for `created` or a name no field has.
    static func field(named name: String) -> Field? { byName[name] }

    mutating func insert(_ field: Field) { formUnion(ChangedFields(field)) }

    func contains(_ field: Field) -> Bool { !isDisjoint(with: ChangedFields(field)) }

    var names: [String] {
        Self.fieldNames.indices.filter { rawValue & (1 << UInt64($0)) != 0 }.map { Self.fieldNames[$0] }
    }
}

extension ChangedFields.Field {
    var name: String { ChangedFields.fieldNames[rawValue] }
}
