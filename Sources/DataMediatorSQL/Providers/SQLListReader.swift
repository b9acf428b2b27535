import DataMediator

/// The reads of a list over a SQL table or read-only query that both stores answer the
/// same way: windows of several index ranges, the items before a position, locating an
/// item, the sections and their counts, and the version of the list's source.
///
/// A store's provider answers a one-range page its own fastest way and leaves the rest to
/// this. Every answer is read in one snapshot of ``SQLTransactions/read(_:)``, so its items,
/// counts and version agree; no read uses `OFFSET`, and only locate and section counts
/// count rows, each on one range of the view's index where there is one.
public struct SQLListReader: Sendable {
    /// The list's name, which its change log is kept under.
    public let listName: String
    /// The store's transactions.
    public let transactions: any SQLTransactions
    /// The store's flavour of SQL.
    public let dialect: SQLDialect
    /// Whether every view has an index on its sort (a table source): only then is finding
    /// a section by a seek cheap; over a query, each seek would read the whole query.
    public let viewsAreIndexed: Bool
    /// The quoted table, or the query as an aliased subquery.
    public let from: String
    /// The columns an item is read with, and how they are laid out and shown.
    public let columns: [String]
    let selectList: String
    /// The layout of the items read.
    public let layout: ItemLayout
    /// How each column is shown (its field's declared type; nil: as stored).
    public let columnTypes: [FieldType?]
    let idField: String
    /// Whether the id column holds whole numbers only (PostgreSQL's typed columns): ids
    /// that are not whole numbers then match nothing.
    public let idIsInteger: Bool
    /// The largest id an integer id column holds (PostgreSQL's `integer` and `smallint`
    /// hold less than 64 bits), which new ids stay within.
    public let idMaximum: Int64
    /// Whether the id column has SQLite's integer affinity, which turns an id compared
    /// with it into a number: one equality then finds either spelling.
    let idColumnHasIntegerAffinity: Bool
    let fieldTypes: [String: FieldType]
    /// The type a written value is cast to, by column (``SQL/placeholder(of:casts:)``):
    /// PostgreSQL's `json` and `jsonb` columns; none on SQLite.
    public let writeCasts: [String: String]
    /// The rules of the columns that hold less than their fields' types say
    /// (``ColumnRule``): PostgreSQL's arrays, narrow integers and bounded text; none on SQLite.
    public let columnRules: [String: ColumnRule]
    /// The `string` fields over columns that keep text reading as a number as that number
    /// (SQLite's NUMERIC affinity: a `DATETIME` column), whose written text a write and an
    /// import read back (``KeptText``); none on PostgreSQL.
    public let numericTextFields: Set<String>
    /// The sequence the id column draws from (PostgreSQL's `serial` and identity columns),
    /// which writes take new ids from and move past the ids they write.
    public let idSequence: IDSequence?
    /// The keyset SQL of the store's dialect and the source's columns.
    public let keyset: KeysetSQL
    /// The keys of the views' changes in the log, for a list over a table.
    let loggedKeys: LoggedViewKeys?
    /// The tables whose writes change the list's items (its own table, and the tables a
    /// query reads as its config's `versions` names them).
    let versionTables: [String]
    /// The window statements of the list's views, built on first use.
    public let windows: WindowQueries
    /// The statement that reads the stamp of the tables the list reads (``TableStamps``);
    /// nil for a query that names none, whose results cannot be kept.
    let stampSQL: String?
    /// The columns that read that stamp and the store's version, in that order.
    let stampAndVersionColumns: String?
    /// The statement that reads that stamp and the store's version together, in one step.
    var stampAndVersionSQL: String? { stampAndVersionColumns.map { "SELECT \($0)" } }
    /// Each view's (and slice's) counts and marks, kept per stamp.
    let outlines = KeptResults<ViewOutline>()
    /// Each view's sections counted while its outline is read, shared per stamp by the
    /// requests that ask meanwhile.
    let counted = KeptResults<SectionCounts>(capacity: 64)
    /// The lookups per view that count while its outline is read; the others wait for it.
    let countingSlots = CountingSlots()
    /// A query list's whole result, kept per stamp.
    let results = KeptResults<KeptQueryResult>(capacity: 1)
    /// Each view (and slice) of a query list's kept result, ordered.
    let keptViews = KeptResults<KeptQueryView>(capacity: 64)

    /// The reads of a list whose items have `columns`, read from `from`.
    ///
    /// - Parameter windows: the statements of windows; they may select more columns after
    ///   the item's (a store's page path reads its version so), which are ignored here.
    public init(
        list listName: String,
        transactions: any SQLTransactions,
        viewsAreIndexed: Bool,
        from: String,
        columns: [String],
        idField: String,
        idIsInteger: Bool,
        idColumnHasIntegerAffinity: Bool = false,
        idMaximum: Int64 = .max,
        fieldTypes: [String: FieldType],
        keyset: KeysetSQL,
        versionTables: [String],
        windows: WindowQueries,
        writeCasts: [String: String] = [:],
        columnRules: [String: ColumnRule] = [:],
        idSequence: IDSequence? = nil,
        loggedKeys: LoggedViewKeys? = nil,
        numericTextFields: Set<String> = []
    ) {
        self.loggedKeys = loggedKeys
        self.numericTextFields = numericTextFields
        self.listName = listName
        self.idColumnHasIntegerAffinity = idColumnHasIntegerAffinity
        self.transactions = transactions
        self.dialect = keyset.dialect
        self.viewsAreIndexed = viewsAreIndexed
        self.from = from
        self.columns = columns
        self.selectList = columns.map(keyset.selected).joined(separator: ", ")
        self.layout = ItemLayout(columns)
        self.columnTypes = columns.map { fieldTypes[$0] }
        self.idField = idField
        self.idIsInteger = idIsInteger
        self.idMaximum = idMaximum
        self.fieldTypes = fieldTypes
        self.writeCasts = writeCasts
        self.columnRules = columnRules
        self.idSequence = idSequence
        self.keyset = keyset
        self.versionTables = versionTables
        self.windows = windows
        let stampSQL = versionTables.isEmpty ? nil : TableStamps.currentSQL(of: versionTables)
        self.stampSQL = stampSQL
        self.stampAndVersionColumns = stampSQL.map { "(\($0)), (\(StoreVersion.currentSQL(keyset.dialect)))" }
    }

    /// The most sections before an item that ``locate(id:in:maximumSectionSeeks:)`` and
    /// ``sectionCounts(of:maximumSections:)`` seek over on the view's index; a view with
    /// more is counted by one grouped query.
    public static let maximumSectionSeeks = 10_000

    // MARK: - Windows

    /// Up to `limit` items after (or from) `start`, read one index range after another in
    /// view order until the window is full, with the version, in one snapshot.
    public func window(of view: View, from start: Position?, inclusive: Bool, limit: Int) async throws -> Window {
        let queries = windows.queries(of: view, from: start, inclusive: inclusive)
        return try await transactions.read { session in
            Window(
                items: try await read(queries, limit: max(0, limit), session),
                version: try await StoreVersion.current(session)
            )
        }
    }

    /// The rows of window statements, one range after another, until `limit` are read.
    public func read(
        _ queries: [(sql: String, arguments: [JSONValue])],
        limit: Int,
        _ session: any SQLSession
    ) async throws -> [Item] {
        var items: [Item] = []
        for query in queries where items.count < limit {
            items += try await fetch(query.sql, query.arguments + [.integer(Int64(limit - items.count))], session)
        }
        return items
    }

    /// Up to `limit` items of `view` strictly before `position`, nearest first, read in
    /// the session's transaction (a write's, to place the item it wrote).
    public func items(
        before position: Position,
        in view: View,
        limit: Int,
        _ session: any SQLSession
    ) async throws -> [Item] {
        try await read(windows.queries(of: view.reversed, from: position, inclusive: false), limit: limit, session)
    }

    /// The last item of `view` before the first item of the section with `key`, nil when
    /// that section is the view's first: one read on the view's index per range, however
    /// long the section is. The view's section field leads its sort (``View/sectionProblem()``).
    public func lastItem(beforeSection key: JSONValue, in view: View, _ session: any SQLSession) async throws -> Item? {
        for query in beforeSectionQueries(key, in: view) {
            if let item = try await fetch(query.sql, query.arguments, session).first { return item }
        }
        return nil
    }

    /// The statements of ``lastItem(beforeSection:in:_:)``, one per index range, in order.
    public func beforeSectionQueries(_ key: JSONValue, in view: View) -> [(sql: String, arguments: [JSONValue])] {
        let (conditions, arguments) = keyset.filter(view)
        let order = " ORDER BY \(keyset.orderBy(view.reversed)) LIMIT 1"
        return keyset.beforeSection(key, in: view).map { range in
            (
                "SELECT \(selectList) FROM \(from)\(SQL.whereClause(conditions + [range.sql]))" + order,
                arguments + range.arguments
            )
        }
    }

    // MARK: - Versions

    /// The version of the list's source now: one statement, outside a transaction (a
    /// composite asks each child for it on every page).
    public func currentVersion() async throws -> Int64 {
        try await transactions.readStatements { session in try await StoreVersion.current(session) }
    }

    /// The store's version at the last write through the API to a table the list reads
    /// (0 when there was none), with the store's version: one statement, outside a
    /// transaction.
    public func lastChange() async throws -> (lastChange: Int64, version: Int64) {
        try await transactions.readStatements { [versionTables] session in
            try await StoreVersion.lastChange(of: versionTables, session)
        }
    }

    // MARK: - Locate

    /// The item with `id` in the view and its place, from counts of the rows before it;
    /// the sections before it are found by at most `maximumSectionSeeks` seeks, else by
    /// one count of the distinct section keys before it.
    public func locate(
        id: String,
        in view: View,
        maximumSectionSeeks: Int = Self.maximumSectionSeeks
    ) async throws -> Location? {
        try await transactions.read { session in
            guard let item = try await item(id: id, in: view, session) else { return nil }
            return try await countedLocation(of: item, in: view, maximumSectionSeeks: maximumSectionSeeks, session)
        }
    }

    /// The item with `id` in the view (its slice and filter), read in the session's snapshot.
    func item(id: String, in view: View, _ session: any SQLSession) async throws -> Item? {
        guard let query = itemQuery(id: id, in: view) else { return nil }
        return try await fetch(query.sql, query.arguments, session).first(where: { isItem($0, id: id) })
    }

    /// The statement that reads the item with `id` in the view (at most two rows, of which
    /// ``isItem(_:id:)`` tells the one); nil when no row can have that id.
    ///
    /// - Parameter extra: columns each row reads after the item's.
    public func itemQuery(id: String, in view: View, extra: String? = nil) -> (sql: String, arguments: [JSONValue])? {
        let (filterConditions, filterArguments) = keyset.filter(view)
        guard let (idCondition, idArguments) = idCondition(id) else { return nil }
        let select = extra.map { "\(selectList), \($0)" } ?? selectList
        let sql = "SELECT \(select) FROM \(from)\(SQL.whereClause(filterConditions + [idCondition])) LIMIT 2"
        return (sql, filterArguments + idArguments)
    }

    /// The one statement that reads the items around the item with `id` in the view
    /// (``WindowQueries/around(of:item:)``); nil when no row can have that id, or when the
    /// view's windows are not one index range.
    public func aroundQuery(id: String, in view: View) -> AroundStatement? {
        guard viewsAreIndexed, let item = idCondition(id) else { return nil }
        return windows.around(of: view, item: item)
    }

    /// The window around the item with `id` from the rows an ``aroundQuery(id:in:)``
    /// statement read, in whatever order they came: those before the item, nearest first,
    /// and those from it, in view order; nil when the item is not among them (not in the
    /// view, or gone).
    ///
    /// The statement reads the side before the item nearest first and then the item and
    /// the side after it in view order; rows that came so are taken as they are, after one
    /// comparison each. Rows in any other order are sorted.
    public func anchored(_ rows: [Item], id: String, in view: View, version: Int64) -> AnchoredWindow? {
        // Each row's position is made once, not in every comparison.
        let positioned = zip(rows, view.positions(of: rows)).map { (row: $0, position: $1) }
        guard let anchor = positioned.firstIndex(where: { isItem($0.row, id: id) }) else { return nil }
        let position = positioned[anchor].position
        let precedes = { (lhs: Position, rhs: Position) in view.compare(lhs, rhs) < 0 }
        let beforeAsRead = (0..<anchor).allSatisfy { index in
            precedes(positioned[index].position, index == 0 ? position : positioned[index - 1].position)
        }
        let fromAsRead = (anchor + 1..<positioned.count).allSatisfy { index in
            precedes(positioned[index - 1].position, positioned[index].position)
        }
        if beforeAsRead, fromAsRead {
            return AnchoredWindow(before: Array(rows[..<anchor]), from: Array(rows[anchor...]), version: version)
        }
        let ordered = positioned.sorted { precedes($0.position, $1.position) }
        let preceding = ordered.prefix { precedes($0.position, position) }.count
        return AnchoredWindow(
            before: ordered[..<preceding].reversed().map(\.row),
            from: ordered[preceding...].map(\.row),
            version: version
        )
    }

    /// Whether a row that ``itemQuery(id:in:)`` read is the item with `id` (an integer id
    /// column may hold either spelling of a number), its id the same bytes (``ExactText``).
    public func isItem(_ item: Item, id: String) -> Bool {
        ExactText(item[idField].idString) == ExactText(id)
    }

    /// The place of `item` (an item of the view) from counts of the rows before it.
    func countedLocation(
        of item: Item,
        in view: View,
        maximumSectionSeeks: Int,
        _ session: any SQLSession
    ) async throws -> Location {
        let (filterConditions, filterArguments) = keyset.filter(view)
        let before = keyset.before(view.position(of: item), in: view)
        let beforeWhere = SQL.whereClause(filterConditions + [before.sql])
        let beforeArguments = filterArguments + before.arguments
        let position = try await count("SELECT COUNT(*) FROM \(from)\(beforeWhere)", beforeArguments, session)
        var sectionIndex = 0
        var itemIndex = position
        if let rule = view.section {
            let stored = rule.key(for: item[rule.field])
            if let sections = try await sectionsBefore(stored, in: view, limit: maximumSectionSeeks, session) {
                sectionIndex = sections
                itemIndex = position - (try await rowsBefore(section: stored, in: view, session))
            } else {
                // Sections are told apart by their id (text), as pages group them.
                let key = "COALESCE(CAST((\(keyset.sectionKey(rule))) AS TEXT), '')"
                let ownKey = "COALESCE(CAST(? AS TEXT), '')"
                sectionIndex = try await count(
                    "SELECT COUNT(DISTINCT \(key)) FROM \(from)\(beforeWhere) AND \(key) <> \(ownKey)",
                    beforeArguments + [stored],
                    session
                )
                itemIndex = try await count(
                    "SELECT COUNT(*) FROM \(from)\(beforeWhere) AND \(key) = \(ownKey)",
                    beforeArguments + [stored],
                    session
                )
            }
        }
        return Location(
            item: item,
            position: position,
            sectionIndex: sectionIndex,
            itemIndex: itemIndex,
            version: try await StoreVersion.current(session)
        )
    }

    /// The condition that selects the row with `id` (ids arrive as text); nil when no row
    /// can have it (not a whole number in a whole-number column).
    private func idCondition(_ id: String) -> (sql: String, arguments: [JSONValue])? {
        let column = SQL.quote(idField)
        let whole = Int64(id).flatMap { String($0) == id ? $0 : nil }
        switch (dialect, idIsInteger) {
        case (.postgres, true):
            return whole.map { ("\(column) = ?", [.integer($0)]) }
        case (.postgres, false) where keyset.uuidColumns.contains(idField):
            // Ids are shown as PostgreSQL writes a uuid; any other spelling names no item.
            guard UUIDText.isCanonical(id) else { return nil }
            return ("\(column) = CAST(? AS uuid)", [.string(id)])
        case (.postgres, false) where keyset.textForms[idField] != nil:
            // A `char(n)` id (read through a text form) is compared as its type, on its key
            // (cast to text, each lookup scanned the table); ``isItem(_:id:)`` sees blanks.
            return ("\(column) = CAST(? AS bpchar)", [.string(id)])
        case (.postgres, false):
            return ("\(column)::text = ?", [.string(id)])
        case (.sqlite, _):
            // A column may hold either spelling of an integer id: match both (a column of
            // integer affinity turns the text into the number itself, and an equality on
            // its own is one seek where the two make a temporary index for the `OR`).
            guard let whole else { return ("\(column) = ?", [.string(id)]) }
            if idColumnHasIntegerAffinity { return ("\(column) = ?", [.integer(whole)]) }
            return ("(\(column) = ? OR \(column) = ?)", [.integer(whole), .string(id)])
        }
    }

    /// The rows of `view` before the first row of the section with `key`, counted on the
    /// view's index one range at a time, without computing any row's section key.
    public func rowsBefore(section key: JSONValue, in view: View, _ session: any SQLSession) async throws -> Int {
        let (conditions, arguments) = keyset.filter(view)
        var rows = 0
        for range in keyset.beforeSection(key, in: view) {
            rows += try await count(
                "SELECT COUNT(*) FROM \(from)\(SQL.whereClause(conditions + [range.sql]))",
                arguments + range.arguments,
                session
            )
        }
        return rows
    }

    // MARK: - Rows

    /// The row whose id column holds `key` (as stored), read as this list reads items; nil
    /// when there is none or it is outside the list's source.
    public func item(withKey key: JSONValue, _ session: any SQLSession) async throws -> Item? {
        let sql =
            "SELECT \(selectList) FROM \(from) WHERE \(SQL.quote(idField)) = "
            + "\(SQL.placeholder(of: idField, casts: writeCasts)) LIMIT 1"
        return try await fetch(sql, [key], session).first
    }

    func fetch(_ sql: String, _ arguments: [JSONValue], _ session: any SQLSession) async throws -> [Item] {
        try await session.items(sql, arguments, layout: layout, types: columnTypes)
    }

    func count(_ sql: String, _ arguments: [JSONValue], _ session: any SQLSession) async throws -> Int {
        Int(try await session.integer(sql, arguments))
    }
}
