import DataMediator
import Foundation

extension ListDefinition {
    /// A writable list `name` over a table of the same name, with a revision column `rev`,
    /// its one view by id showing `shown` as cells of `cellType`: the list a store test of
    /// column types writes and reads back.
    static func byID(_ name: String, fields: [String: FieldType], shown: [String], cellType: String) -> ListDefinition {
        ListDefinition(
            name: name,
            title: name.capitalized,
            idField: "id",
            revisionField: "rev",
            views: [
                View(
                    name: "by_id",
                    isDefault: true,
                    sort: [SortKey("id")],
                    idField: "id",
                    cellType: .fixed(cellType),
                    fields: shown
                )
            ],
            isWritable: true,
            rules: FieldRules(types: fields)
        )
    }
}
