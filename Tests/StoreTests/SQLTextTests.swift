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

    /// A comment's text is no SQL: a `?` in it is no placeholder, and a quote in it opens no
    /// string (`-- don't` made every `?` after it text, so a page's statement failed).
    @Test func placeholdersInCommentsAreNotNumbered() {
        #expect(
            SQL.numbered("SELECT * FROM (SELECT 1 -- don't? \n) AS s WHERE a = ? /* it's ? */ AND b = ?")
                == "SELECT * FROM (SELECT 1 -- don't? \n) AS s WHERE a = $1 /* it's ? */ AND b = $2"
        )
        // `/*/` opens a comment and does not close it; `a - -1` is no comment.
        #expect(SQL.numbered("SELECT /*/ ? */ ?") == "SELECT /*/ ? */ $1")
        #expect(SQL.numbered("SELECT a - -1 FROM t WHERE b = ?") == "SELECT a - -1 FROM t WHERE b = $1")
        #expect(!SQL.hasPlaceholder("SELECT '?' AS a, \"b?\" -- ?\n/* ? */"))
        #expect(SQL.hasPlaceholder("SELECT * FROM t WHERE data ? 'key'"))
        #expect(SQL.hasPlaceholder("SELECT * FROM t -- a\nWHERE a = ?"))
    }
}
