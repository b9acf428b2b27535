import Foundation
import GRDB

/// The built-in demo's data: a points game (`transactions`) and a catalog (`expansions`),
/// generated deterministically into a new SQLite file.
///
/// Transaction ids run from 1 to the count, and `created_at` grows strictly with the id,
/// so the newest-first view puts the item of id `count - p` at position `p`.
public enum DemoData {
    /// The players of the points game.
    static let players = [
        "ana", "bo", "chen", "dara", "eli", "farah", "gus", "hana", "ivo", "jules",
        "kai", "lena", "milo", "nora", "otto", "pia", "quinn", "rosa", "sami", "tess",
        "uma", "vik", "wren", "xia", "yusuf", "zoe", "arno", "bea", "cyril", "dina",
        "emre", "fleur", "gio", "hugo", "iris", "jonas", "kira", "lior", "maya", "nico",
    ]

    static let reasons: [(String, ClosedRange<Int>)] = [
        ("match won", 5...30), ("quest completed", 10...50), ("daily bonus", 1...5),
        ("achievement", 20...60), ("match lost", 1...3), ("penalty", -20 ... -1),
    ]

    static let categories = ["Campaign", "Character pack", "Map pack", "Soundtrack", "Cosmetics"]
    static let adjectives = ["Frozen", "Sunken", "Burning", "Hidden", "Iron", "Silver", "Shadow", "Golden"]
    static let nouns = ["Isles", "Citadel", "Frontier", "Depths", "Crown", "Harbor"]

    /// Writes the demo to `path` unless a file is already there.
    ///
    /// The data is written to a temporary file first and moved into place at the end, so
    /// an interrupted start never leaves a half-made store behind.
    ///
    /// - Returns: whether the demo was created (false when the file already existed).
    @discardableResult
    public static func create(at path: String, transactions: Int) throws -> Bool {
        let files = FileManager.default
        if files.fileExists(atPath: path) { return false }
        let partial = path + ".partial"
        try? files.removeItem(atPath: partial)
        do {
            let queue = try DatabaseQueue(path: partial)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            }
            try queue.inTransaction { db in
                try createTransactions(count: transactions, in: db)
                try createExpansions(in: db)
                return .commit
            }
            try queue.close()
            try files.moveItem(atPath: partial, toPath: path)
        } catch {
            try? files.removeItem(atPath: partial)
            throw error
        }
        return true
    }

    private static func createTransactions(count: Int, in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE transactions (
                    id INTEGER PRIMARY KEY NOT NULL,
                    player TEXT NOT NULL,
                    points INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    created_at TEXT NOT NULL,
                    rev INTEGER NOT NULL DEFAULT 1
                )
                """
        )
        var random = SplitMix64(seed: 2026)
        // Count back from a fixed instant so the data is the same on every machine.
        var seconds: Int64 = 1_795_129_200 - Int64(count) * 300
        let insert = try db.makeStatement(
            sql: "INSERT INTO transactions (id, player, points, reason, created_at) VALUES (?, ?, ?, ?, ?)"
        )
        for id in 1..<(count + 1) {
            seconds += 60 + Int64(random.next(below: 480))
            let player = players[random.next(below: players.count)]
            let (reason, range) = reasons[random.next(below: reasons.count)]
            let points = range.lowerBound + random.next(below: range.count)
            try insert.execute(arguments: [id, player, points, reason, timestamp(seconds)])
        }
    }

    private static func createExpansions(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE expansions (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    category TEXT NOT NULL,
                    released_on TEXT NOT NULL,
                    price REAL NOT NULL,
                    rev INTEGER NOT NULL DEFAULT 1
                )
                """
        )
        var random = SplitMix64(seed: 7)
        let insert = try db.makeStatement(
            sql: "INSERT INTO expansions (id, name, category, released_on, price) VALUES (?, ?, ?, ?, ?)"
        )
        var number = 0
        for adjective in adjectives {
            for noun in nouns {
                number += 1
                let name = "The \(adjective) \(noun)"
                let id = name.lowercased().replacingOccurrences(of: " ", with: "-")
                let category = categories[random.next(below: categories.count)]
                let day = Int64(random.next(below: 365 * 7))
                let released = String(timestamp(1_546_300_800 + day * 86_400).prefix(10))
                let price = Double(199 + random.next(below: 3_800)) / 100
                try insert.execute(arguments: [id, name, category, released, price])
            }
        }
    }

    /// `seconds` since 1970 as an ISO 8601 UTC timestamp, e.g. `2026-11-19T21:04:00Z`.
    static func timestamp(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        // Civil date from days since the epoch (H. Hinnant's algorithm).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }
}

/// A small, fast, seedable random number generator (SplitMix64), so demo data is the same
/// on every machine and every run.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
