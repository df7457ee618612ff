import Foundation

/// Writes one JSON value per line into a gzip file, published atomically by `commit()`.
public final class NDJSONWriter<Value: Encodable> {
    public let path: String
    private let file: AtomicFile
    private let hashing: HashingSink?
    private let gzip: GzipWriter
    private let encoder: JSONEncoder
    public private(set) var count = 0
    /// Of the committed bytes, when created with `hashing`.
    public private(set) var sha256: String?

    /// `hashing`: hash the bytes as they are written rather than reading the file again.
    public init(
        path: String, level: Int32 = GzipWriter.intermediateLevel, hashing: Bool = false,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws {
        self.path = path
        file = try AtomicFile(path: path)
        self.hashing = hashing ? HashingSink(file) : nil
        gzip = GzipWriter(sink: self.hashing ?? file, path: path, level: level, threads: threads)
        encoder = JSONEncoder.shelfline
    }

    public func append(_ value: Value) throws {
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        try data.withUnsafeBytes { try gzip.write($0) }
        count += 1
    }

    /// A line that is already JSON (no trailing newline).
    public func appendRaw(_ line: UnsafeRawBufferPointer) throws {
        try gzip.write(line)
        try gzip.write(byte: UInt8(ascii: "\n"))
        count += 1
    }

    public func commit() throws {
        try gzip.finish()
        try file.commit()
        sha256 = hashing.map { ContentHash.hex($0.hasher.finalize()) }
    }

    public func abandon() {
        gzip.discard()
        file.abandon()
    }
}

/// Passes bytes on, hashing them (written by one thread at a time, in file order).
private final class HashingSink: ByteSink {
    let file: AtomicFile
    var hasher = SHA256()

    init(_ file: AtomicFile) { self.file = file }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        hasher.update(bufferPointer: bytes)
        try file.write(bytes)
    }
}

/// Reads a gzip NDJSON file one value at a time, naming file and line on any bad line.
public struct NDJSONReader<Value: Decodable> {
    public let path: String
    private let decoder = JSONDecoder()

    public init(path: String) { self.path = path }

    /// Each value with its line number from 1; blank lines are skipped.
    public func forEach(_ body: (Value, Int) throws -> Void) throws {
        let reader = try GzipReader(path: path)
        try reader.forEachLine { bytes, line in
            guard !bytes.isEmpty else { return }
            let value: Value
            do {
                value = try decoder.decode(Value.self, from: Data(bytes))
            } catch {
                throw FileError.corrupt(path: path, line: line, reason: "invalid record: \(describeDecoding(error))")
            }
            try body(value, line)
        }
    }

    /// Only for files known to be small.
    public func readAll() throws -> [Value] {
        var values: [Value] = []
        try forEach { value, _ in values.append(value) }
        return values
    }
}

extension JSONEncoder {
    /// The project's one JSON style: sorted keys (stable bytes), no escaped slashes, compact.
    public static var shelfline: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Like `shelfline`, indented for files people read (reports, snapshots).
    public static var shelflinePretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return encoder
    }
}

public func writeJSONFile(_ value: some Encodable, to path: String, permissions: mode_t = 0o644) throws {
    var data = try JSONEncoder.shelflinePretty.encode(value)
    data.append(UInt8(ascii: "\n"))
    try AtomicFile.write(data, to: path, permissions: permissions)
}

/// A missing file is `FileError.missingInput`, bad JSON `.corrupt`.
public func readJSONFile<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw FileError.missingInput(path: path, reason: "no such file or not readable")
    }
    do {
        return try JSONDecoder().decode(T.self, from: data)
    } catch {
        throw FileError.corrupt(path: path, line: nil, reason: "invalid JSON: \(describeDecoding(error))")
    }
}

/// A short description of a JSON decoding error: which key, what was wrong.
public func describeDecoding(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, _): "missing key '\(key.stringValue)'"
    case DecodingError.typeMismatch(let type, let context):
        "key '\(context.codingPath.map(\.stringValue).joined(separator: "."))' is not \(type)"
    case DecodingError.valueNotFound(_, let context):
        "key '\(context.codingPath.map(\.stringValue).joined(separator: "."))' is null"
    case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
        "key '\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
    case DecodingError.dataCorrupted(let context): "not JSON (\(context.debugDescription))"
    default: "\(error)"
    }
}
