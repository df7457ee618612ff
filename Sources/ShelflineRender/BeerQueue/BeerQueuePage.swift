import Foundation

/// What a beer-queue source said.
public enum BeerQueueReading: Sendable, Equatable {
    /// The member's queue in queue order (possibly empty).
    case queue([QueuedBeer])
    /// The site answered with its login page.
    case sessionExpired
}

/// Parses a saved or fetched `memberQueues.php` page.
///
/// Each queued beer is an `h3` whose class list has `brewName`; its text (minus child elements'
/// text) is the name with a container label, its child `div.brew_added_date` the date; the entry
/// id is the digits of the next `deleteQueuedBrew.php?cid=` link. `No brew in queue` is the empty
/// queue, a password input the login page. Anything else — including a page cut off before its
/// `</html>`, and a beer without its own delete link — is an error, never an empty queue.
public enum BeerQueuePage {
    /// Pages larger than this are refused (a queue page is a few kilobytes to a few hundred).
    public static let maximumBytes = 8 << 20

    public static func parse(_ html: String, source: String) throws -> BeerQueueReading {
        let (tokens, endedInsideMarkup) = HTMLScanner.tokens(html)

        struct Row {
            var name = ""
            var date = ""
            var id: String?
        }
        var rows: [Row] = []
        var open: Row?  // the beer whose delete link has not been seen yet
        var inName = false
        var nameDepth = 0  // elements open inside the h3
        var dateDepth = 0  // > 0 inside div.brew_added_date
        var sawPassword = false
        var sawEmptyMarker = false
        var sawHTMLClose = false
        var skipping: String?  // inside script/style

        func classes(_ attributes: [String: String]) -> [String] {
            (attributes["class"] ?? "").split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        }
        func finishName() throws {
            guard var row = open else { return }
            row.name = collapse(row.name)
            row.date = collapse(row.date)
            open = row
            if row.name.isEmpty {
                throw RenderError.malformedRow(source: source, row: rows.count + 1, reason: "a brewName heading without a name")
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
                    if let pending = open {
                        throw RenderError.malformedRow(
                            source: source, row: rows.count + 1,
                            reason: "'\(collapse(pending.name))' has no deleteQueuedBrew.php?cid= link before the next beer")
                    }
                    open = Row()
                    inName = true
                    nameDepth = 0
                    dateDepth = 0
                    continue
                }
                if name == "a", let href = attributes["href"], let range = href.range(of: "deleteQueuedBrew.php", options: .caseInsensitive) {
                    let id = Self.cid(in: href[range.upperBound...])
                    guard var row = open else {
                        throw RenderError.unrecognisedPage(source: source, reason: "a delete link (\(href)) with no beer before it")
                    }
                    if inName { try finishName(); row = open!; inName = false }
                    guard let id else {
                        throw RenderError.malformedRow(source: source, row: rows.count + 1,
                                                       reason: "'\(row.name)': delete link without a numeric cid")
                    }
                    row.id = id
                    rows.append(row)
                    open = nil
                    continue
                }
                if inName && !Self.voidElements.contains(name) {
                    nameDepth += 1
                    if dateDepth > 0 {
                        dateDepth += 1
                    } else if name == "div", classes(attributes).contains("brew_added_date") {
                        dateDepth = 1
                    }
                }
            case .end(let name):
                if name == "html" { sawHTMLClose = true }
                guard inName else { continue }
                if name == "h3" && nameDepth == 0 {
                    inName = false
                    try finishName()
                } else if nameDepth > 0 {
                    nameDepth -= 1
                    if dateDepth > 0 { dateDepth -= 1 }
                }
            case .text(let text):
                // Most text tokens are the whitespace between tags.
                if text.utf8.allSatisfy(HTMLScanner.isSpace) { continue }
                if inName, open != nil {
                    if dateDepth > 0 { open!.date += " " + text } else { open!.name += " " + text }
                } else if collapse(text).lowercased().contains("no brew in queue") {
                    sawEmptyMarker = true
                }
            }
        }

        if sawPassword { return .sessionExpired }
        if (endedInsideMarkup || !sawHTMLClose) && (!rows.isEmpty || open != nil || sawEmptyMarker) {
            throw RenderError.unrecognisedPage(source: source, reason: "the page is truncated (it does not end with </html>)")
        }
        if let pending = open {
            throw RenderError.malformedRow(source: source, row: rows.count + 1,
                                           reason: "'\(collapse(pending.name))' has no deleteQueuedBrew.php?cid= link")
        }
        guard !rows.isEmpty || sawEmptyMarker else {
            throw RenderError.unrecognisedPage(
                source: source, reason: "no brewName rows, no 'No brew in queue' and no login form")
        }
        return .queue(rows.map { row in
            QueuedBeer(id: row.id!, name: ContainerLabel.displayName(row.name), date: row.date)
        })
    }

    static let voidElements: Set<String> = ["br", "img", "input", "meta", "link", "hr", "wbr", "source", "area", "col", "embed"]

    /// The digits of `cid=` in a query string, or nil when absent or not all digits.
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

    static func collapse(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// Container labels (`(Draft)`, `(BTL)`, `(CAN)`, `(16oz Can)`, `(Nitro)`, …) removed from the end
/// of a beer name for display; other parentheses, like a vintage, stay.
public enum ContainerLabel {
    /// Words that make up a serving label, lowercased.
    static let words: Set<String> = [
        "draft", "draught", "btl", "bottle", "bottled", "can", "canned", "cans", "cask", "nitro", "crowler", "growler",
        "tap", "on", "keg", "firkin", "pint", "half", "snifter", "tulip", "pour", "taster", "flight", "bomber", "stubby",
        "tallboy", "large", "small", "glass", "pitcher",
    ]

    /// `name` without its trailing serving labels; never empty when `name` was not.
    public static func displayName(_ name: String) -> String {
        var result = BeerQueuePage.collapse(name)
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
            if words.contains(String(token)) {
                sawWord = true
            } else if isVolume(token) {
                sawWord = true
            } else if token.allSatisfy({ $0.isNumber || $0 == "." }), index + 1 < tokens.count,
                      ["oz", "ml", "cl", "l"].contains(String(tokens[index + 1])) {
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
