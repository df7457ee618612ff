/// Writes one JSON object's members in the order given straight into bytes, leaving absent values
/// out: with members in sorted-key order, the bytes `JSONEncoder.shelfline` writes, at a fraction of
/// its cost (it was a third of merge's time).
public struct JSONObjectWriter {
    public var out: [UInt8]
    @usableFromInline var first = true

    @inlinable
    public init(out: [UInt8]) {
        self.out = out
        self.out.append(UInt8(ascii: "{"))
    }

    @inlinable
    public mutating func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Static strings, copied as bytes: appending a String's UTF-8 view goes element by element.
    @inlinable
    public mutating func key(_ name: StaticString) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    @inlinable
    public mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        JSONString.append(value, to: &out)
    }

    @inlinable
    public mutating func strings(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.append(value, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// Keys sorted.
    public mutating func stringMap(_ name: StaticString, _ values: [String: String]?) {
        guard let values else { return }
        key(name)
        out.append(UInt8(ascii: "{"))
        for (index, (key, value)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.append(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONString.append(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    @inlinable
    public mutating func int(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        out.append(contentsOf: String(value).utf8)
    }

    @inlinable
    public mutating func ints(_ name: StaticString, _ values: [Int]) {
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: String(value).utf8)
        }
        out.append(UInt8(ascii: "]"))
    }

    @inlinable
    public mutating func bool(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    @inlinable
    public mutating func double(_ name: StaticString, _ value: Double?) {
        guard let value, value.isFinite else { return }
        key(name)
        if value == value.rounded(), abs(value) < 1e15 {
            out.append(contentsOf: String(Int(value)).utf8)
        } else {
            out.append(contentsOf: String(value).utf8)
        }
    }
}
