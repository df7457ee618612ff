import ShelflineCore

/// Errors of the render stage. Messages never contain the session cookie.
public enum RenderError: ShelflineError, Equatable {
    /// The beer-queue page is neither a queue, the empty queue, nor the login page.
    case unrecognisedPage(source: String, reason: String)
    /// A queue row the parser could not read completely (e.g. no delete link id).
    case malformedRow(source: String, row: Int, reason: String)
    /// The site answered with its login page: the cookie in the credentials file is no longer valid.
    case sessionExpired(credentialsFile: String?)
    /// The queue could not be fetched; the last known queue was kept and marked offline.
    case queueUnavailable(host: String, reason: String)
    /// The credentials file may be read by others.
    case insecureCredentials(path: String, mode: String)
    /// The credentials file holds no usable cookie.
    case invalidCredentials(path: String, reason: String)
    /// A JSON queue file that is not the documented shape.
    case invalidQueueFile(path: String, reason: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .unrecognisedPage, .malformedRow, .invalidQueueFile: .dataError
        case .sessionExpired, .insecureCredentials, .invalidCredentials: .config
        case .queueUnavailable: .tryLater
        }
    }

    public var description: String {
        switch self {
        case .unrecognisedPage(let source, let reason):
            "\(source): not a beer-queue page: \(reason); the previous queue is kept"
        case .malformedRow(let source, let row, let reason):
            "\(source): queued beer \(row): \(reason); the previous queue is kept"
        case .sessionExpired(let path?):
            "the site's session expired (it answered with its login page): log in again and put the new cookie into \(path)"
        case .sessionExpired(nil):
            "the page is the site's login page: the session expired"
        case .queueUnavailable(let host, let reason):
            "\(host)/memberQueues.php: cannot fetch the queue: \(reason); kept the last known queue, marked offline; try again later"
        case .insecureCredentials(let path, let mode):
            "\(path): credentials file has mode \(mode); it must be 0600 (run: chmod 600 \(path))"
        case .invalidCredentials(let path, let reason):
            "\(path): \(reason)"
        case .invalidQueueFile(let path, let reason):
            "\(path): not a beer-queue JSON file: \(reason)"
        }
    }
}
