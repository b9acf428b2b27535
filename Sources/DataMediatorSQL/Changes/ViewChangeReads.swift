import DataMediator

/// The read of a view's changes from the change log (``SQLChangeLog``), which holds them
/// under two keys (``LoggedViewKeys``): the view's or slice's own, and the registered key
/// under which a replica that does not serve the view logs its `reload`s.
///
/// Each key is read on its own, on the log's primary key (list, view, version), in version
/// order. One read of both keys at once (`view IN (?, ?)`) is served by the index on
/// (list, version), whose order spares a sort: it passes every change the list logged after
/// the version, of every view and slice, so a slice with no change since a version read the
/// list's whole kept history for an empty answer.
enum ViewChangeReads {
    /// The view's changes after a version, at most a number under each key, as a table
    /// aliased `c` with the log's columns (``ChangeItems/joinSQL`` gives it its items), in
    /// no order: the statement using it orders and limits. `condition`, when given, is a
    /// further test of each change (aliased `c`), with no arguments of its own. Its
    /// arguments are ``arguments(list:keys:since:most:)``.
    static func bothKeysSQL(where condition: String? = nil) -> String {
        let test = condition.map { " AND (\($0))" } ?? ""
        func key(_ alias: String) -> String {
            """
            SELECT * FROM (
              SELECT c.list, c.version, c.op, c.item_id, c.item, c.section, c.section_after, c.after, c.old_item
              FROM \(ServiceTables.changes) AS c
              WHERE c.list = ? AND c.view = ? AND c.version > ?\(test)
              ORDER BY c.version LIMIT ?
            ) AS \(alias)
            """
        }
        return "(\(key("own")) UNION ALL \(key("registered"))) AS c"
    }

    /// The arguments of ``bothKeysSQL(where:)``: the changes of `list` under `keys` (the
    /// view's own, then its registered key) after version `since`, at most `most` of each.
    static func arguments(
        list: String,
        keys: (own: String, registered: String),
        since: Int64,
        most: Int64
    ) -> [JSONValue] {
        [keys.own, keys.registered].flatMap { key in
            [.string(list), .string(key), .integer(since), .integer(most)]
        }
    }

    /// The statement of ``SQLChangeLog/changes(of:since:limit:)``: up to a number of a
    /// view's changes after a version, in version order, with their items, within
    /// ``ChangeReadBudget/bytes`` in whole versions: each row's last column names the
    /// first version the read leaves out (``ChangeReadBudget/uncut`` when none). Its
    /// arguments are ``windowArguments(list:keys:since:limit:)``.
    static func windowSQL(_ dialect: SQLDialect) -> String {
        """
        WITH cut AS (
          SELECT COALESCE((\(ChangeReadBudget.firstLeftOutSQL(dialect))), \(ChangeReadBudget.uncut)) AS at
        )
        SELECT c.version, c.op, c.item_id, \(ChangeItems.itemSQL), c.section, c.section_after, c.after,
            \(ChangeItems.oldItemSQL), (SELECT at FROM cut)
        FROM \(bothKeysSQL(where: "c.version < (SELECT at FROM cut)")) \(ChangeItems.joinSQL)
        ORDER BY c.version LIMIT ?
        """
    }

    /// The arguments of ``windowSQL(_:)``: at most `limit` changes of `list` under `keys`
    /// after version `since`.
    static func windowArguments(
        list: String,
        keys: (own: String, registered: String),
        since: Int64,
        limit: Int
    ) -> [JSONValue] {
        let most = Int64(max(0, limit))
        let keyed = arguments(list: list, keys: keys, since: since, most: most)
        return keyed + [.integer(most), .integer(ChangeReadBudget.bytes)] + keyed + [.integer(most)]
    }
}
