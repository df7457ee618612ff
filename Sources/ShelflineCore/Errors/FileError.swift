/// Errors about files: opening, reading, writing, and the data inside them.
public enum FileError: ShelflineError, Equatable {
    case missingInput(path: String, reason: String)
    /// An output, its temporary file or its directory.
    case cannotCreate(path: String, reason: String)
    /// A read or write failed part-way.
    case io(path: String, reason: String)
    /// Corrupt gzip, a bad JSON line, an unrecognised CSV.
    case corrupt(path: String, line: Int?, reason: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .missingInput: .noInput
        case .cannotCreate: .cannotCreate
        case .io: .ioError
        case .corrupt: .dataError
        }
    }

    /// One line whatever the path or the quoted input holds (control characters escaped).
    public var description: String {
        let text: String =
            switch self {
            case .missingInput(let path, let reason): "\(path): cannot read input: \(reason)"
            case .cannotCreate(let path, let reason): "\(path): cannot create output: \(reason)"
            case .io(let path, let reason): "\(path): I/O error: \(reason)"
            case .corrupt(let path, let line?, let reason): "\(path):\(line): \(reason)"
            case .corrupt(let path, nil, let reason): "\(path): \(reason)"
            }
        return text.escapingControlCharacters
    }
}

/// Errors in `pipeline.json` or command-line settings derived from it.
public struct ConfigError: ShelflineError, Equatable {
    public var path: String
    public var key: String
    public var expected: String

    public init(path: String, key: String, expected: String) {
        self.path = path
        self.key = key
        self.expected = expected
    }

    public var exitStatus: ExitStatus { .config }
    /// One line whatever the file held: control characters echoed from it are escaped.
    public var description: String { "\(path): key '\(key.escapingControlCharacters)': \(expected.escapingControlCharacters)" }
}

extension String {
    /// Control characters (C0, DEL, C1, line and paragraph separators) as Swift escapes, so text
    /// from an input fits a one-line message.
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isMessageBreaking) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            result += scalar.isMessageBreaking ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return result
    }
}

extension Unicode.Scalar {
    fileprivate var isMessageBreaking: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }
}

/// A run that cannot go on now but may later: locked workspace, paused import.
public struct TryLaterError: ShelflineError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .tryLater }
    public var description: String { message.escapingControlCharacters }
}

/// Bad data that is not tied to one file line: e.g. the rejected share exceeded its threshold.
public struct DataError: ShelflineError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .dataError }
    public var description: String { message.escapingControlCharacters }
}

/// A command line that does not make sense.
public struct UsageError: ShelflineError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var exitStatus: ExitStatus { .usage }
    public var description: String { message }
}

public func systemErrorMessage(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
