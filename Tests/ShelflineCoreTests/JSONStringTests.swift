import Foundation
import ShelflineCore
import Testing

/// The project's one JSON string escaper writes exactly what `JSONEncoder.shelfline` writes.
@Suite struct JSONStringTests {
    static let samples: [String] = [
        "", "plain", "a/b", "quote \" and backslash \\", "tab\tnew\nline\rcr", "\u{8}\u{C}",
        String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }), "\u{7F}",
        "Ünïcødé — 日本語 🦊", String(repeating: "long review text ", count: 40) + "\"end\"",
        "12345678\n12345678\\12345678\u{1}x",
    ]

    @Test(.bug(id: 12), arguments: samples)
    func oneEscaperMatchesJSONEncoder(_ text: String) throws {
        var out: [UInt8] = []
        JSONString.append(text, to: &out)
        let expected = Array(try JSONEncoder.shelfline.encode([text]).dropFirst().dropLast())
        #expect(out == expected, "\(String(decoding: out, as: UTF8.self)) vs \(String(decoding: expected, as: UTF8.self))")
        #expect(try JSONDecoder().decode(String.self, from: Data(out)) == text)
    }

    @Test(.bug(id: 12)) func everyByteAtEveryOffsetOfTheWordScan() throws {
        // Each ASCII byte at each position of an 8-byte word, so the word-at-a-time scan cannot skip one.
        for byte in UInt8(0)..<0x80 {
            for offset in 0..<9 {
                let text = String(repeating: "x", count: offset) + String(Unicode.Scalar(byte)) + String(repeating: "y", count: 9)
                var out: [UInt8] = []
                JSONString.append(text, to: &out)
                #expect(out == Array(try JSONEncoder.shelfline.encode([text]).dropFirst().dropLast()))
            }
        }
    }
}
