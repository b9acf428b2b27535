import DataMediatorTesting
import Foundation
import GRDB
import Glibc
import Synchronization
import Testing

/// What an operator sends and runs: SIGHUP without a key set to reload, `healthcheck`
/// against a server that trickles its answer or listens on IPv6, and `serve` on an address
/// or port it may not take.
@Suite struct OperatorSignalTests {
    /// SIGHUP's default action ends a process at once, without the graceful shutdown; the
    /// service takes it, logs it and goes on.
    @Test func sighupWithoutAKeySetIsLoggedAndTheServiceGoesOn() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "10"])
        defer { server.removeData() }
        kill(server.process.processIdentifier, SIGHUP)
        var logged = false
        for _ in 0..<50 where !logged {
            try await Task.sleep(for: .milliseconds(100))
            logged = server.log.contains("SIGHUP: nothing to reload")
        }
        #expect(logged, "\(server.log)")
        #expect(server.log.contains("the config and the environment are read at start"), "\(server.log)")
        #expect(server.process.isRunning)
        #expect(try await server.get("/health").status == 200)
        #expect(await server.stop() == 0)
    }

    /// A SIGHUP while the service starts (its demo made, its indexes built: seconds on a
    /// large store) is taken too: before the service watched for it, its default action
    /// ended the process (review 110 #3: exit 129, nothing logged).
    @Test func sighupWhileStartingDoesNotEndTheService() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dm-it-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = try ChildProcess(
            ServerProcess.binary.path,
            ["serve", "--port", "0", "--data-dir", directory.path, "--demo-transactions", "200000"],
            environment: ProcessInfo.processInfo.environment,
            standardError: directory.appendingPathComponent("server.log").path
        )
        defer { process.terminate() }
        // The demo of 200,000 transactions takes seconds to make: the signal comes during it.
        try await Task.sleep(for: .milliseconds(300))
        kill(process.processIdentifier, SIGHUP)
        try await Task.sleep(for: .milliseconds(500))
        #expect(process.isRunning, "exit status \(process.terminationStatus)")
    }

    /// A second SIGINT or SIGTERM during a shutdown held up by a request in flight (a write
    /// whose body has not come) ends the process at once, not after the grace period.
    @Test func aSecondStopSignalEndsTheShutdownAtOnce() async throws {
        let server = try await ServerProcess(
            arguments: ["--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_WRITE_TOKENS": "t", "DATA_MEDIATOR_SHUTDOWN_GRACE_SECONDS": "60"]
        )
        defer { server.removeData() }
        let slow = try RawClient(port: server.port)
        slow.send(
            RawClient.transactionWrite(length: 100) + "{"
        )
        try await Task.sleep(for: .milliseconds(300))
        kill(server.process.processIdentifier, SIGTERM)
        try await Task.sleep(for: .seconds(1))
        #expect(server.process.isRunning, "the write in flight did not hold the shutdown up")
        let start = ContinuousClock.now
        kill(server.process.processIdentifier, SIGINT)
        let status = await server.process.exit()
        #expect(status == 1 && ContinuousClock.now - start < .seconds(10), "\(status)")
        #expect(server.log.contains("a second stop signal during the shutdown"), "\(server.log)")
        withExtendedLifetime(slow) {}
    }

    /// `/ready` is 503 while the store's file is gone (moved away under the service) or
    /// another file that is no database is in its place, and 200 again once it is back:
    /// the pool's open connections do not hide it.
    @Test func readyLooksAtTheStoresFileItself() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "500"])
        defer { server.removeData() }
        let file = server.dataDirectory.appendingPathComponent("demo-3.sqlite")
        let aside = server.dataDirectory.appendingPathComponent("aside.sqlite")
        /// `/ready`'s status once it is `expected` (it looks at most once a second), or its last.
        func ready(becoming expected: Int) async throws -> Int {
            var status = 0
            for _ in 0..<30 {
                status = try await server.get("/ready").status
                if status == expected { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            return status
        }
        #expect(try await ready(becoming: 200) == 200)
        try FileManager.default.moveItem(at: file, to: aside)
        #expect(try await ready(becoming: 503) == 503, "ready with the store's file moved away")
        try FileManager.default.moveItem(at: aside, to: file)
        #expect(try await ready(becoming: 200) == 200, "not ready with the file back")
        // A file that is no database where the store's was.
        try FileManager.default.moveItem(at: file, to: aside)
        try Data(repeating: 0xA5, count: 64 * 1024).write(to: file)
        #expect(try await ready(becoming: 503) == 503, "ready with another file in the store's place")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.moveItem(at: aside, to: file)
        #expect(try await ready(becoming: 200) == 200, "not ready with the file back")
        #expect(await server.stop() == 0)
    }

    /// A column a list reads, dropped by another program while the service serves it:
    /// `/ready` is 503 naming the list and the column, the list's pages are a `not-ready`
    /// problem (not an unexplained 500), and both pass again once the column is back.
    @Test func readyNamesAColumnAnotherProgramDropped() async throws {
        let server = try await ServerProcess(arguments: ["--demo-transactions", "50"])
        defer { server.removeData() }
        let file = server.dataDirectory.appendingPathComponent("demo-3.sqlite").path
        func alter(_ sql: String) throws {
            try DatabaseQueue(path: file).write { db in try db.execute(sql: sql) }
        }
        func ready(becoming expected: Int) async throws -> (status: Int, body: String) {
            var answer = (status: 0, body: "")
            for _ in 0..<30 {
                let got = try await server.get("/ready")
                answer = (got.status, String(decoding: got.body, as: UTF8.self))
                if answer.status == expected { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            return answer
        }
        #expect(try await ready(becoming: 200).status == 200)
        try alter("ALTER TABLE transactions DROP COLUMN reason")
        let notReady = try await ready(becoming: 503)
        #expect(notReady.status == 503)
        #expect(
            notReady.body.contains("List 'transactions'") && notReady.body.contains("no column 'reason'"),
            "\(notReady.body)"
        )
        let page = try await server.get("/lists/transactions/items")
        let problem = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 503 && problem.contains("/problems/not-ready"), "\(page.status) \(problem)")
        try alter("ALTER TABLE transactions ADD COLUMN reason TEXT NOT NULL DEFAULT 'back'")
        #expect(try await ready(becoming: 200).status == 200)
        #expect(try await server.get("/lists/transactions/items").status == 200)
        #expect(await server.stop() == 0)
    }

    /// A listener on `host` that answers each connection with `answer` (a byte every 0.2 s
    /// when `trickle`), and keeps what it was sent; its port.
    final class Listener: @unchecked Sendable {
        let port: Int
        private let socket: Int32
        private let received = Received()

        /// What the listener was sent, and how long its client stayed from its connection to
        /// its close (seen as the listener's next send failing).
        final class Received: Sendable {
            let text = Mutex<String>("")
            let stayed = Mutex<Duration?>(nil)
        }

        var request: String { received.text.withLock { $0 } }
        var stayed: Duration? { received.stayed.withLock { $0 } }

        init(ipv6: Bool, answer: String, trickle: Bool) throws {
            let socket = Glibc.socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.socket = socket
            var storage = sockaddr_storage()
            var length: socklen_t
            if ipv6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_addr = in6addr_loopback
                length = socklen_t(MemoryLayout<sockaddr_in6>.size)
                withUnsafeBytes(of: address) { bytes in
                    withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
                }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                length = socklen_t(MemoryLayout<sockaddr_in>.size)
                withUnsafeBytes(of: address) { bytes in
                    withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
                }
            }
            let bound = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 && listen(socket, 4) == 0
                }
            }
            try #require(bound)
            port = withUnsafeBytes(of: storage) { bytes in
                Int(UInt16(bigEndian: bytes.load(fromByteOffset: 2, as: UInt16.self)))
            }
            let received = self.received
            Thread.detachNewThread {
                let client = accept(socket, nil, nil)
                guard client >= 0 else { return }
                let accepted = ContinuousClock.now
                defer {
                    received.stayed.withLock { $0 = ContinuousClock.now - accepted }
                    close(client)
                }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                received.text.withLock { $0 = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) }
                for byte in answer.utf8 {
                    guard withUnsafeBytes(of: byte, { send(client, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }) == 1
                    else { return }
                    if trickle { usleep(200_000) }
                }
            }
        }

        deinit { close(socket) }
    }

    /// `--timeout` bounds the whole exchange: a server that sends a byte every 0.2 s (a
    /// status line that takes a minute) is given up on in time.
    @Test func healthcheckGivesUpOnATrickledAnswerInItsTime() async throws {
        let listener = try Listener(ipv6: false, answer: String(repeating: "H", count: 300), trickle: true)
        let (status, says) = try await DemoWalkTests.run([
            "healthcheck", "--port", "\(listener.port)", "--timeout", "1",
        ])
        #expect(status == 1 && says.contains("no whole answer in time"), "\(says)")
        // A minute of bytes; the check stayed about its second (timed from its connection:
        // a loaded machine may take a while to start the process).
        var stayed = listener.stayed
        for _ in 0..<50 where stayed == nil {
            try await Task.sleep(for: .milliseconds(100))
            stayed = listener.stayed
        }
        #expect(try #require(stayed) < .seconds(5), "stayed \(String(describing: stayed))")
        withExtendedLifetime(listener) {}
    }

    /// An IPv6 address is sent in brackets, with the port (RFC 9110 7.2), given bare or
    /// bracketed.
    @Test(arguments: ["::1", "[::1]"])
    func healthcheckNamesAnIPv6HostInBrackets(host: String) async throws {
        let listener = try Listener(ipv6: true, answer: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", trickle: false)
        let (status, says) = try await DemoWalkTests.run(
            ["healthcheck", "--host", host, "--port", "\(listener.port)"]
        )
        #expect(status == 0, "\(says)")
        #expect(listener.request.contains("Host: [::1]:\(listener.port)\r\n"), "\(listener.request)")
    }

    /// An address this machine does not have is named with the fix, not the socket call's text.
    @Test func anAddressOfAnotherMachineIsNamedWithItsFix() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-bind-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, says) = try await DemoWalkTests.run(
            ["serve", "--port", "0", "--data-dir", folder.path, "--demo-transactions", "10"],
            environment: ["DATA_MEDIATOR_CONFIG": "", "DATA_MEDIATOR_HOST": "192.0.2.1"]
        )
        #expect(status == 1 && says.contains("the address is not one of this machine's"), "\(says)")
        #expect(!says.contains("bind(descriptor"), "\(says)")
    }
}
