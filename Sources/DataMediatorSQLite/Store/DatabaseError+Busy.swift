import GRDB

extension DatabaseError {
    /// Whether SQLite refused for want of a lock another connection or program holds (its
    /// one writer, or a checkpoint or recovery of the write-ahead log), as opposed to a
    /// statement that cannot run: waiting and trying again may pass.
    var isBusy: Bool { resultCode == .SQLITE_BUSY || resultCode == .SQLITE_LOCKED }

    /// What a write that found the store's one writer held longer than the busy timeout
    /// says: nothing of it was stored, and a retry may pass.
    static let busyWriterDetail =
        "another program holds the SQLite store's one writer (an import, or another service writing to the file); "
        + "nothing was written; try again when it is done"
}
