import Foundation

/// The built-in demo's config: the same format an operator writes, served when no config
/// is given, with its store in the data folder.
enum DemoConfig {
    /// The store file's name inside the data folder.
    static let storeFile = "demo-3.sqlite"

    /// The demo's YAML over the PostgreSQL store (`DATA_MEDIATOR_DATABASE_URL`): the same
    /// lists, and a high-score sum in PostgreSQL's words (exact, then held to 64 bits).
    static let postgresYAML =
        yaml
        .replacingOccurrences(of: "store:\n  sqlite: \(storeFile)", with: "store: postgres")
        .replacingOccurrences(of: sqliteScoreSum, with: postgresScoreSum)

    /// The high scores' sum on SQLite: `TOTAL` adds in floating point, so no set of points
    /// a client writes makes it fail as `SUM`'s integer overflow would, for every reader.
    static let sqliteScoreSum = "CAST(TOTAL(points) AS INTEGER)"
    /// The same on PostgreSQL: `SUM` of a `bigint` is exact (`numeric`), held to 64 bits.
    static let postgresScoreSum =
        "CAST(LEAST(GREATEST(SUM(points), -9223372036854775808), 9223372036854775807) AS BIGINT)"

    /// The demo's YAML.
    static let yaml = """
        store:
          sqlite: demo-3.sqlite
        lists:
          transactions:
            title: Transactions
            table: transactions
            id: id
            revision: rev
            writable: true
            required: &transaction_required [player, points, reason, created_at]
            fields: &transaction_fields
              id: integer
              player: string
              points: integer
              reason: string
              created_at: string
              game: integer
            limit: {default: 20, max: 100}
            views:
              chronological:
                default: true
                sort: [-created_at, -id]
                section: {field: created_at, by: day}
                cell: transaction
              by_player:
                sort: [player, -created_at, -id]
                section: player
                cell: transaction
                params: {player: player}
              feed:
                sort: [-created_at, -id]
                cell: transaction
              game:
                sort: [-created_at, -id]
                section: {field: created_at, by: day}
                cell: transaction
                params: {game: {field: game, required: true}}
          mine:
            title: My transactions
            table: transactions
            id: id
            revision: rev
            writable: true
            scope: {field: player, claim: sub}
            required: *transaction_required
            fields: *transaction_fields
            limit: {default: 20, max: 100}
            views:
              chronological:
                default: true
                sort: [-created_at, -id]
                section: {field: created_at, by: day}
                cell: transaction
                params: {game: game}
          highscore:
            title: High scores
            query: >-
              SELECT player, \(sqliteScoreSum) AS points, COUNT(*) AS transactions, MAX(created_at) AS last_played
              FROM transactions GROUP BY player
            versions: [transactions]
            id: player
            fields:
              player: string
              points: integer
              transactions: integer
              last_played: string
            limit: {default: 10, max: 50}
            views:
              top:
                sort: [-points, player]
                cell: score
                fields: [player, points, transactions, last_played]
          expansions:
            title: Expansions
            table: expansions
            revision: rev
            fields:
              id: string
              name: string
              category: string
              released_on: string
              price: number
            limit: {default: 10, max: 50}
            views:
              by_category:
                default: true
                sort: [category, name]
                section: category
                cell: expansion
              chronological:
                sort: [-released_on, name]
                section: {field: released_on, by: year}
                cell: expansion
          home:
            title: Home
            limit: {default: 10, max: 50}
            compose:
              - name: welcome
                title: Welcome
                items:
                  - id: hello
                    type: banner
                    data: {text: Welcome to the data-mediator demo, href: /lists}
              - name: top
                list: highscore
                limit: 5
              - name: recent
                list: transactions
                view: chronological
                limit: 3
                more: true
              - name: catalog
                list: expansions
        """
}
