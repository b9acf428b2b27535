import DataMediator
import DataMediatorSQL

extension ImportRecord {
    /// This record, or a bad one when it is more than `limit` bytes as JSON
    /// (`DATA_MEDIATOR_MAX_BODY_BYTES`, the largest write the service takes): an item
    /// imported larger could not be written back as it is read, and a page of such items
    /// costs what that limit bounds for the API's writes (review 106 #5: a 30 MB record was
    /// imported, and its page answered 31 MB).
    ///
    /// It is measured as the body of a write of it back: its fields under `data`, a whole
    /// number of a `number` field shown as such (`1.0`), as `GET` shows it (review 115 #3:
    /// measured as the file held it, a record of exactly the limit imported, and its write
    /// back was 2 bytes over).
    func bounded(by limit: Int, types: [String: FieldType]) -> ImportRecord {
        guard problem == nil else { return self }
        var shown = fields
        for (name, value) in fields { shown[name] = types[name].map { $0.present(value) } ?? value }
        var written = JSONWriter()
        written.write(.object(["data": .object(shown)]))
        guard written.bytes.count > limit else { return self }
        return ImportRecord(
            line: line,
            fields: [:],
            problem: "is \(written.bytes.count) bytes as JSON, more than DATA_MEDIATOR_MAX_BODY_BYTES (\(limit)), the "
                + "largest write the service takes: served, such an item could not be written back; make it smaller, "
                + "or raise the setting (for the service too)"
        )
    }
}
