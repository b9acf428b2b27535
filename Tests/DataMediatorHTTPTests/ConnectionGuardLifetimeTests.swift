import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import DataMediatorHTTP

/// A connection's guard, and the handlers it adds, go with their connection: the guard's
/// start watch called back into the guard's own context, which holds the guard, so every
/// connection's guard, watch and context outlived it (about 900 bytes a connection, never
/// given back, a connection opened and closed with nothing sent too: probe 49).
@Suite struct ConnectionGuardLifetimeTests {
    @Test func aClosedConnectionsGuardIsFreed() throws {
        weak var heldGuard: ConnectionGuard?
        weak var heldWatch: RequestStartWatch?
        weak var heldDrain: AnswerDrainGuard?
        weak var heldGate: PipelinedRequestGate?
        let connections = ConnectionCount()
        try {
            let channel = EmbeddedChannel()
            let connectionGuard = ConnectionGuard(
                limits: ServerLimits(),
                maximumBodySize: 1024,
                connections: connections,
                logger: Logger(label: "test")
            )
            heldGuard = connectionGuard
            let gate = PipelinedRequestGate()
            heldGate = gate
            try channel.pipeline.syncOperations.addHandlers([connectionGuard, gate])
            heldWatch = try channel.pipeline.syncOperations.handler(type: RequestStartWatch.self)
            heldDrain = try channel.pipeline.syncOperations.handler(type: AnswerDrainGuard.self)
            #expect(heldWatch != nil)
            #expect(connections.value.load(ordering: .relaxed) == 1)
            _ = try channel.finish(acceptAlreadyClosed: true)
        }()
        #expect(connections.value.load(ordering: .relaxed) == 0)
        #expect(heldGuard == nil, "the guard outlived its connection")
        #expect(heldWatch == nil, "the start watch outlived its connection")
        #expect(heldDrain == nil && heldGate == nil, "a handler outlived its connection")
    }
}
