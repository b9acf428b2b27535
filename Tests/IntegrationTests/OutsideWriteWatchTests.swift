import DataMediator
import DataMediatorSQLite
import DataMediatorTesting
import Foundation
import Logging
import Testing

@testable import data_mediator

/// The watch for other programs' writes stops without a word when its task is cancelled
/// (a shutdown, or a start that failed after it began): a cancelled look is no failure.
@Suite struct OutsideWriteWatchTests {
    @Test func aCancelledWatchStopsWithoutAWarning() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-watch-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore(path: folder.appendingPathComponent("store.sqlite").path)
        let logs = CapturedLogs()
        let watch = OutsideWriteWatch(
            transactions: store.transactions,
            indexes: store.indexes,
            notifier: ChangeNotifier(),
            interval: .seconds(60),
            logger: logs.logger
        )
        let running = Task { await watch.run() }
        running.cancel()
        await running.value
        #expect(!logs.records.contains { $0.level >= .warning }, "\(logs.records)")
    }
}
