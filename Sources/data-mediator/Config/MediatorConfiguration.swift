import DataMediator
import DataMediatorSQL
import DataMediatorSQLite

/// Where a config's lists are stored.
enum StoreLocation: Sendable, Hashable {
    /// A SQLite file, its path resolved against the config file's folder.
    case sqlite(String)
    /// The PostgreSQL database of `DATA_MEDIATOR_DATABASE_URL` (reads from
    /// `DATA_MEDIATOR_DATABASE_READ_URL` when set), shared by every replica.
    case postgres
}

/// What a config file declares: the store and the lists.
struct MediatorConfiguration: Sendable {
    /// Where the lists are stored.
    let store: StoreLocation
    /// The lists over the store, in file order.
    let lists: [ListConfiguration]
    /// The composite lists, in file order.
    let composites: [CompositeConfiguration]
    /// Every list's name, in file order (the order `GET /lists` answers).
    let order: [String]

    /// The lists, those over a table first: a query list may read the table another list
    /// makes, wherever the config puts either (the registry keeps the config's order).
    var preparationOrder: [ListConfiguration] {
        let tables = lists.filter { $0.source?.isTable == true }
        return tables + lists.filter { $0.source?.isTable != true }
    }
}

/// One declared list: its definition for the core, its source for the store, and where
/// it stands in the file (for errors found later, e.g. a missing column).
struct ListConfiguration: Sendable {
    /// The list as the core sees it.
    let definition: ListDefinition
    /// Its table or query in the store; nil for a list over a file.
    let source: StoreSource?
    /// The JSON, NDJSON or CSV file it is read from (resolved against the config's folder);
    /// nil for a list in the store.
    let file: String?
    /// Its declared fields and their types (the id's included).
    let fieldTypes: [String: FieldType]
    /// The line of its declaration.
    let line: Int

    /// This list with the cursor keys of the other lists over its table among its field
    /// rules: an item written through it is paged through them too, and their cursors
    /// carry its text. Lists over a query or a file are as they are.
    func sharingCursorKeys(among lists: [ListConfiguration]) -> ListConfiguration {
        guard case .table(let table)? = source?.kind else { return self }
        let others = lists.filter { other in
            guard case .table(let name)? = other.source?.kind else { return false }
            return name == table && other.definition.name != definition.name
        }
        guard !others.isEmpty else { return self }
        let keys = others.flatMap { ListDefinition.cursorKeys(of: $0.definition.views, idField: $0.definition.idField) }
        return ListConfiguration(
            definition: definition.sharing(cursorKeys: keys),
            source: source,
            file: file,
            fieldTypes: fieldTypes,
            line: line
        )
    }
}

/// One declared composite list: its children, each naming a list (resolved when the
/// service is wired) or holding a static section.
struct CompositeConfiguration: Sendable {
    /// One child, in the composite's order.
    struct Child: Sendable {
        /// What the child shows.
        enum Content: Sendable {
            /// A static section: its id, title and cells.
            case section(id: String, title: String?, cells: [Cell])
            /// A view (nil: the default) of the list with this name, narrowed to the slice
            /// of the fixed parameter values (by parameter name, as a query string gives them).
            case list(String, view: String?, parameters: [String: String])
        }

        /// The child's name (the prefix of its ids).
        let name: String
        /// What it shows.
        let content: Content
        /// At most this many items; nil for all.
        let cap: Int?
        /// Whether a `more` cell follows a capped child that has more.
        let more: Bool
        /// The line of its declaration.
        let line: Int
        /// The column of its declaration, where an error about it points.
        let column: Int
    }

    /// The composite's name.
    let name: String
    /// Its title.
    let title: String
    /// The name of its one view.
    let viewName: String
    /// Its page sizes.
    let limits: PageLimits
    /// Its children, in order.
    let children: [Child]
    /// The line of its name.
    let line: Int
    /// The column of its name.
    let column: Int

    /// The names of the lists its children show.
    var listNames: [String] {
        children.compactMap { child in
            if case .list(let name, _, _) = child.content { return name }
            return nil
        }
    }
}
