import DataMediatorTesting
import Foundation
import Testing

/// The tests' own process starter (Foundation's `Process.run()` crashes now and then on
/// Linux): a child gets its arguments and environment, its output in a file, none of the
/// tests' other descriptors, and tells how it ended.
@Suite struct ChildProcessTests {
    @Test func aChildRunsWithItsArgumentsAndEnvironmentAndTellsHowItEnded() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("dm-child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        // A descriptor of the tests that is not closed on exec: the child must not have it.
        let open = FileHandle(forReadingAtPath: "/dev/null")
        defer { try? open?.close() }
        let child = try ChildProcess(
            "sh",
            ["-c", "echo \"$1 $GREETING\"; ls /proc/self/fd; exit 3", "sh", "hello"],
            environment: ["GREETING": "world", "PATH": "/usr/bin:/bin"],
            standardOutput: output.path
        )
        #expect(await child.exit() == 3)
        #expect(!child.isRunning)
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "hello world")
        // 0, 1, 2 and the one `ls` reads the folder with.
        #expect(lines.dropFirst().count <= 4, "\(lines)")

        let sleeper = try ChildProcess("sleep", ["30"])
        #expect(sleeper.isRunning)
        sleeper.terminate()
        #expect(await sleeper.exit() == SIGTERM)
    }
}
