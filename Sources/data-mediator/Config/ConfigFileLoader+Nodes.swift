import DataMediator
import Yams

/// Readers of YAML nodes: each reads one node as the config expects it, recording an
/// error with the node's line when it is not.
extension ConfigFileLoader {
    mutating func fail(_ node: Node?, _ message: String) {
        errors.append(
            ConfigFileError(file: file, line: node?.mark?.line ?? 0, column: node?.mark?.column ?? 0, message: message)
        )
    }

    mutating func require(_ node: Node?, in parent: Node?, key: String, fix: String) -> Node? {
        if node == nil { fail(parent, "missing '\(key)': \(fix)") }
        return node
    }

    /// The key-value pairs of a mapping (with each key's node), in order, refusing duplicate
    /// and non-string keys.
    mutating func entries(of node: Node, what: String) -> [(String, Node, Node)]? {
        guard case .mapping(let mapping) = node else {
            fail(node, "\(what) must be a mapping of names to settings")
            return nil
        }
        var seen = Set<String>()
        var result: [(String, Node, Node)] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else {
                fail(keyNode, "\(what) has a key that is not a plain name")
                continue
            }
            // Yams composes a merge key as a key like any other; the settings it would
            // bring in were reported as an unknown key '<<' and then as missing.
            if key == "<<", keyNode.scalar?.style == .plain {
                fail(
                    keyNode,
                    "\(what) has a YAML merge key ('<<'), which this file does not read; write the keys out, "
                        + "or give the whole mapping by an alias (*name)"
                )
                continue
            }
            if !seen.insert(key).inserted {
                fail(keyNode, "\(what) declares '\(key)' twice; keep one")
                continue
            }
            result.append((key, keyNode, value))
        }
        return result
    }

    /// A mapping's values by key, reporting every key not in `allowed`.
    mutating func mapping(_ node: Node, allowed: [String], what: String) -> [String: Node]? {
        guard let pairs = entries(of: node, what: what) else { return nil }
        var result: [String: Node] = [:]
        for (key, keyNode, value) in pairs {
            if allowed.contains(key) {
                result[key] = value
            } else {
                fail(keyNode, "\(what) has unknown key '\(key)'; the keys it takes are \(Self.names(allowed))")
            }
        }
        return result
    }

    mutating func sequence(_ node: Node, what: String) -> [Node]? {
        guard case .sequence(let items) = node else {
            fail(node, "\(what) must be a list, e.g. [a, b]")
            return nil
        }
        return Array(items)
    }

    /// The tags a value of the config may have: those plain YAML gives its values (and the
    /// merge key's). Another (`!env ${X}`, `!!binary`) would be taken as the text it tags,
    /// which is not what who wrote it meant.
    static let plainTags: Set<Tag.Name> = [.str, .int, .float, .bool, .null, .map, .seq, .merge]

    /// Fails every node of `node` tagged otherwise than ``plainTags`` allow.
    mutating func refuseTags(in node: Node) {
        guard Self.plainTags.contains(Tag.Name(rawValue: node.tag.rawValue)) else {
            let core = "tag:yaml.org,2002:"
            let raw = node.tag.rawValue
            let tag = raw.hasPrefix(core) ? "!!" + raw.dropFirst(core.count) : raw
            fail(
                node,
                "the value tagged '\(tag)' is taken by no setting: the config holds plain YAML values (text, "
                    + "numbers, true or false, lists, mappings); remove the tag"
            )
            return
        }
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                refuseTags(in: key)
                refuseTags(in: value)
            }
        case .sequence(let sequence):
            for item in sequence { refuseTags(in: item) }
        default:
            break
        }
    }

    mutating func string(_ node: Node, what: String) -> String? {
        guard let scalar = node.scalar, Tag.Name(rawValue: node.tag.rawValue) != .null else {
            fail(node, "\(what) must be a single value, not empty (~), a list or a mapping")
            return nil
        }
        if scalar.string.isEmpty { fail(node, "\(what) is empty") }
        return scalar.string
    }

    /// Refuses a name of something the service makes or opens (a table, a file) that holds
    /// an environment variable nothing expanded: a file meant for `envsubst` read as it is
    /// would make a table or a file of that name, which nothing would notice. Not other
    /// values: a query's text or a title's template may hold `${` of their own.
    mutating func refuseUnexpanded(_ value: String, at node: Node?, what: String) {
        guard let variable = Self.unexpandedVariable(in: value) else { return }
        fail(
            node,
            "\(what) holds '\(variable)', a variable nothing expanded; run the file through envsubst "
                + "(docs/configuration.md) or write the value"
        )
    }

    /// The first `${NAME}` (a shell's `${NAME:-default}` too) or `$NAME` in `text`, as
    /// `envsubst` (or a shell) expands them; nil when there is none. A bare `$NAME` counts
    /// only in capitals, as environment variables are named: PostgreSQL and SQLite names
    /// may hold a `$` of their own (`audit$log`, `sys$users`), as may a path
    /// (`$Recycle.Bin`).
    static func unexpandedVariable(in text: String) -> String? {
        guard
            let match = text.firstMatch(
                of: /\$\{[A-Za-z_][A-Za-z0-9_]*[^}]*\}|\$[A-Z_][A-Z0-9_]*(?![a-z])/
            )
        else { return nil }
        return String(match.output)
    }

    mutating func stringList(_ node: Node, what: String) -> [String]? {
        guard let items = sequence(node, what: what) else { return nil }
        let strings = items.compactMap { string($0, what: "an entry of \(what)") }
        return strings.count == items.count ? strings : nil
    }

    /// `stringList(_:what:)` for a list that names each thing once (a view's `fields`, a
    /// list's `required`, a cell rule's `types`): a name given twice is refused, as a
    /// repeated sort key is, since it says nothing the first did not and is most often a
    /// slip for another name.
    mutating func distinctStrings(_ node: Node, what: String) -> [String]? {
        guard let strings = stringList(node, what: what) else { return nil }
        var seen = Set<String>()
        for name in strings where !seen.insert(name).inserted {
            fail(node, "\(what) names '\(name)' twice; name each once")
            return nil
        }
        return strings
    }

    mutating func bool(_ node: Node, what: String) -> Bool? {
        guard Tag.Name(rawValue: node.tag.rawValue) == .bool, let value = node.bool else {
            fail(node, "\(what) must be true or false")
            return nil
        }
        return value
    }

    /// A whole number of at least 1; `bound` is the most the setting takes, named when a
    /// number past 64 bits is given (`limit.max` named Int64's bound, far above its own).
    mutating func positiveInt(_ node: Node, what: String, bound: Int = Int.max) -> Int? {
        guard Tag.Name(rawValue: node.tag.rawValue) == .int, let value = node.int, value >= 1 else {
            // A whole number past 64 bits is one: say it is too large, not that it is none.
            let tooLarge =
                Tag.Name(rawValue: node.tag.rawValue) == .int && node.int == nil
                && node.scalar?.string.hasPrefix("-") == false
            fail(node, "\(what) must be a whole number of at least 1" + (tooLarge ? " and at most \(bound)" : ""))
            return nil
        }
        return value
    }

    /// A YAML scalar as JSON; `.nan` and `.inf`, which JSON cannot hold (a page would not be
    /// JSON), are refused, and so are numbers not written as JSON writes them: YAML 1.1 reads
    /// `010` as 8, `0x10` as 16 and `1_000` as 1000, which a reader of the file (and every
    /// other number the service reads) takes as decimal.
    mutating func scalarValue(_ node: Node) -> JSONValue {
        let tag = Tag.Name(rawValue: node.tag.rawValue)
        if tag == .int || tag == .float, let text = node.scalar?.string, node.float?.isFinite != false,
            JSONSyntax.problem(in: Array(text.utf8)) != nil
        {
            let read = node.int.map { String($0) } ?? node.float.map { "\($0)" } ?? text
            fail(
                node,
                "'\(text)' is a number YAML reads as \(read); write it in decimal as JSON does, or quote it for text"
            )
            return .null
        }
        switch tag {
        case .null: return .null
        case .bool: return node.bool.map(JSONValue.bool) ?? .null
        case .int:
            // A whole number past 64 bits is a number, as in JSON (an integer field's check
            // then refuses it); it was null, which a filter then matched.
            if let whole = node.int { return .integer(Int64(whole)) }
            return node.scalar.flatMap { Double($0.string) }.map(JSONValue.number) ?? .string(node.scalar?.string ?? "")
        case .float:
            guard let real = node.float else { return .null }
            guard real.isFinite else {
                fail(
                    node,
                    "'\(node.scalar?.string ?? "")' is not a finite number, which JSON cannot hold; quote it for text"
                )
                return .null
            }
            return .number(real)
        default: return .string(node.scalar?.string ?? "")
        }
    }

    /// Why `table` cannot be a list's table, or nil: the service's own tables
    /// (`data_mediator_*`, its version counters and change log, which a list's writes would
    /// overwrite), SQLite's own in a SQLite store (`sqlite_*`, which it keeps and refuses to
    /// make) and names holding a double quote (GRDB's catalog reads fail on one).
    func tableNameProblem(_ table: String) -> String? {
        if table.lowercased().hasPrefix("data_mediator_") {
            return "'\(table)' is one of the service's own tables (data_mediator_*); name a table of yours"
        }
        if storeIsSQLite, table.lowercased().hasPrefix("sqlite_") {
            return "'\(table)' is one of SQLite's own tables (sqlite_*); name a table of yours"
        }
        if table.contains("\"") || table.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            return "the table name '\(table)' holds a double quote or a control character; rename the table"
        }
        return nil
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "-_.".unicodeScalars.contains($0)
            }
    }

    /// Why a valid name cannot name a list: `.` and `..` are a URL path's dot segments,
    /// which clients resolve away before they send the path.
    static func listNameProblem(_ name: String) -> String? {
        guard PathSegment.isDotSegment(name) else { return nil }
        return "list name '\(name)' is a dot segment, which no URL path can name (clients resolve it away); rename it"
    }

    /// Refuses a field with an empty name (a column `""`), a list's fields that differ only
    /// in case in a SQLite store (``caseTwins(_:)``) and a revision field declared other
    /// than `integer`: every write raises it by one, and a `boolean` one showed `true` at
    /// every revision, so a stale `If-Match` passed.
    mutating func checkFieldNames(
        of list: String,
        at node: Node,
        _ declared: [String],
        types: [String: FieldType],
        _ idField: String,
        _ revisionField: String?
    ) {
        if declared.contains("") {
            fail(node, "list '\(list)' declares a field with an empty name; name it")
        }
        if storeIsSQLite, let (one, other) = Self.caseTwins(declared + [idField] + (revisionField.map { [$0] } ?? [])) {
            fail(
                node,
                "list '\(list)': fields '\(one)' and '\(other)' differ only in case, which SQLite's column names "
                    + "do not tell apart; rename one"
            )
        }
        if let revisionField, let type = types[revisionField], type != .integer {
            fail(
                node,
                "list '\(list)': the revision field '\(revisionField)' is declared '\(type.rawValue)'; a revision is "
                    + "a whole number every write raises by one: declare it 'integer'"
            )
        }
    }

    /// Whether `root`, its aliases repeated where they stand, holds far more than its text
    /// of `textBytes` bytes: more nodes or more bytes of text than the text plus a million
    /// and 16 MiB. Aliases of aliases make a few lines of YAML billions of nodes, and an
    /// alias of a long text, repeated, gigabytes (a 512 KB text named 2,000 times made
    /// `check` take two minutes and over 1 GB); the walk stops at the bound.
    static func expandsTooFar(_ root: Node, textBytes: Int) -> Bool {
        var nodes = textBytes + 1_000_000
        var bytes = textBytes + (16 << 20)
        var pending = [root]
        while let node = pending.popLast() {
            nodes -= 1
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping { pending += [key, value] }
            case .sequence(let sequence):
                pending += Array(sequence)
            case .scalar(let scalar):
                bytes -= scalar.string.utf8.count
            case .alias:
                continue
            }
            if nodes < 0 || bytes < 0 { return true }
        }
        return false
    }

    /// Two of `names` that differ only in case (`Title`, `title`), or nil: SQLite's column
    /// names, and GRDB's reads of a row by name, do not tell them apart.
    static func caseTwins(_ names: [String]) -> (String, String)? {
        var seen: [String: String] = [:]
        for name in names {
            if let earlier = seen[name.lowercased()], earlier != name { return (earlier, name) }
            seen[name.lowercased()] = name
        }
        return nil
    }

    static func names(_ names: [String]) -> String {
        names.map { "'\($0)'" }.joined(separator: ", ")
    }
}
