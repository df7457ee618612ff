import Foundation
import ShelflineActivity

/// What a beer-queue source said.
public enum BeerQueueReading: Sendable, Equatable {
    /// In queue order (possibly empty), and the rows left out as malformed.
    case queue([QueuedBeer], skipped: [SkippedRow] = [])
    case sessionExpired
}

public struct SkippedRow: Sendable, Equatable, Codable {
    /// 1-based position among the page's `brewName` rows.
    public var row: Int
    public var reason: String
}

/// Parses a saved or fetched `memberQueues.php` page.
///
/// Each queued beer is an `h3.brewName` (its own text the name, its `div.brew_added_date` the
/// date); the row runs to the next such heading or the end of the heading's container, and its id
/// is the `cid` of the `deleteQueuedBrew.php?cid=` link in that row only. A malformed row is
/// skipped and reported; a page of nothing but is an error. `No brew in queue` is the empty queue,
/// a password input the login page; anything else, a truncated page too, is an error.
public enum BeerQueuePage {
    /// A queue page is a few kilobytes to a few hundred.
    public static let maximumBytes = 8 << 20

    public static func parse(_ html: String, source: String) throws -> BeerQueueReading {
        let (tokens, endedInsideMarkup) = HTMLScanner.tokens(html)

        struct Row {
            var name = ""
            var date = ""
            /// Distinct numeric cids of the row's delete links.
            var ids: [String] = []
            var badLink = false
            /// Elements open outside the heading: the row ends when its container closes.
            var containerDepth: Int
        }
        var beers: [QueuedBeer] = []
        var skipped: [SkippedRow] = []
        var seenIds: [String: Int] = [:]
        var rowCount = 0
        var open: Row?
        var stack: [String] = []  // open elements (void ones never pushed)
        var nameDepth: Int?  // stack depth inside the open row's heading
        var dateDepth: Int?  // stack depth inside its div.brew_added_date
        var sawPassword = false
        var sawEmptyMarker = false
        var sawHTMLClose = false
        var skipping: String?  // inside script/style

        func classes(_ attributes: [String: String]) -> [String] {
            (attributes["class"] ?? "").split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        }
        func finishRow() {
            guard let row = open else { return }
            open = nil
            nameDepth = nil
            dateDepth = nil
            rowCount += 1
            let name = SnapshotText.clean(row.name)
            let reason: String?
            if name.isEmpty {
                reason = "a brewName heading without a name"
            } else if row.ids.count > 1 {
                reason = "'\(name)' has several delete links (cid \(row.ids.joined(separator: ", ")))"
            } else if let id = row.ids.first, let earlier = seenIds[id] {
                reason = "'\(name)' has the same cid \(id) as queued beer \(earlier)"
            } else if row.ids.isEmpty {
                reason =
                    row.badLink
                    ? "'\(name)': delete link without a numeric cid" : "'\(name)' has no deleteQueuedBrew.php?cid= link"
            } else {
                reason = nil
            }
            if let reason {
                skipped.append(SkippedRow(row: rowCount, reason: reason))
            } else {
                seenIds[row.ids[0]] = rowCount
                beers.append(
                    QueuedBeer(id: row.ids[0], name: ContainerLabel.displayName(name), date: SnapshotText.clean(row.date)))
            }
        }

        for token in tokens {
            if let name = skipping {
                if token == .end(name: name) { skipping = nil }
                continue
            }
            switch token {
            case .start(let name, let attributes):
                if name == "script" || name == "style" {
                    skipping = name
                    continue
                }
                if name == "input", (attributes["type"] ?? "").lowercased() == "password" { sawPassword = true }
                if name == "h3", classes(attributes).contains("brewname") {
                    finishRow()
                    open = Row(containerDepth: stack.count)
                    stack.append(name)
                    nameDepth = stack.count
                    continue
                }
                if name == "a", open != nil, let href = attributes["href"],
                    let range = href.range(of: "deleteQueuedBrew.php", options: .caseInsensitive)
                {
                    if let id = Self.cid(in: href[range.upperBound...]) {
                        if !open!.ids.contains(id) { open!.ids.append(id) }
                    } else {
                        open!.badLink = true
                    }
                }
                guard !Self.voidElements.contains(name) else { continue }
                stack.append(name)
                if nameDepth != nil, dateDepth == nil, name == "div", classes(attributes).contains("brew_added_date") {
                    dateDepth = stack.count
                }
            case .end(let name):
                if name == "html" { sawHTMLClose = true }
                // Closes the innermost element of that name and any left unclosed inside it.
                guard let index = stack.lastIndex(of: name) else { continue }
                stack.removeSubrange(index...)
                if let depth = dateDepth, stack.count < depth { dateDepth = nil }
                if let depth = nameDepth, stack.count < depth { nameDepth = nil }
                if let row = open, stack.count < row.containerDepth { finishRow() }
            case .text(let text):
                // Most text tokens are the whitespace between tags.
                if text.utf8.allSatisfy(HTMLScanner.isSpace) { continue }
                if nameDepth != nil, open != nil {
                    if dateDepth != nil { open!.date += " " + text } else { open!.name += " " + text }
                } else if SnapshotText.clean(text).lowercased().contains("no brew in queue") {
                    sawEmptyMarker = true
                }
            }
        }
        finishRow()

        if sawPassword { return .sessionExpired }
        if (endedInsideMarkup || !sawHTMLClose) && (rowCount > 0 || sawEmptyMarker) {
            throw BeerQueueError.unrecognisedPage(source: source, reason: "the page is truncated (it does not end with </html>)")
        }
        if beers.isEmpty && !skipped.isEmpty {
            throw BeerQueueError.malformedRows(source: source, skipped: skipped)
        }
        guard rowCount > 0 || sawEmptyMarker else {
            throw BeerQueueError.unrecognisedPage(
                source: source, reason: "no brewName rows, no 'No brew in queue' and no login form")
        }
        return .queue(beers, skipped: skipped)
    }

    static let voidElements: Set<String> = ["br", "img", "input", "meta", "link", "hr", "wbr", "source", "area", "col", "embed"]

    /// Nil when absent or not all digits.
    static func cid(in query: Substring) -> String? {
        guard let question = query.firstIndex(of: "?") else { return nil }
        for pair in query[query.index(after: question)...].split(whereSeparator: { $0 == "&" || $0 == ";" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "cid" else { continue }
            let value = parts[1].prefix { $0 != "#" }
            return !value.isEmpty && value.allSatisfy(\.isASCII) && value.allSatisfy(\.isNumber) ? String(value) : nil
        }
        return nil
    }
}

/// Container labels (`(Draft)`, `(BTL)`, `(CAN)`, `(16oz Can)`, `(Nitro)`, …) removed from the end
/// of a beer name for display; other parentheses, like a vintage, stay.
public enum ContainerLabel {
    static let words: Set<String> = [
        "draft", "draught", "btl", "bottle", "bottled", "can", "canned", "cans", "cask", "nitro", "crowler", "growler",
        "tap", "on", "keg", "firkin", "pint", "half", "snifter", "tulip", "pour", "taster", "flight", "bomber", "stubby",
        "tallboy", "large", "small", "glass", "pitcher",
    ]

    /// Never empty when `name` was not.
    public static func displayName(_ name: String) -> String {
        var result = SnapshotText.clean(name)
        while result.hasSuffix(")"), let open = result.lastIndex(of: "(") {
            let inside = result[result.index(after: open)..<result.index(before: result.endIndex)]
            let prefix = result[..<open].trimmingCharacters(in: .whitespaces)
            guard isLabel(inside), !prefix.isEmpty else { break }
            result = prefix
        }
        return result
    }

    /// True when every word of `text` is a serving word or a volume (`16oz`, `12 oz`, `500ml`, `0.5L`).
    static func isLabel(_ text: Substring) -> Bool {
        let tokens = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "/" || $0 == "-" || $0 == "," })
        guard !tokens.isEmpty else { return false }
        var sawWord = false
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if words.contains(String(token)) || isVolume(token) {
                sawWord = true
            } else if token.allSatisfy({ $0.isNumber || $0 == "." }), index + 1 < tokens.count,
                ["oz", "ml", "cl", "l"].contains(String(tokens[index + 1]))
            {
                sawWord = true
                index += 1
            } else {
                return false
            }
            index += 1
        }
        return sawWord
    }

    static func isVolume(_ token: Substring) -> Bool {
        for unit in ["oz", "ml", "cl", "l"] where token.hasSuffix(unit) {
            let number = token.dropLast(unit.count)
            if !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), number.contains(where: \.isNumber) {
                return true
            }
        }
        return false
    }
}
