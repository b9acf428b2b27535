import DataMediator
import DataMediatorSQL
import DataMediatorSQLite
import Foundation
import Yams

/// Reads and checks a YAML config file.
///
/// Every error found is collected, each with its line and a fix, so one run of
/// `data-mediator check` shows them all. Unknown keys are errors: a misspelt option must
/// never be silently ignored.
struct ConfigFileLoader {
    /// The path shown in errors.
    let file: String
    /// The folder relative store paths are resolved against.
    let baseDirectory: String

    var errors: [ConfigFileError] = []
    /// Whether the store is a SQLite file, whose own tables' names begin `sqlite_`.
    var storeIsSQLite = false

    /// Creates a loader for `file`; relative paths in it are resolved against its folder.
    init(file: String, baseDirectory: String? = nil) {
        self.file = file
        self.baseDirectory = baseDirectory ?? URL(fileURLWithPath: file).deletingLastPathComponent().path
    }

    /// The most bytes a config file may hold: far more than any real config, and a bound on
    /// what a device or an endless pipe named by mistake (`/dev/zero`) makes the loader read.
    static let maximumBytes = 32 << 20

    /// Reads the file from disk (or a pipe: `--config <(envsubst < lists.yaml)`) and checks it.
    static func load(path: String) throws(ConfigFileErrors) -> MediatorConfiguration {
        func refusal(_ message: String) -> ConfigFileErrors {
            ConfigFileErrors(errors: [ConfigFileError(file: path, line: 0, column: 0, message: message)])
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw refusal("the file does not exist; check the path")
        }
        guard !isDirectory.boolValue else { throw refusal("is a folder; name the config file in it") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw refusal("cannot read the file; check its permissions")
        }
        defer { try? handle.close() }
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                data.append(chunk)
                guard data.count <= maximumBytes else {
                    throw refusal("the file holds more than \(maximumBytes >> 20) MiB; is it the config file?")
                }
            }
        } catch let error as ConfigFileErrors {
            throw error
        } catch {
            throw refusal("cannot read the file: \(error.localizedDescription)")
        }
        // A pipe's folder (/dev/fd, /proc/self/fd) holds none of the config's files: its
        // relative paths are the working directory's.
        let regular =
            (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
        var loader = ConfigFileLoader(
            file: path,
            baseDirectory: regular ? nil : FileManager.default.currentDirectoryPath
        )
        // A byte order mark (some editors write one) is not YAML's to read.
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let text = data.starts(with: bom) ? data.dropFirst(bom.count) : data[...]
        // Bytes that are not UTF-8 (a file saved as Latin-1) would be read as U+FFFD: a
        // table named so would be made anew, empty, beside the one meant.
        guard let decoded = String(validating: text, as: UTF8.self) else {
            let line = UTF8Check.firstBadLine(in: text) ?? 0
            throw ConfigFileErrors(errors: [
                ConfigFileError(
                    file: path,
                    line: line,
                    column: 0,
                    message: "the file is not UTF-8 text; save it as UTF-8"
                )
            ])
        }
        return try loader.parse(decoded)
    }

    /// Checks YAML text and returns what it declares.
    ///
    /// - Throws: ``ConfigFileErrors`` with every error found.
    mutating func parse(_ text: String) throws(ConfigFileErrors) -> MediatorConfiguration {
        errors = []
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigFileErrors(errors: [syntaxError(error)])
        }
        if let root, Self.expandsTooFar(root, textBytes: text.utf8.count) {
            fail(
                root,
                "the file's aliases repeat far more than it holds (YAML aliases repeat what they name); write less"
            )
            throw ConfigFileErrors(errors: errors)
        }
        if let root { refuseTags(in: root) }
        guard errors.isEmpty, let root, let top = mapping(root, allowed: ["store", "lists"], what: "the config file")
        else {
            if errors.isEmpty {
                fail(root, "the file is empty; it needs 'store:' and 'lists:' (see docs/configuration.md)")
            }
            throw ConfigFileErrors(errors: errors)
        }
        let store = parseStore(top["store"], parent: root)
        if case .sqlite? = store { storeIsSQLite = true }
        var lists: [ListConfiguration] = []
        var composites: [CompositeConfiguration] = []
        var order: [String] = []
        if let listsNode = require(
            top["lists"],
            in: root,
            key: "lists",
            fix: "declare at least one list under 'lists:'"
        ),
            let entries = entries(of: listsNode, what: "'lists'")
        {
            if entries.isEmpty { fail(listsNode, "'lists' is empty; declare at least one list") }
            for (name, keyNode, node) in entries {
                order.append(name)
                if case .mapping(let mapping) = node, mapping["compose"] != nil {
                    if let composite = parseComposite(name: name, at: keyNode, node: node) {
                        composites.append(composite)
                    }
                } else if let list = parseList(name: name, at: keyNode, node: node) {
                    lists.append(list)
                }
            }
            checkComposites(composites, lists: lists, declared: Set(order))
            checkWrittenTables(lists)
            checkScopedTables(lists)
            lists = lists.map { $0.sharingCursorKeys(among: lists) }
        }
        guard errors.isEmpty, let store else {
            throw ConfigFileErrors(errors: errors.sorted { ($0.line, $0.column) < ($1.line, $1.column) })
        }
        return MediatorConfiguration(store: store, lists: lists, composites: composites, order: order)
    }

    /// Every writable list over a table logs every write to it, whichever list took it:
    /// lists that write one table must agree on the row's id and revision.
    private mutating func checkWrittenTables(_ lists: [ListConfiguration]) {
        var writers: [String: ListDefinition] = [:]
        for list in lists where list.definition.isWritable {
            guard case .table(let table)? = list.source?.kind else { continue }
            guard let other = writers[table] else {
                writers[table] = list.definition
                continue
            }
            if other.idField != list.definition.idField || other.revisionField != list.definition.revisionField {
                errors.append(
                    ConfigFileError(
                        file: file,
                        line: list.line,
                        column: 1,
                        message: "list '\(list.definition.name)': table '\(table)' is also written by list "
                            + "'\(other.name)', with another 'id' or 'revision'; lists that write one table must "
                            + "name the same ones"
                    )
                )
            }
        }
    }

    // MARK: - Store

    private mutating func parseStore(_ node: Node?, parent: Node) -> StoreLocation? {
        let fix = "add 'store: {sqlite: data.sqlite}', or 'store: postgres' to use DATA_MEDIATOR_DATABASE_URL"
        guard let node = require(node, in: parent, key: "store", fix: fix) else { return nil }
        if case .scalar = node {
            guard node.string == "postgres" else {
                fail(node, "'store' is 'postgres' or a mapping: 'store: {sqlite: data.sqlite}'")
                return nil
            }
            return .postgres
        }
        guard let store = mapping(node, allowed: ["sqlite"], what: "'store'") else { return nil }
        guard
            let pathNode = require(
                store["sqlite"],
                in: node,
                key: "sqlite",
                fix: "name the SQLite file: 'sqlite: data.sqlite'"
            ),
            let path = string(pathNode, what: "'store.sqlite'")
        else { return nil }
        refuseUnexpanded(path, at: pathNode, what: "'store.sqlite'")
        return .sqlite(
            path.hasPrefix("/") ? path : URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).path
        )
    }

    // MARK: - Lists

    private static let listKeys = [
        "title", "table", "query", "file", "id", "revision", "versions", "fields", "required", "writable", "history",
        "scope",
        "limit", "views",
    ]

    private mutating func parseList(name: String, at nameNode: Node, node: Node) -> ListConfiguration? {
        let errorCount = errors.count
        if !Self.isValidName(name) {
            fail(nameNode, "list name '\(name)' may only hold letters, digits, '-', '_' and '.'; rename it")
        } else if let problem = Self.listNameProblem(name) {
            fail(nameNode, problem)
        }
        guard let list = mapping(node, allowed: Self.listKeys, what: "list '\(name)'") else { return nil }
        let title = list["title"].flatMap { string($0, what: "'title'") } ?? name
        let idField = list["id"].flatMap { string($0, what: "'id'") } ?? "id"
        let writable = list["writable"].flatMap { bool($0, what: "'writable'") } ?? false
        // A writable list keeps a revision per item; `rev` unless named.
        let revisionField = list["revision"].flatMap { string($0, what: "'revision'") } ?? (writable ? "rev" : nil)
        if writable, list["query"] != nil {
            fail(list["writable"], "list '\(name)' is over a query, which is read-only; remove 'writable: true'")
        }
        let versions = list["versions"].flatMap { distinctStrings($0, what: "'versions'") } ?? []
        for table in versions {
            if let problem = tableNameProblem(table) { fail(list["versions"], "list '\(name)': \(problem)") }
            refuseUnexpanded(table, at: list["versions"], what: "'versions'")
        }

        var kind: StoreSource.Kind?
        var file: String?
        let sources = [list["table"], list["query"], list["file"]].compactMap { $0 }
        if sources.count > 1 {
            fail(sources[1], "list '\(name)' has more than one of 'table', 'query' and 'file'; keep one")
        } else if let table = list["table"] {
            kind = string(table, what: "'table'").map(StoreSource.Kind.table)
            if case .table(let name)? = kind { refuseUnexpanded(name, at: table, what: "'table'") }
            if case .table(let tableName)? = kind, let problem = tableNameProblem(tableName) {
                fail(table, "list '\(name)': \(problem)")
            }
        } else if let query = list["query"] {
            kind = string(query, what: "'query'").map(StoreSource.Kind.query)
        } else if let fileNode = list["file"], let path = string(fileNode, what: "'file'") {
            refuseUnexpanded(path, at: fileNode, what: "'file'")
            file = path.hasPrefix("/") ? path : URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).path
            if ItemFile.Format(path: path) == nil {
                fail(fileNode, "list '\(name)': '\(path)' is not a .json, .ndjson, .jsonl or .csv file; rename it")
            }
            if writable {
                fail(list["writable"], "list '\(name)' is over a file, which is read-only; remove 'writable: true'")
            }
            if list["versions"] != nil {
                fail(list["versions"], "list '\(name)' is over a file, which has no 'versions'; remove it")
            }
        } else if sources.isEmpty {
            fail(node, "list '\(name)' needs a source: add 'table: NAME', 'query: SELECT ...' or 'file: items.json'")
        }

        var fieldTypes: [String: FieldType] = [:]
        var declared: [String] = []
        if let fieldsNode = require(
            list["fields"],
            in: node,
            key: "fields",
            fix: "declare its fields and types, e.g. 'fields: {title: string}'"
        ),
            let fields = entries(of: fieldsNode, what: "'fields'")
        {
            for (field, _, typeNode) in fields {
                guard let typeName = string(typeNode, what: "the type of field '\(field)'") else { continue }
                guard let type = FieldType(rawValue: typeName) else {
                    fail(
                        typeNode,
                        "field '\(field)' has unknown type '\(typeName)'; use one of \(Self.names(FieldType.allCases.map(\.rawValue)))"
                    )
                    continue
                }
                if field == idField, type != .integer, type != .string {
                    fail(
                        typeNode,
                        "the id field '\(field)' has type '\(typeName)'; an id is 'integer' or 'string' (ids are "
                            + "compared and addressed exactly)"
                    )
                }
                fieldTypes[field] = type
                declared.append(field)
            }
        }
        let known = Set(declared + [idField] + (revisionField.map { [$0] } ?? []))
        checkFieldNames(of: name, at: list["fields"] ?? node, declared, types: fieldTypes, idField, revisionField)
        var required: [String] = []
        if let requiredNode = list["required"], let names = distinctStrings(requiredNode, what: "'required'") {
            for field in names where !declared.contains(field) || field == idField || field == revisionField {
                let writable = declared.filter { $0 != idField && $0 != revisionField }
                fail(
                    requiredNode,
                    "'required' names '\(field)', which is not a writable field of list '\(name)'; "
                        + (writable.isEmpty
                            ? "it has none: declare them under 'fields'" : "use one of \(Self.names(writable))")
                )
            }
            required = names
        }
        let exposed = declared.filter { $0 != idField && $0 != revisionField }

        let limits = parseLimits(list["limit"], list: name)
        let history = list["history"].flatMap { positiveInt($0, what: "'history'") } ?? 10_000
        var views: [View] = []
        if let viewsNode = require(
            list["views"],
            in: node,
            key: "views",
            fix: "declare at least one view under 'views:'"
        ),
            let entries = entries(of: viewsNode, what: "'views'")
        {
            if entries.isEmpty { fail(viewsNode, "list '\(name)' has no views; declare at least one") }
            for (viewName, viewNameNode, viewNode) in entries {
                if let view = parseView(
                    viewName,
                    at: viewNameNode,
                    viewNode,
                    list: name,
                    idField: idField,
                    known: known,
                    fieldTypes: fieldTypes,
                    exposed: exposed
                ) {
                    views.append(view)
                }
            }
            // Counted from the file, so that views with errors of their own count too.
            let defaults = entries.filter { $0.2["default"]?.bool == true }.map(\.0)
            if defaults.count > 1 {
                fail(
                    viewsNode,
                    "list '\(name)' marks \(defaults.count) views as default (\(Self.names(defaults))); mark one"
                )
            }
        }
        let scope = list["scope"].flatMap {
            parseScope(
                $0,
                list: name,
                known: Set(declared).subtracting([idField, revisionField ?? idField]),
                fieldTypes: fieldTypes,
                idField: idField,
                revisionField: revisionField
            )
        }
        if let scope { checkParameters(of: views, against: scope, list: name, at: list["scope"]) }
        guard errors.count == errorCount, kind != nil || file != nil, let limits else { return nil }
        let definition = ListDefinition(
            name: name,
            title: title,
            idField: idField,
            revisionField: revisionField,
            views: views,
            limits: limits,
            isWritable: writable,
            rules: FieldRules(
                types: fieldTypes.filter { $0.key != idField && $0.key != revisionField },
                required: required
            ),
            history: history,
            scope: scope
        )
        return ListConfiguration(
            definition: definition,
            source: kind.map { StoreSource(kind: $0, fieldTypes: fieldTypes, versionTables: versions) },
            file: file,
            fieldTypes: fieldTypes,
            line: node.mark?.line ?? 0
        )
    }
}
