import DataMediatorSQL
import Testing

/// The SQL text both stores build on.
@Suite struct SQLTextTests {
    @Test func placeholdersAreNumberedOutsideQuotesOnly() {
        #expect(SQL.numbered("SELECT ? FROM t WHERE a = ? AND b > ?") == "SELECT $1 FROM t WHERE a = $2 AND b > $3")
        // A mark inside a quoted name or a string stays, quotes doubled inside them included.
        #expect(
            SQL.numbered(#"SELECT "a?""b", 'it''s ?', ? FROM "t?" WHERE x = ?"#)
                == #"SELECT "a?""b", 'it''s ?', $1 FROM "t?" WHERE x = $2"#
        )
        // Characters of more than one byte pass unchanged; numbering goes on after `offset`.
        #expect(SQL.numbered("SELECT 'é?' , \"ü\" = ?", offset: 9) == "SELECT 'é?' , \"ü\" = $10")
        #expect(SQL.numbered("") == "")
    }
}
