import DataMediator
import DataMediatorSQL
import Logging
import Metrics

/// Looks every `interval` for changes to the lists' tables that the service did not make
/// (another program's writes, ``OutsideWrites``): each is recorded at a version of its own,
/// so the lists' change feeds answer a `reload`, and the live streams are woken to send it.
/// A table another program replaced gets its triggers and the lists' indexes again.
struct OutsideWriteWatch: Sendable {
    let transactions: any SQLTransactions
    /// The indexes made for the lists' tables, made again on a replaced table.
    let indexes: TableIndexes
    let notifier: ChangeNotifier
    let interval: Duration
    let logger: Logger

    /// Looks at once, then every interval until the task is cancelled; a failed look is
    /// logged once until one succeeds.
    /// The streams are woken when a change was recorded, or the store's version moved since
    /// the last look (a write this process was not told of: an import into a SQLite store,
    /// say), so they send what the log holds now.
    func run() async {
        var failing = false
        var lastVersion: Int64?
        var noticed = Set<String>()
        var gone = Set<String>()
        // Every series there at 0 from the start, so that an alert on them sees 0, not "no
        // data", until a table changes or a look fails.
        _ = Counter(label: "data_mediator_outside_write_look_errors")
        for table in (try? await OutsideWrites.watchedTables(transactions)) ?? [] {
            _ = Counter(label: "data_mediator_outside_writes", dimensions: [("table", table)])
        }
        // The first look at once: what other programs wrote while the service was down is
        // recorded before a client follows a feed for a whole interval.
        repeat {
            do {
                let look = try await OutsideWrites.check(transactions, indexes: indexes, gone: gone)
                for table in look.gone where !gone.contains(table) {
                    logger.warning(
                        "a list's table is gone (dropped or renamed outside the service): its lists answer 503 until it is back",
                        metadata: ["table": "\(table)"]
                    )
                }
                gone = Set(look.gone)
                for table in look.replaced {
                    logger.notice(
                        "a table was replaced outside the service: its triggers and indexes were made again",
                        metadata: ["table": "\(table)"]
                    )
                }
                if let failure = look.indexFailure {
                    logger.warning(
                        "an index of a replaced table could not be made; it is made at the next start",
                        metadata: ["error": "\(failure)"]
                    )
                }
                if failing { logger.notice("looking for other programs' writes again") }
                failing = false
                for (table, version) in look.recorded {
                    Counter(label: "data_mediator_outside_writes", dimensions: [("table", table)]).increment()
                    // Once a table per run at `info`: a program that writes it steadily would
                    // make a line every interval (the counter counts them).
                    logger.log(
                        level: noticed.insert(table).inserted ? .info : .debug,
                        "a table changed outside the service: its lists' feeds answer a reload",
                        metadata: ["table": "\(table)", "version": "\(version)"]
                    )
                }
                if !look.recorded.isEmpty || (lastVersion != nil && lastVersion != look.version) {
                    notifier.publish()
                }
                lastVersion = look.version
            } catch {
                // Stopped (a shutdown, or a start that failed after the watch began): no failure.
                if Task.isCancelled { return }
                Counter(label: "data_mediator_outside_write_look_errors").increment()
                if !failing {
                    logger.warning(
                        "could not look for other programs' writes; trying again",
                        metadata: ["error": "\(String(reflecting: error))"]
                    )
                }
                failing = true
            }
        } while (try? await Task.sleep(for: interval)) != nil
    }
}
