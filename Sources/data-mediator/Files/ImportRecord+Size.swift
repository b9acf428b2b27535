import DataMediator
import DataMediatorSQL

extension ImportRecord {
    /// This record, or a bad one when its fields as JSON are more than `limit` bytes
    /// (`DATA_MEDIATOR_MAX_BODY_BYTES`, the largest write the service takes): an item
    /// imported larger could not be written back as it is read, and a page of such items
    /// costs what that limit bounds for the API's writes (review 106 #5: a 30 MB record was
    /// imported, and its page answered 31 MB).
    func bounded(by limit: Int) -> ImportRecord {
        guard problem == nil else { return self }
        var written = JSONWriter()
        written.write(.object(fields))
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
