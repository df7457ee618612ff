import CSystemShims
import Foundation

/// A child started with `posix_spawn`, a clean signal mask and default dispositions: Foundation's
/// `Process` passes on the spawner's mask, in which Swift's runtime threads block SIGTERM (the
/// stage could never be paused), and crashes in a process holding ~1,000 descriptors (a busy server).
/// In Core so that `shelfline-push serve` need not link the orchestrator for it.
public struct ChildProcess: Sendable {
    public let pid: pid_t

    public enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Where a child's standard streams go; nil keeps the parent's.
    public struct Redirection {
        public var stdin: Int32?
        public var stdout: Int32?
        public var stderr: Int32?
        /// Descriptors closed in the child (the parent's ends of pipes).
        public var closeInChild: [Int32] = []

        public init(stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil, closeInChild: [Int32] = []) {
            self.stdin = stdin
            self.stdout = stdout
            self.stderr = stderr
            self.closeInChild = closeInChild
        }
    }

    public static func spawn(
        executable: String, arguments: [String], directory: String?, environment: [String: String],
        stdinFromNull: Bool = true, redirection: Redirection? = nil, ownProcessGroup: Bool = false, searchPath: Bool = false
    ) throws
        -> ChildProcess
    {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            // Its own group, so a timeout can kill everything it started (a shell's children too).
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let directory { shelfline_spawn_add_chdir(&actions, directory) }
        if let input = redirection?.stdin {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else if stdinFromNull {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let output = redirection?.stdout { posix_spawn_file_actions_adddup2(&actions, output, 1) }
        if let output = redirection?.stderr { posix_spawn_file_actions_adddup2(&actions, output, 2) }
        for descriptor in redirection?.closeInChild ?? [] { posix_spawn_file_actions_addclose(&actions, descriptor) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result =
            searchPath
            ? posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
            : posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw FileError.missingInput(path: executable, reason: systemErrorMessage(result))
        }
        return ChildProcess(pid: pid)
    }

    /// Without blocking: nil while the child runs.
    public func poll() -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        return Self.decode(status)
    }

    /// A descriptor that polls readable once the child has ended (`pidfd_open`), or -1 where the
    /// kernel has none; the caller closes it.
    public func exitDescriptor() -> Int32 { shelfline_pidfd_open(pid) }

    public func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Self.decode(status)
    }

    public func send(_ signalNumber: Int32) { kill(pid, signalNumber) }

    /// A pipe whose ends are close-on-exec (the child gets only what a redirection dup2s), the
    /// read end non-blocking unless it is to be a child's stdin.
    public static func pipe(nonBlockingRead: Bool = true) -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        if nonBlockingRead { _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    /// Signals the child's whole process group (for a child spawned with `ownProcessGroup`).
    public func sendToGroup(_ signalNumber: Int32) { kill(-pid, signalNumber) }

    public static func decode(_ status: Int32) -> Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}
