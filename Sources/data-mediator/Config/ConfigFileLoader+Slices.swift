import DataMediator
import DataMediatorSQL
import Yams

/// A view's parameters and a list's scope in the config, each checked against the list's
/// declared fields.
extension ConfigFileLoader {
    /// The query parameters a list route takes itself, which no view parameter may take.
    static let routeParameters = ["view", "limit", "cursor", "since", "around"]

    /// A view's `params:`: each name maps to a field (`game: game`) or to `field:` and
    /// `required:` (`game: {field: game, required: true}`).
    mutating func parseParameters(
        _ node: Node,
        context: String,
        fieldTypes: [String: FieldType],
        known: Set<String>
    ) -> [ViewParameter] {
        guard let entries = entries(of: node, what: "'params'") else { return [] }
        if entries.count > ViewParameter.maximumPerView {
            fail(
                node,
                "\(context) declares \(entries.count) parameters; at most \(ViewParameter.maximumPerView) are allowed "
                    + "(each set of them a request may give needs an index)"
            )
        }
        var parameters: [ViewParameter] = []
        var fields: [String: String] = [:]
        for (name, nameNode, spec) in entries {
            if !Self.isValidName(name) || name.hasPrefix("_") || Self.routeParameters.contains(name) {
                fail(
                    nameNode,
                    "\(context): parameter name '\(name)' must be letters, digits, '-', '_' and '.', not begin with "
                        + "'_', and not be one of \(Self.names(Self.routeParameters)); rename it"
                )
                continue
            }
            var field = name
            var required = false
            if spec.scalar != nil {
                guard let scalar = string(spec, what: "parameter '\(name)'") else { continue }
                field = scalar
            } else if let mapping = mapping(spec, allowed: ["field", "required"], what: "parameter '\(name)'") {
                // A field given as a list or mapping is refused, not read as the parameter's name.
                if let fieldNode = mapping["field"] {
                    guard let given = string(fieldNode, what: "parameter '\(name)''s 'field'") else { continue }
                    field = given
                }
                required = mapping["required"].flatMap { bool($0, what: "'required'") } ?? false
            } else {
                continue
            }
            guard known.contains(field) else {
                fail(
                    spec,
                    "\(context): parameter '\(name)' filters on '\(field)', which is not a field of the list; "
                        + "use one of \(Self.names(known.sorted()))"
                )
                continue
            }
            let type = fieldTypes[field] ?? .string
            if type == .json {
                fail(
                    spec,
                    "\(context): parameter '\(name)' filters on '\(field)', a json field; use a text, number or boolean field"
                )
                continue
            }
            // A slice holds one value per field: a second parameter on it would replace the
            // first's value, not narrow the slice further.
            if let other = fields[field] {
                fail(
                    spec,
                    "\(context): parameters '\(other)' and '\(name)' both filter on '\(field)'; keep one parameter per field"
                )
                continue
            }
            fields[field] = name
            parameters.append(ViewParameter(name: name, field: field, type: type, isRequired: required))
        }
        return parameters
    }

    /// Refuses a view parameter on the list's scope field: the caller's token sets that
    /// field, so a parameter on it could only replace the token's value (another caller's
    /// slice) or be ignored; neither is a narrower slice.
    mutating func checkParameters(of views: [View], against scope: ListScope, list: String, at node: Node?) {
        for view in views {
            for parameter in view.parameters where parameter.field == scope.field {
                fail(
                    node,
                    "list '\(list)': view '\(view.name)' has parameter '\(parameter.name)' on '\(scope.field)', the "
                        + "field the caller's token sets (claim '\(scope.claim)'); remove the parameter (an operator "
                        + "reads one caller's items through a list without a scope over the same table)"
                )
            }
        }
    }

    /// A list's `scope:` (`{field: player, claim: sub}`): the field every read and write of
    /// the list is narrowed to, equal to the caller's claim. `known` are the fields a scope
    /// may name: the declared ones but the id and revision fields (`idField`,
    /// `revisionField`), which the service sets while a write sets the scope field to the
    /// claim.
    mutating func parseScope(
        _ node: Node,
        list: String,
        known: Set<String>,
        fieldTypes: [String: FieldType],
        idField: String,
        revisionField: String?
    ) -> ListScope? {
        if case .scalar(let given) = node {
            fail(
                node,
                "list '\(list)': 'scope' is the field and the token's claim it must equal, e.g. "
                    + "'scope: {field: \(given.string), claim: sub}'"
            )
            return nil
        }
        guard let scope = mapping(node, allowed: ["field", "claim"], what: "'scope'") else { return nil }
        // Each a single, non-empty value: a scope dropped for a malformed one would serve the
        // list to everyone.
        let field = require(scope["field"], in: node, key: "field", fix: "name the field, e.g. 'field: player'")
            .flatMap { string($0, what: "the scope's 'field'") }
        let claim = require(scope["claim"], in: node, key: "claim", fix: "name the token's claim, e.g. 'claim: sub'")
            .flatMap { string($0, what: "the scope's 'claim'") }
        guard let field, let claim, !claim.isEmpty else { return nil }
        guard known.contains(field) else {
            if let role = field == idField ? "id" : field == revisionField ? "revision" : nil {
                // Declared, but not a field a scope can narrow by: a write sets the scope
                // field to the caller's claim, and the service sets these.
                fail(
                    scope["field"],
                    "list '\(list)' is scoped by '\(field)', its \(role) field, which the service sets; scope by "
                        + "a field that holds the item's owner, e.g. 'player'"
                )
                return nil
            }
            fail(
                scope["field"],
                "list '\(list)' is scoped by '\(field)', which is not a field of the list; use one of \(Self.names(known.sorted()))"
            )
            return nil
        }
        // A json field's text would be compared with the claim: the claim "alice" would not
        // match its own `"alice"`, and 1, "1" and true would be one caller.
        guard fieldTypes[field] != .json else {
            fail(
                scope["field"],
                "list '\(list)' is scoped by '\(field)', a json field; scope by a text, number or boolean field"
            )
            return nil
        }
        return ListScope(field: field, claim: claim)
    }

    /// A writable scoped list confines writes to its own scope field only: over a table that
    /// another list scopes by another field, a write through it could set that field to any
    /// value, putting an item in any caller's slice of the other list (and, were the other
    /// writable too, taking one out of another caller's slice of this one). Refused when it
    /// declares that field: the lists that share a table and a writable scoped list are
    /// scoped by one field, or the writer cannot set the other's. A list
    /// over a query shares the table when its query names it (a view over the table is not
    /// seen through).
    mutating func checkScopedTables(_ lists: [ListConfiguration]) {
        for writer in lists where writer.definition.isWritable {
            guard let scope = writer.definition.scope, case .table(let table)? = writer.source?.kind else { continue }
            var named = Set<String>()
            for other in lists where other.definition.name != writer.definition.name {
                let reads: Bool
                switch other.source?.kind {
                // Told apart in any case: SQLite takes `Docs` for `docs`.
                case .table(let otherTable)?: reads = otherTable.lowercased() == table.lowercased()
                case .query(let query)?: reads = Self.query(query, names: table)
                default: reads = false
                }
                // A field the writer does not declare is none its writes set (`422`).
                guard reads, let otherScope = other.definition.scope, otherScope.field != scope.field,
                    writer.fieldTypes[otherScope.field] != nil, named.insert(otherScope.field).inserted
                else { continue }
                errors.append(
                    ConfigFileError(
                        file: file,
                        line: writer.line,
                        column: 1,
                        message: "list '\(writer.definition.name)' is writable and scoped by field '\(scope.field)', "
                            + "but list '\(other.definition.name)' over the same table '\(table)' is scoped by field "
                            + "'\(otherScope.field)': a write through '\(writer.definition.name)' could set "
                            + "'\(otherScope.field)' to any value and put an item in another caller's slice; scope the "
                            + "lists over one table by one field, or make '\(writer.definition.name)' read-only "
                            + "(writes then go through a list without a scope, with a static write token)"
                    )
                )
            }
        }
    }

    /// Whether `query` names `table` as an identifier (bare or quoted, in any case, alone or
    /// after a schema's name): both stores fold or compare such names so.
    static func query(_ query: String, names table: String) -> Bool {
        let wanted = table.lowercased()
        var identifiers: [String] = []
        var current = ""
        var quote: Character?
        for character in query {
            if let open = quote {
                if character == (open == "[" ? "]" : open) {
                    identifiers.append(current)
                    current = ""
                    quote = nil
                } else {
                    current.append(character)
                }
            } else if character == "\"" || character == "`" || character == "[" {
                if !current.isEmpty { identifiers.append(current) }
                current = ""
                quote = character
            } else if character.isLetter || character.isNumber || character == "_" || character == "$" {
                current.append(character)
            } else {
                if !current.isEmpty { identifiers.append(current) }
                current = ""
            }
        }
        if !current.isEmpty { identifiers.append(current) }
        return identifiers.contains { $0.lowercased() == wanted }
    }
}
