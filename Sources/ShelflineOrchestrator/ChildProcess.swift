#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore
import CSystemShims

/// A stage process started with `posix_spawn`, with a clean signal mask and default signal
/// dispositions. Foundation's `Process` passes on the spawning thread's mask, in which Swift's
/// runtime threads block SIGTERM, so a stage started that way could never be paused.
struct ChildProcess {
    let pid: pid_t

    /// How a child ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    static func spawn(executable: String, arguments: [String], directory: String, environment: [String: String],
                      stdinFromNull: Bool = true) throws -> ChildProcess {
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        shelfline_spawn_add_chdir(&actions, directory)
        if stdinFromNull { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw FileError.missingInput(path: executable, reason: systemErrorMessage(result))
        }
        return ChildProcess(pid: pid)
    }

    /// The termination if the child has ended, without blocking.
    func poll() -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        return Self.decode(status)
    }

    /// Waits for the child to end.
    func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Self.decode(status)
    }

    func send(_ signalNumber: Int32) { kill(pid, signalNumber) }

    static func decode(_ status: Int32) -> Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}
