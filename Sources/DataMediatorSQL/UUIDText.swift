import DataMediator

/// The text of a uuid as PostgreSQL writes it and the service shows it: 32 hex digits in
/// small letters, grouped 8-4-4-4-12 by hyphens. Ids of a uuid column are taken in this
/// spelling only, so that one item has one id (PostgreSQL itself also reads capitals,
/// braces and no hyphens as the same uuid).
public enum UUIDText {
    /// Whether `text` is a uuid in the shown spelling.
    public static func isCanonical(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }

    /// The refusal (`invalidItem`) of an id in a uuid column that is not in the shown
    /// spelling; `field` names the id in the write or the record.
    public static func refusal(ofID id: String, field: String) -> DataMediatorError {
        DataMediatorError(
            .invalidItem,
            "Ids of this list are uuids in small letters (8-4-4-4-12 hex digits); '\(id)' is not one.",
            fieldProblems: [
                FieldProblem(field: field, detail: "must be a uuid in small letters (8-4-4-4-12 hex digits)")
            ]
        )
    }

    /// A random (version 4, RFC 9562) uuid in the shown spelling: the id of an item
    /// created without one in a uuid column.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = (generator.next() as UInt64) & ~0xF000 | 0x4000
        let low = (generator.next() as UInt64) & ~(UInt64(0xC) << 60) | (UInt64(0x8) << 60)
        let hex = Array(Hex.id(high, low))
        return String(hex[0..<8]) + "-" + String(hex[8..<12]) + "-" + String(hex[12..<16]) + "-"
            + String(hex[16..<20]) + "-" + String(hex[20..<32])
    }
}
