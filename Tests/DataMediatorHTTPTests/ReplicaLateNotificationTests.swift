import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import DataMediator
@testable import DataMediatorHTTP

/// A write through one replica of the service is answered once that replica heard its
/// notification; another replica may hear it later, after the client's next read came
/// to it. That read first waits until its replica has heard the notifications up to the
/// primary's version, so it still waits for the client's write (a probe of four
/// processes under load saw such reads answered without the write, one in twenty).
@Suite struct ReplicaLateNotificationTests {
    @Test func aReadWaitsToHearTheWritesAnsweredBeforeItCame() async throws {
        let fixture = try EventReloadTests.Fixture()
        let lag = ReplicaLagTests.Lag(behind: try await fixture.notes.currentVersion())
        let notifications = ChangeNotifier()
        let notes = fixture.notes
        let writer = ReplicaWriteNotificationTests.AnnouncingWriter(
            inner: try #require(notes.writer),
            notifications: ChangeNotifier(),
            announces: false
        )
        let writing = ReplicaWriteNotificationTests.writing(notes, through: writer)
        var configuration = HTTPServerConfiguration(writeTokens: ["ana-writes"])
        configuration.readYourWrites = .seconds(60)
        configuration.writeNotifier = notifications
        // The writing replica heard it (its own notifier, not waited for here).
        var writerConfiguration = configuration
        writerConfiguration.writeNotifier = nil
        configuration.primaryVersion = { writer.written.version.load(ordering: .relaxed) }
        configuration.readNotificationWait = .seconds(60)
        let replicaA = buildRouter(registry: ListRegistry([writing]), configuration: writerConfiguration)
        let lagging = try ReplicaLagTests().lagging(fixture, behind: lag.behind, lag: lag)
        let replicaB = buildRouter(registry: ListRegistry([lagging]), configuration: configuration)
        let ana = ReplicaLagTests.ana
        try await ReplicaWriteNotificationTests.anaWrites(through: replicaA)
        let answered = ReplicaWriteNotificationTests.Answered()
        try await Application(router: replicaB).test(.live) { b in
            let read = Task {
                let response = try await b.execute(uri: "/lists/notes/items", method: .get, headers: ana)
                answered.value.store(true, ordering: .releasing)
                return response.status
            }
            // Replica B has not heard the write: its read waits.
            try await Task.sleep(for: .milliseconds(200))
            let early = answered.value.load(ordering: .acquiring)
            #expect(!early, "the read was answered before its replica heard the write answered before it")
            let tag = try #require(writer.writer.tag.withLock { $0 })
            notifications.publish(version: writer.written.version.load(ordering: .relaxed), writer: tag)
            #expect(try await read.value == .ok)
            let waitedForOwn = lag.caughtUp.load(ordering: .relaxed)
            #expect(waitedForOwn, "the read did not wait for the client's write once heard")
        }
        // A replica that does not hear them in time cannot tell whose writes it missed:
        // every client's read is 503, with Retry-After, not an answer without them.
        _ = try await ReplicaWriteNotificationTests.writing(notes, through: writer).create(
            body: .object(["data": .object(["title": .string("unheard")])]),
            scope: nil
        )
        configuration.readNotificationWait = .milliseconds(50)
        let deaf = buildRouter(registry: ListRegistry([lagging]), configuration: configuration)
        try await Application(router: deaf).test(.router) { b in
            let refused = try await b.execute(uri: "/lists/notes/items", method: .get, headers: ReplicaLagTests.bo)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] == "1")
            #expect(
                String(buffer: refused.body).contains("not yet heard of every write"),
                "\(String(buffer: refused.body))"
            )
            // A read without credentials cannot be a writer's: it has no write of its own
            // to wait for, so it does not look at the primary and is answered.
            let anonymous = try await b.execute(uri: "/lists/notes/items", method: .get)
            #expect(anonymous.status == .ok, "\(String(buffer: anonymous.body))")
        }
    }

    /// The writes a replica did not hear (made before its listener began to listen: at
    /// start, or after its connection was lost) may be any client's: every client's reads
    /// wait for the read replica to hold them, and say so when it does not in time.
    @Test func writesNotHeardHoldEveryClientsReads() async throws {
        let notifications = ChangeNotifier()
        let lag = try await ReplicaLagTests().afterAnasWrite(stuck: true, notifier: notifications) { client, lag in
            notifications.publish(version: lag.behind + 1, writer: WriteOrigin.everyone)
            let bo = ReplicaLagTests.bo
            let refused = try await client.execute(uri: "/lists/notes/items", method: .get, headers: bo)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] == "1")
            let detail = String(buffer: refused.body)
            #expect(detail.contains("the writes made before this server listened for them"), "\(detail)")
            lag.stuck.store(false, ordering: .relaxed)
            #expect(try await client.execute(uri: "/lists/notes/items", method: .get, headers: bo).status == .ok)
        }
        let caughtUp = lag.caughtUp.load(ordering: .relaxed)
        #expect(caughtUp, "another client's read did not wait for the writes not heard")
    }
}
