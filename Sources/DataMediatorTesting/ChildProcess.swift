import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program the tests start (the service, curl, the PostgreSQL script), through
/// `posix_spawnp`, its standard output and error written to files.
///
/// Hand-written rather than Foundation's `Process`: on Linux, `Process.run()` crashes now
/// and then, reading past a buffer while it lists `/proc/self/fd` (swift-corelibs-foundation
/// pull request 5472), and a run of the tests starts dozens of processes.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let processIdentifier: pid_t
    /// How it ended, once it has and was reaped.
    private let ending = Mutex<Int32?>(nil)

    /// Starts `program` (a path, or a name looked up in `PATH`) with `arguments`, in
    /// `environment` (this process's when nil), its standard input empty and its standard
    /// output and error appended to the files at those paths (`/dev/null` when nil).
    public init(
        _ program: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        standardOutput: String? = nil,
        standardError: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let written = O_WRONLY | O_CREAT | O_APPEND
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput ?? "/dev/null", written, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardError ?? "/dev/null", written, 0o644)
        // No other descriptor of the tests reaches the child (a pipe's reader would wait
        // for its end forever), as Foundation's `Process` closes them too: glibc's
        // `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module
        // does not declare.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        // The child starts with no signal blocked and every one at its default (the test
        // runner's threads may block some, and a child inherits that).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let result = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw ServerProcessError.exited("cannot start \(program): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    /// Reaps the child when it has ended (once); its exit status, or the signal that ended
    /// it, as Foundation's `terminationStatus` tells them; nil while it runs.
    private func reaped() -> Int32? {
        ending.withLock { ending in
            if let ending { return ending }
            var status: Int32 = 0
            guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return nil }
            // The low seven bits: the signal that ended it (0: it exited, its status above).
            let signal = status & 0x7f
            ending = signal == 0 ? (status >> 8) & 0xff : signal
            return ending
        }
    }

    /// Whether the child still runs.
    public var isRunning: Bool { reaped() == nil }

    /// The child's exit status (or the signal that ended it); -1 while it runs.
    public var terminationStatus: Int32 { reaped() ?? -1 }

    /// Sends the child `SIGTERM`.
    public func terminate() {
        if isRunning { kill(processIdentifier, SIGTERM) }
    }

    /// Waits for the child to end; its ``terminationStatus``.
    public func exit() async -> Int32 {
        while true {
            if let status = reaped() { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// ``exit()`` on the calling thread, for code that cannot wait asynchronously.
    public func waitUntilExit() -> Int32 {
        while true {
            if let status = reaped() { return status }
            usleep(20_000)
        }
    }

    deinit {
        // No zombie is left behind by a test that forgot its child.
        if ending.withLock({ $0 == nil }) {
            var status: Int32 = 0
            _ = waitpid(processIdentifier, &status, WNOHANG)
        }
    }
}
