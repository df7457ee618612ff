/// A forgiving HTML tokenizer, just enough for the beer-queue page: tags with attributes, text
/// with entities decoded, comments and doctypes skipped, `script`/`style` contents ignored.
struct HTMLScanner {
    enum Token: Equatable {
        case start(name: String, attributes: [String: String])
        case end(name: String)
        case text(String)
    }

    /// The tokens of `html`, and whether the input ended inside a tag or comment.
    static func tokens(_ html: String) -> (tokens: [Token], endedInsideMarkup: Bool) {
        let bytes = Array(html.utf8)
        var tokens: [Token] = []
        var index = 0
        var textStart = 0
        let count = bytes.count
        func flushText(_ end: Int) {
            if end > textStart {
                tokens.append(.text(decodeEntities(String(decoding: bytes[textStart..<end], as: UTF8.self))))
            }
        }
        /// `needle` in lower case when `caseInsensitive`.
        func find(_ needle: String, from start: Int, caseInsensitive: Bool = false) -> Int? {
            let needle = Array(needle.utf8)
            if caseInsensitive { return bytes[start...].lazy.map(lower).firstRange(of: needle)?.lowerBound }
            return bytes[start...].firstRange(of: needle)?.lowerBound
        }
        func skip(_ position: inout Int, while condition: (UInt8) -> Bool) {
            while position < count, condition(bytes[position]) { position += 1 }
        }
        while index < count {
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < count else {
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                flushText(index)
                if bytes[index...].starts(with: Array("<!--".utf8)) {
                    guard let close = find("-->", from: index + 4) else { return (tokens, true) }
                    index = close + 3
                } else {
                    guard let close = find(">", from: index + 2) else { return (tokens, true) }
                    index = close + 1
                }
                textStart = index
                continue
            }
            let isEnd = next == UInt8(ascii: "/")
            let nameStart = index + (isEnd ? 2 : 1)
            guard nameStart < count, isLetter(bytes[nameStart]) else {
                index += 1  // a literal "<" in text
                continue
            }
            flushText(index)
            var position = nameStart
            skip(&position) { !isSpace($0) && !">/".utf8.contains($0) }
            let name = String(decoding: bytes[nameStart..<position].map(lower), as: UTF8.self)
            // Attributes; a ">" inside a quoted value does not end the tag.
            var attributes: [String: String] = [:]
            var closed = false
            while position < count {
                let byte = bytes[position]
                if byte == UInt8(ascii: ">") {
                    closed = true
                    position += 1
                    break
                }
                if isSpace(byte) || byte == UInt8(ascii: "/") {
                    position += 1
                    continue
                }
                let keyStart = position
                skip(&position) { !isSpace($0) && !"=>/".utf8.contains($0) }
                let key = String(decoding: bytes[keyStart..<position].map(lower), as: UTF8.self)
                skip(&position, while: isSpace)
                var value = ""
                if position < count, bytes[position] == UInt8(ascii: "=") {
                    position += 1
                    skip(&position, while: isSpace)
                    if position < count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") {
                        let quote = bytes[position]
                        let valueStart = position + 1
                        guard let close = bytes[valueStart...].firstIndex(of: quote) else { return (tokens, true) }
                        value = String(decoding: bytes[valueStart..<close], as: UTF8.self)
                        position = close + 1
                    } else {
                        let valueStart = position
                        skip(&position) { !isSpace($0) && $0 != UInt8(ascii: ">") }
                        value = String(decoding: bytes[valueStart..<position], as: UTF8.self)
                    }
                }
                if !key.isEmpty && attributes[key] == nil { attributes[key] = decodeEntities(value) }
            }
            guard closed else { return (tokens, true) }
            index = position
            textStart = index
            if isEnd {
                tokens.append(.end(name: name))
                continue
            }
            tokens.append(.start(name: name, attributes: attributes))
            if name == "script" || name == "style" {
                // Raw text: never page text.
                guard let close = find("</\(name)", from: index, caseInsensitive: true) else { return (tokens, true) }
                guard let tagEnd = find(">", from: close) else { return (tokens, true) }
                tokens.append(.end(name: name))
                index = tagEnd + 1
                textStart = index
            }
        }
        flushText(count)
        return (tokens, false)
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        let lowered = lower(byte)
        return lowered >= UInt8(ascii: "a") && lowered <= UInt8(ascii: "z")
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}", "hellip": "…", "ndash": "–",
        "mdash": "—", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "trade": "™", "reg": "®", "copy": "©",
        "deg": "°", "frac12": "½", "aacute": "á", "eacute": "é", "iacute": "í", "oacute": "ó", "uacute": "ú",
        "agrave": "à", "egrave": "è", "ograve": "ò", "auml": "ä", "euml": "ë", "iuml": "ï", "ouml": "ö", "uuml": "ü",
        "Auml": "Ä", "Ouml": "Ö", "Uuml": "Ü", "Eacute": "É", "szlig": "ß", "ntilde": "ñ", "ccedil": "ç", "acirc": "â",
        "ecirc": "ê", "ocirc": "ô", "aring": "å", "oslash": "ø", "aelig": "æ",
    ]

    /// Decodes `&name;`, `&#NNN;` and `&#xHH;`; anything else stays as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            guard let semicolon = rest[afterAmp...].prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[afterAmp...]
                continue
            }
            let name = rest[afterAmp..<semicolon]
            var decoded: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                decoded = namedEntities[String(name)]
            }
            if let decoded {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[afterAmp...]
            }
        }
        result += rest
        return result
    }
}
