import DataMediator
import Synchronization

/// Request ids (``RequestMiddleware``): the client's when it is one to keep, else new ones.
enum RequestIDs {
    /// The process's random half of new ids, and the count of ids made.
    private static let processPart: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let made = Atomic<UInt64>(0)

    /// A new id of 32 hex digits, without a system call: the process's random half (so ids
    /// are unique across replicas), then the count mixed (SplitMix64's finalizer, a
    /// bijection) so ids do not tell how many requests came.
    static func next() -> String {
        Hex.id(processPart, SplitMix64.mix(made.add(1, ordering: .relaxed).newValue &+ processPart))
    }

    /// The client's id when it is one to keep (1 to 128 letters, digits and `-_.:`), else nil.
    static func accepted(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: ":")
            })
        else { return nil }
        return value
    }
}
