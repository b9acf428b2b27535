// data-mediator-follow: loads the first page of a list and prints every batch update as
// the list changes. A command-line example of DataMediatorClient (see docs/client.md).
//
//   data-mediator-follow http://127.0.0.1:8080 transactions [view] [pages]
import DataMediatorClient
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2, let base = URL(string: arguments[arguments.startIndex]) else {
    print("usage: data-mediator-follow BASE-URL LIST [VIEW] [PAGES]")
    exit(2)
}
let list = arguments[arguments.startIndex + 1]
let view = arguments.count > 2 ? arguments[arguments.startIndex + 2] : nil
let pages = arguments.count > 3 ? Int(arguments[arguments.startIndex + 3]) ?? 1 : 1

let session = ListSession(baseURL: base, configuration: ListSessionConfiguration(list: list, view: view, limit: 20))

/// One line per batch: what changed, then the size of what is shown.
func describe(_ update: ListUpdate) -> String {
    let batch = update.batch
    var parts: [String] = []
    if !batch.insertedSectionIDs.isEmpty { parts.append("+sections \(batch.insertedSectionIDs)") }
    if !batch.deletedSectionIDs.isEmpty { parts.append("-sections \(batch.deletedSectionIDs)") }
    if !batch.insertedItems.isEmpty { parts.append("+items \(batch.insertedItems)") }
    if !batch.deletedItems.isEmpty { parts.append("-items \(batch.deletedItems)") }
    for move in batch.movedItems { parts.append("move \(move.id) \(move.from) -> \(move.to)") }
    if !batch.reloadedItems.isEmpty { parts.append("reload \(batch.reloadedItems)") }
    if !batch.updatedItemIDs.isEmpty { parts.append("updated \(batch.updatedItemIDs)") }
    let snapshot = update.snapshot
    let summary =
        "version \(snapshot.version): \(snapshot.sections.count) sections, \(snapshot.itemCount) items"
        + (snapshot.hasMoreAfter ? ", more after" : "") + (snapshot.hasMoreBefore ? ", more before" : "")
    return ([summary] + parts).joined(separator: "\n  ")
}

do {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            // Unbuffered, so that each batch shows at once even in a pipe.
            for await update in session.updates {
                FileHandle.standardOutput.write(Data((describe(update) + "\n").utf8))
            }
        }
        try await session.loadFirstPage()
        for _ in 1..<max(1, pages) { try await session.loadMore() }
        // Runs until the process is interrupted.
        try await session.follow()
    }
} catch {
    print("data-mediator-follow: \(error)")
    exit(1)
}
