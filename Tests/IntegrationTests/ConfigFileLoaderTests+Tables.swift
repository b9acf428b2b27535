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
