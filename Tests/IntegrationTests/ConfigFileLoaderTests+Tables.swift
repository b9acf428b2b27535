import Foundation
import Testing

@testable import data_mediator

/// Config files: rules across lists.
extension ConfigFileLoaderTests {
    /// Writable lists over one table must name the same id and revision (each logs every
    /// write to it): `check` says so from the file, as `serve` would.
    @Test func listsThatWriteOneTableNameTheSameIDAndRevision() throws {
        func config(_ third: String) -> String {
            """
            store:
              sqlite: data.sqlite
            lists:
              t: {table: t, fields: {x: string}, views: {v: {sort: [x]}}}
              u: {table: t, writable: true, fields: {x: string}, views: {v: {sort: [x]}}}
              w: {table: t, writable: true, \(third)fields: {x: string, version: integer}, views: {v: {sort: [x]}}}
            """
        }
        let found = errors(config("revision: version, "))
        #expect(found.map(\.line) == [6], "\(found)")
        #expect(
            found.first?.message
                == "list 'w': table 't' is also written by list 'u', with another 'id' or 'revision'; lists that "
                + "write one table must name the same ones"
        )
        #expect(errors(config("id: x, ")).map(\.line) == [6])
        // The same id and revision (a read-only list over the table names neither): fine.
        #expect(errors(config("")).isEmpty)
    }
}

/// Config files: a list's id and revision fields and its fields' names.
extension ConfigFileLoaderTests {
    /// Fields whose names differ only in case are refused in a SQLite store, whose column
    /// names do not tell them apart (`check` passed them and `serve` failed on "duplicate
    /// column name"); PostgreSQL keeps quoted names apart.
    @Test func fieldsThatDifferOnlyInCaseAreRefusedInASQLiteStore() throws {
        func config(_ store: String, _ fields: String) -> String {
            "\(store)\nlists:\n  t: {table: t, writable: true, fields: {\(fields)}, views: {v: {sort: [a]}}}\n"
        }
        let sqlite = "store:\n  sqlite: data.sqlite"
        let twins = errors(config(sqlite, "a: string, Title: string, title: string"))
        #expect(twins.map(\.line) == [4], "\(twins)")
        #expect(twins.first?.message.contains("fields 'Title' and 'title' differ only in case") == true, "\(twins)")
        // The id field, named or not, and the revision field count too.
        let id = errors(config(sqlite, "ID: integer, a: string"))
        #expect(id.first?.message.contains("fields 'ID' and 'id' differ only in case") == true, "\(id)")
        let revision = errors(config(sqlite, "a: string, Rev: integer"))
        #expect(revision.first?.message.contains("fields 'Rev' and 'rev' differ only in case") == true)
        #expect(errors(config("store: postgres", "a: string, Title: string, title: string")).isEmpty)
        #expect(errors(config(sqlite, "a: string, title: string, Subtitle: string")).isEmpty)
        // A field with an empty name would be a column `""`.
        let empty = errors(config("store: postgres", "a: string, '': string"))
        #expect(empty.map(\.message) == ["list 't' declares a field with an empty name; name it"], "\(empty)")
    }

    /// A revision field declared other than `integer` is refused: every write raises it by
    /// one, and a `boolean` one showed `true` at every revision, so its ETag never moved and
    /// a stale `If-Match` passed.
    @Test(arguments: ["boolean", "string", "number", "json"])
    func aRevisionFieldIsAWholeNumber(type: String) throws {
        let config = """
            store:
              sqlite: data.sqlite
            lists:
              t:
                table: t
                writable: true
                revision: version
                fields: {a: string, version: \(type)}
                views: {v: {sort: [a]}}
            """
        let found = errors(config)
        #expect(found.map(\.line) == [8], "\(found)")
        #expect(
            found.first?.message
                == "list 't': the revision field 'version' is declared '\(type)'; a revision is a whole number "
                + "every write raises by one: declare it 'integer'"
        )
        #expect(errors(config.replacingOccurrences(of: "version: \(type)", with: "version: integer")).isEmpty)
    }
}
