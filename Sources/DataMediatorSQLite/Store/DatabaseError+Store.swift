import GRDB

/// SQLite's refusals in the terms of the service's store.
extension DatabaseError {
    /// Whether SQLite refused for want of a lock another connection or program holds (its
    /// one writer, or a checkpoint or recovery of the write-ahead log), as opposed to a
    /// statement that cannot run: waiting and trying again may pass.
    public var isBusy: Bool { resultCode == .SQLITE_BUSY || resultCode == .SQLITE_LOCKED }

    /// What a write that found the store's one writer held longer than the busy timeout
    /// says: nothing of it was stored, and a retry may pass.
    public static let busyWriterDetail =
        "another program holds the SQLite store's one writer (an import, or another service writing to the file); "
        + "nothing was written; try again when it is done"

    /// Whether SQLite refused a statement for what it names: a table or column gone since
    /// start-up checked the list (another program dropped or renamed it). SQLite gives such
    /// refusals the generic `SQLITE_ERROR`, told apart by its message.
    var isRefusedStatement: Bool {
        guard resultCode == .SQLITE_ERROR, let message else { return false }
        return message.hasPrefix("no such column") || message.hasPrefix("no such table")
            || message.contains("has no column named")
    }

    /// What a store file the service's user may not write is told.
    static let readOnlyDetail =
        "the service's user may not write it (the file or its folder is read-only); "
        + "the store needs the file, its folder and its -wal and -shm files writable"

    /// What is wrong with a store file SQLite refused to open or read, in the operator's
    /// terms (SQLite's own message names a statement the service ran); nil for other errors.
    var storeFileProblem: String? {
        switch resultCode {
        case .SQLITE_NOTADB:
            "it is not a SQLite database (a file of another kind, or one encrypted); name another file, "
                + "or move this one away to have a new store made"
        case .SQLITE_CORRUPT:
            "the database is damaged (SQLite: \(message ?? "corrupt")); restore it from a backup, "
                + "or move it away to have a new store made"
        case .SQLITE_CANTOPEN:
            "SQLite cannot open it (a folder, or a file or folder the service's user may not read and write)"
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH: Self.readOnlyDetail
        case .SQLITE_FULL:
            "the disk is full"
        default:
            nil
        }
    }
}
