import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// A client's read through one replica of the service waits for the client's own write
/// made through another: the write runs for the client's tag (``WriteOrigin``), which its
/// notification carries to every replica (PostgreSQL's do), and each replica keeps it.
@Suite struct ReplicaWriteNotificationTests {
    /// Announces each write it makes, with the tag of the client it was made for, as a
    /// PostgreSQL write's notification on commit does.
    struct AnnouncingWriter: ItemWriter {
        let inner: any ItemWriter
        let notifications: ChangeNotifier
        /// Whether the notification is published with the write; when not, the test
        /// publishes it later (a notification that comes late), from ``written``.
        var announces = true
        /// The version of the latest write.
        let written = ReadYourWrites.WrittenVersion()
        /// The tag of the client the latest write was made for.
        let writer = LatestWriter()

        func announced(_ version: Int64) -> Int64 {
            written.note(version)
            writer.tag.withLock { $0 = WriteOrigin.client }
            if announces { notifications.publish(version: version, writer: WriteOrigin.client) }
            return version
        }

        func insert(
            id: String?,
            fields: [String: JSONValue],
            idempotency: IdempotencyKey?,
            precondition: VersionPrecondition?
        ) async throws -> WriteResult {
            let result = try await inner.insert(
                id: id,
                fields: fields,
                idempotency: idempotency,
                precondition: precondition
            )
            _ = announced(result.version)
            return result
        }

        func replace(
            id: String,
            fields: [String: JSONValue],
            scope: WriteScope?,
            precondition: WritePrecondition?
        ) async throws -> WriteResult {
            let result = try await inner.replace(id: id, fields: fields, scope: scope, precondition: precondition)
            _ = announced(result.version)
            return result
        }

        func patch(
            id: String,
            with patch: JSONValue,
            scope: WriteScope?,
            precondition: WritePrecondition?,
            check: @escaping @Sendable ([String: JSONValue]) throws -> Void
        ) async throws -> WriteResult {
            let result = try await inner.patch(
                id: id,
                with: patch,
                scope: scope,
                precondition: precondition,
                check: check
            )
            _ = announced(result.version)
            return result
        }

        func delete(id: String, scope: WriteScope?, precondition: WritePrecondition?) async throws -> Int64 {
            announced(try await inner.delete(id: id, scope: scope, precondition: precondition))
        }
    }

    /// `notes` written through `writer`, read as `notes` reads.
    static func writing(_ notes: ListAdapter, through writer: any ItemWriter) -> ListAdapter {
        ListAdapter(
            definition: notes.definition,
            provider: notes.provider,
            signer: CursorSigner(secret: [UInt8](repeating: 7, count: 32)),
            writer: writer,
            changeLog: notes.changeLog,
            notifier: notes.notifier
        )
    }

    /// Ana's write of a note through `router`, answered `201`.
    static func anaWrites(through router: Router<ClientContext>) async throws {
        try await Application(router: router).test(.router) { a in try await ReplicaLagTests.anaWrites(with: a) }
    }

    /// Also when the replica written through keeps no writes itself (it has no read
    /// replica): its writes name their client all the same.
    @Test(arguments: [true, false])
    func aClientsReadWaitsForItsWriteThroughAnotherReplica(writerKeepsWrites: Bool) async throws {
        let fixture = try EventReloadTests.Fixture()
        let lag = ReplicaLagTests.Lag(behind: try await fixture.notes.currentVersion())
        // The database's notifications, which every replica of the service hears.
        let notifications = ChangeNotifier()
        let notes = fixture.notes
        let writing = Self.writing(
            notes,
            through: AnnouncingWriter(inner: try #require(notes.writer), notifications: notifications)
        )
        var configuration = HTTPServerConfiguration(writeTokens: ["ana-writes", "bo-writes"])
        configuration.readYourWrites = .seconds(60)
        configuration.writeNotifier = notifications
        var writerConfiguration = configuration
        if !writerKeepsWrites { writerConfiguration.readYourWrites = nil }
        let replicaA = buildRouter(registry: ListRegistry([writing]), configuration: writerConfiguration)
        let lagging = try ReplicaLagTests().lagging(fixture, behind: lag.behind, lag: lag)
        let replicaB = buildRouter(registry: ListRegistry([lagging]), configuration: configuration)
        let ana = ReplicaLagTests.ana
        let bo = ReplicaLagTests.bo
        try await Self.anaWrites(through: replicaA)
        try await Application(router: replicaB).test(.router) { b in
            let others = try await b.execute(uri: "/lists/notes/items", method: .get, headers: bo)
            #expect(others.status == .ok)
            let waitedForOthers = lag.caughtUp.load(ordering: .relaxed)
            #expect(!waitedForOthers, "another client's read waited for the write")
            #expect(try await b.execute(uri: "/lists/notes/items", method: .get, headers: ana).status == .ok)
            let waitedForOwn = lag.caughtUp.load(ordering: .relaxed)
            #expect(waitedForOwn, "the writer's read through another replica did not wait for its write")
        }
    }

    /// The tag of the client a write was made for.
    final class LatestWriter: Sendable {
        let tag = Mutex<String?>(nil)
    }

    /// Whether a request running in another task was answered.
    final class Answered: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// A write is answered once this replica has heard its notification (every replica
    /// hears it at the same moment), so the client's next read through another replica
    /// finds it noted there; a notification that never comes holds the answer only for the
    /// bound.
    @Test func aWriteIsAnsweredOnceItsNotificationIsHeard() async throws {
        let fixture = try EventReloadTests.Fixture()
        let notifications = ChangeNotifier()
        let notes = fixture.notes
        let writer = AnnouncingWriter(
            inner: try #require(notes.writer),
            notifications: notifications,
            announces: false
        )
        let writing = Self.writing(notes, through: writer)
        var configuration = HTTPServerConfiguration(writeTokens: ["ana-writes"])
        configuration.writeNotifier = notifications
        configuration.writeNotificationWait = .seconds(60)
        let router = buildRouter(registry: ListRegistry([writing]), configuration: configuration)
        let answered = Answered()
        try await Application(router: router).test(.live) { client in
            let write = Task {
                let response = try await client.execute(
                    uri: "/lists/notes/items",
                    method: .post,
                    headers: [.authorization: "Bearer ana-writes", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"data": {"title": "mine"}}"#)
                )
                answered.value.store(true, ordering: .releasing)
                return response.status
            }
            while writer.written.version.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            // Committed; its notification has not come, so its answer waits.
            try await Task.sleep(for: .milliseconds(100))
            let early = answered.value.load(ordering: .acquiring)
            #expect(!early, "the write was answered before its notification was heard")
            notifications.publish(version: writer.written.version.load(ordering: .relaxed), writer: "ab")
            #expect(try await write.value == .created)
        }
        // A notification that never comes holds a write's answer for the bound only.
        configuration.writeNotificationWait = .milliseconds(50)
        let bounded = buildRouter(registry: ListRegistry([writing]), configuration: configuration)
        try await Application(router: bounded).test(.router) { client in
            let response = try await client.execute(
                uri: "/lists/notes/items",
                method: .post,
                headers: [.authorization: "Bearer ana-writes", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"data": {"title": "unheard"}}"#)
            )
            #expect(response.status == .created)
        }
    }

    /// Every replica's writes are noted on each, so the memory is bounded: past its size
    /// the writes whose time runs out first go, a client already kept takes no room, and
    /// the newest stay.
    @Test func theWritesKeptAreBounded() {
        let writes = ReadYourWrites(keep: .seconds(60))
        func tag(_ index: Int) -> String { ReadYourWrites.tag(of: "client \(index)") }
        let full = ReadYourWrites.remembered
        for index in 0..<full { writes.note(tag(index), version: Int64(index + 1)) }
        #expect(writes.count == full)
        // A kept client's newer write takes no room and keeps its newest version.
        writes.note(tag(5), version: 9_000)
        writes.note(tag(5), version: 8_000)
        #expect(writes.count == full, "a kept client's write made room")
        #expect(writes.version(for: tag(5)) == 9_000)
        for index in full..<(full + 1_000) { writes.note(tag(index), version: Int64(index + 1)) }
        #expect(writes.count <= full)
        #expect(writes.count > full / 2)
        #expect(writes.version(for: tag(0)) == nil, "the oldest went")
        #expect(writes.version(for: tag(full + 999)) == Int64(full + 1_000), "the newest stayed")
    }

    /// The tag a write carries is a digest of its client, never the credential itself, and
    /// the same on every replica.
    @Test func aClientsTagIsADigestOfIt() {
        let tag = ReadYourWrites.tag(of: "token:ana-writes")
        #expect(WriteOrigin.isTag(tag[...]))
        #expect(tag.count == 24, "12 bytes in hex")
        #expect(tag == ReadYourWrites.tag(of: "token:ana-writes"))
        #expect(tag != ReadYourWrites.tag(of: "token:bo-writes"))
    }
}
