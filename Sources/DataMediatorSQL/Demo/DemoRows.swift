import DataMediator

/// The built-in demo's rows, the same on every machine and every run, for any store: a
/// points game (`transactions`) and a catalog (`expansions`).
///
/// Transaction ids run from 1 to the count, and `created_at` grows strictly with the id,
/// so the newest-first view puts the item of id `count - p` at position `p`.
public enum DemoRows {
    /// One transaction.
    public struct Transaction: Sendable {
        /// Its id, from 1.
        public let id: Int64
        /// The player's name.
        public let player: String
        /// Points won or lost.
        public let points: Int64
        /// Why.
        public let reason: String
        /// When, as an ISO 8601 UTC timestamp.
        public let createdAt: String
        /// The game it was played in, 1 to ``games``.
        public let game: Int64
    }

    /// How many games the transactions are spread over.
    public static let games = 12

    /// One expansion of the catalog.
    public struct Expansion: Sendable {
        /// Its id, the name in lower case with dashes.
        public let id: String
        /// Its name.
        public let name: String
        /// Its category.
        public let category: String
        /// Its release day, `YYYY-MM-DD`.
        public let releasedOn: String
        /// Its price.
        public let price: Double
    }

    /// The first `count` transactions, made one at a time (a million of them fit in no
    /// memory budget as an array).
    public static func transactions(count: Int) -> some Sequence<Transaction> {
        var random = SplitMix64(seed: 2026)
        // Count back from a fixed instant so the data is the same on every machine.
        var seconds: Int64 = 1_795_129_200 - Int64(count) * 300
        return (1..<(count + 1)).lazy.map { id in
            seconds += 60 + Int64(random.next(below: 480))
            let player = players[random.next(below: players.count)]
            let (reason, range) = reasons[random.next(below: reasons.count)]
            let points = range.lowerBound + random.next(below: range.count)
            return Transaction(
                id: Int64(id),
                player: player,
                points: Int64(points),
                reason: reason,
                createdAt: timestamp(seconds),
                // From the id alone, so the other fields stay those of every earlier demo.
                game: Int64(1 + SplitMix64.mix(UInt64(id)) % UInt64(games))
            )
        }
    }

    /// The catalog's expansions.
    public static func expansions() -> [Expansion] {
        var random = SplitMix64(seed: 7)
        var expansions: [Expansion] = []
        for adjective in adjectives {
            for noun in nouns {
                let name = "The \(adjective) \(noun)"
                let category = categories[random.next(below: categories.count)]
                let day = Int64(random.next(below: 365 * 7))
                expansions.append(
                    Expansion(
                        id: String(name.lowercased().map { $0 == " " ? "-" : $0 }),
                        name: name,
                        category: category,
                        releasedOn: String(timestamp(1_546_300_800 + day * 86_400).prefix(10)),
                        price: Double(199 + random.next(below: 3_800)) / 100
                    )
                )
            }
        }
        return expansions
    }

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

    /// `seconds` since 1970 as an ISO 8601 UTC timestamp, e.g. `2026-11-19T21:04:00Z`.
    public static func timestamp(_ seconds: Int64) -> String {
        UTCTimestamp.text(milliseconds: seconds * 1000, fraction: false)
    }
}
