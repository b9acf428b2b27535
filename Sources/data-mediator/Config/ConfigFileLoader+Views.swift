import DataMediator
import Yams

/// Views in the config: sort keys, section, filter, cell type and exposed fields, each
/// checked against the list's declared fields.
extension ConfigFileLoader {
    static let viewKeys = ["default", "sort", "section", "filter", "cell", "fields", "params"]

    mutating func parseView(
        _ name: String,
        at nameNode: Node,
        _ node: Node,
        list: String,
        idField: String,
        known: Set<String>,
        fieldTypes: [String: FieldType],
        exposed: [String]
    ) -> View? {
        let errorCount = errors.count
        if !Self.isValidName(name) {
            fail(nameNode, "view name '\(name)' may only hold letters, digits, '-', '_' and '.'; rename it")
        }
        guard let view = mapping(node, allowed: Self.viewKeys, what: "view '\(name)'") else { return nil }
        let context = "view '\(name)' of list '\(list)'"
        /// `orders`: "sort" or "section" when the field orders the view's pages.
        func checkField(_ field: String, _ at: Node?, _ role: String, orders: String? = nil) {
            // A json field holds any JSON, which has no order (as in a filter): pages, their
            // cursors and sections need one.
            if let orders, fieldTypes[field] == .json {
                fail(
                    at,
                    "\(context) \(role) '\(field)', which is json and has no order; "
                        + "\(orders) by a string, integer, number or boolean field"
                )
            }
            if !known.contains(field) {
                fail(
                    at,
                    "\(context) \(role) '\(field)', which is not a field of the list; declare it under 'fields:' or use one of \(Self.names(known.sorted()))"
                )
            }
        }
        let isDefault = view["default"].flatMap { bool($0, what: "'default'") } ?? false

        var sort: [SortKey] = []
        if let sortNode = require(
            view["sort"],
            in: node,
            key: "sort",
            fix: "give its order, e.g. 'sort: [-created_at]' ('-' for descending)"
        ),
            let keys = stringList(sortNode, what: "'sort'")
        {
            if keys.isEmpty { fail(sortNode, "\(context) has an empty 'sort'; name at least one field") }
            var named = Set<String>()
            for key in keys {
                let descending = key.hasPrefix("-")
                let field = descending || key.hasPrefix("+") ? String(key.dropFirst()) : key
                checkField(field, sortNode, "sorts by", orders: "sort")
                // A field named again orders nothing the first did not (or contradicts it).
                if !named.insert(field).inserted {
                    fail(sortNode, "\(context) sorts by '\(field)' twice; name each field once in 'sort'")
                }
                sort.append(SortKey(field, descending ? .descending : .ascending))
            }
        }

        var section: SectionRule?
        if let sectionNode = view["section"] {
            if let field = sectionNode.scalar?.string {
                checkField(field, sectionNode, "is sectioned by", orders: "section")
                section = SectionRule(field: field)
            } else if let rule = mapping(sectionNode, allowed: ["field", "by", "title"], what: "'section'") {
                let field = require(
                    rule["field"],
                    in: sectionNode,
                    key: "field",
                    fix: "name the field that decides the section"
                )
                .flatMap { string($0, what: "'section.field'") }
                var grouping = SectionRule.Grouping.value
                if let byNode = rule["by"], let by = string(byNode, what: "'section.by'") {
                    if let parsed = SectionRule.Grouping(rawValue: by) {
                        grouping = parsed
                    } else {
                        fail(
                            byNode,
                            "'section.by' is '\(by)'; use one of \(Self.names(SectionRule.Grouping.allCases.map(\.rawValue)))"
                        )
                    }
                }
                let title = rule["title"].flatMap { string($0, what: "'section.title'") }
                if let field {
                    checkField(field, sectionNode, "is sectioned by", orders: "section")
                    section = SectionRule(field: field, grouping: grouping, titleTemplate: title)
                }
            }
        }

        var filter: [FilterCondition] = []
        if let filterNode = view["filter"], let conditions = sequence(filterNode, what: "'filter'") {
            for conditionNode in conditions {
                guard
                    let condition = mapping(
                        conditionNode,
                        allowed: ["field", "op", "value"],
                        what: "a filter condition"
                    ),
                    let field = require(
                        condition["field"],
                        in: conditionNode,
                        key: "field",
                        fix: "name the field compared"
                    )
                    .flatMap({ string($0, what: "'field'") }),
                    let opNode = require(
                        condition["op"],
                        in: conditionNode,
                        key: "op",
                        fix: "use one of eq, ne, lt, le, gt, ge"
                    ),
                    let opName = string(opNode, what: "'op'"),
                    let valueNode = require(
                        condition["value"],
                        in: conditionNode,
                        key: "value",
                        fix: "give the value compared with"
                    )
                else { continue }
                checkField(field, conditionNode, "filters on")
                guard let op = FilterCondition.Operator(rawValue: opName) else {
                    fail(
                        opNode,
                        "filter 'op' is '\(opName)'; use one of \(Self.names(FilterCondition.Operator.allCases.map(\.rawValue)))"
                    )
                    continue
                }
                guard valueNode.scalar != nil else {
                    fail(valueNode, "filter 'value' must be one value: text, a number, true, false or null")
                    continue
                }
                // A json field holds any JSON, which has no order: only eq and ne compare it.
                if fieldTypes[field] == .json, op != .eq, op != .ne {
                    fail(
                        opNode,
                        "filter 'op' \(opName) on field '\(field)', which is json and has no order; use eq or ne"
                    )
                    continue
                }
                let value = scalarValue(valueNode)
                if let type = fieldTypes[field], value != .null, !type.accepts(value) {
                    // YAML 1.1 reads `no`, `off` and `yes` as booleans: say what it read.
                    let text = valueNode.scalar?.string ?? ""
                    var read = ""
                    if case .bool(let flag) = value, text != "\(flag)" { read = " (YAML's \(flag))" }
                    fail(
                        valueNode,
                        "filter 'value' \(text)\(read) does not fit field '\(field)', which is "
                            + "\(type.description)\(type == .string ? "; quote it, e.g. value: \"\(text)\"" : "")"
                    )
                    continue
                }
                filter.append(FilterCondition(field: field, op: op, value: value))
            }
        }

        var cellType = CellTypeRule.fixed(list)
        if let cellNode = view["cell"] {
            if cellNode.scalar != nil {
                if let type = string(cellNode, what: "'cell'") { cellType = .fixed(type) }
            } else if let rule = mapping(cellNode, allowed: ["field", "types", "default"], what: "'cell'") {
                let field = require(
                    rule["field"],
                    in: cellNode,
                    key: "field",
                    fix: "name the field whose value is the cell type"
                )
                .flatMap { string($0, what: "'cell.field'") }
                let types = require(
                    rule["types"],
                    in: cellNode,
                    key: "types",
                    fix: "list every type the field can give, e.g. 'types: [small, large]'"
                )
                .flatMap { distinctStrings($0, what: "'cell.types'") }
                let fallback = require(
                    rule["default"],
                    in: cellNode,
                    key: "default",
                    fix: "name the type of items whose field holds another value"
                )
                .flatMap { string($0, what: "'cell.default'") }
                if let field { checkField(field, cellNode, "takes its cell type from") }
                if types?.isEmpty == true, let typesNode = rule["types"] {
                    // No type to take from the field: every item would show the default.
                    fail(
                        typesNode,
                        "\(context) has an empty 'cell.types'; list the types the field gives, or write 'cell: TYPE'"
                    )
                }
                if let field, let types, let fallback { cellType = .field(field, types: types, fallback: fallback) }
            }
        }
        if cellType.types.contains(Cell.loadingType) {
            fail(
                view["cell"],
                "\(context) uses the cell type 'loading', which is kept for the loading section; choose another"
            )
        }

        var fields = exposed
        if let fieldsNode = view["fields"], let names = distinctStrings(fieldsNode, what: "'fields'") {
            for field in names { checkField(field, fieldsNode, "exposes") }
            fields = names
        }
        let parameters = view["params"].map {
            parseParameters($0, context: context, fieldTypes: fieldTypes, known: known)
        }
        guard errors.count == errorCount else { return nil }
        let result = View(
            name: name,
            isDefault: isDefault,
            sort: sort,
            idField: idField,
            section: section,
            filter: filter,
            cellType: cellType,
            fields: fields,
            parameters: parameters ?? [],
            fieldTypes: fieldTypes
        )
        if let problem = result.sectionProblem() {
            fail(view["section"], "list '\(list)': \(problem)")
            return nil
        }
        return result
    }
}
