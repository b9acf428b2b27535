import DataMediator
import Yams

/// Composite lists in the config: `compose:` holds the children in order.
extension ConfigFileLoader {
    static let compositeKeys = ["title", "compose", "limit", "view"]
    static let sectionChildKeys = ["name", "title", "section", "items"]
    static let listChildKeys = ["name", "list", "view", "params", "limit", "more"]

    mutating func parseComposite(name: String, at nameNode: Node, node: Node) -> CompositeConfiguration? {
        let errorCount = errors.count
        if !Self.isValidName(name) {
            fail(nameNode, "list name '\(name)' may only hold letters, digits, '-', '_' and '.'; rename it")
        } else if let problem = Self.listNameProblem(name) {
            fail(nameNode, problem)
        }
        guard let list = mapping(node, allowed: Self.compositeKeys, what: "composite list '\(name)'"),
            let composeNode = list["compose"]
        else { return nil }
        let title = list["title"].flatMap { string($0, what: "'title'") } ?? name
        let viewName = list["view"].flatMap { string($0, what: "'view'") } ?? "all"
        if !Self.isValidName(viewName) {
            fail(list["view"], "view name '\(viewName)' may only hold letters, digits, '-', '_' and '.'; rename it")
        }
        let limits = parseLimits(list["limit"], list: name)
        var children: [CompositeConfiguration.Child] = []
        if let items = sequence(composeNode, what: "'compose' of list '\(name)'") {
            if items.isEmpty { fail(composeNode, "composite list '\(name)' has no children; add at least one") }
            var names = Set<String>()
            for item in items {
                guard let child = parseChild(item, composite: name) else { continue }
                if !names.insert(child.name).inserted {
                    fail(item, "composite list '\(name)' has two children named '\(child.name)'; rename one")
                }
                children.append(child)
            }
        }
        guard errors.count == errorCount, let limits else { return nil }
        return CompositeConfiguration(
            name: name,
            title: title,
            viewName: viewName,
            limits: limits,
            children: children,
            line: nameNode.mark?.line ?? 0,
            column: nameNode.mark?.column ?? 1
        )
    }

    private mutating func parseChild(_ node: Node, composite: String) -> CompositeConfiguration.Child? {
        let isList: Bool
        if case .mapping(let pairs) = node {
            isList = pairs["list"] != nil
        } else {
            fail(node, "a child of '\(composite)' must be a mapping: {name: N, list: L} or {name: N, items: [...]}")
            return nil
        }
        let keys = isList ? Self.listChildKeys : Self.sectionChildKeys
        guard let child = mapping(node, allowed: keys, what: "a child of '\(composite)'") else { return nil }
        guard
            let nameNode = require(
                child["name"],
                in: node,
                key: "name",
                fix: "name the child; its name prefixes its ids"
            ),
            let name = string(nameNode, what: "'name'")
        else { return nil }
        if !Self.isValidName(name) {
            fail(nameNode, "child name '\(name)' may only hold letters, digits, '-', '_' and '.'; rename it")
        }
        if isList {
            let list = child["list"].flatMap { string($0, what: "'list'") } ?? ""
            let view = child["view"].flatMap { string($0, what: "'view'") }
            let cap = child["limit"].flatMap { positiveInt($0, what: "'limit'") }
            let more = child["more"].flatMap { bool($0, what: "'more'") } ?? false
            var parameters: [String: String] = [:]
            if let node = child["params"], let entries = entries(of: node, what: "'params'") {
                for (parameter, _, value) in entries {
                    guard let text = value.scalar?.string else {
                        fail(
                            value,
                            "child '\(name)' gives parameter '\(parameter)' no single value; give one (game: 7)"
                        )
                        continue
                    }
                    parameters[parameter] = text
                }
            }
            // Every page that reaches a capped child reads its first items whole, so the cap
            // bounds what one request costs, as a page's size does.
            if let cap, cap > PageLimits.upperBound, let limitNode = child["limit"] {
                fail(
                    limitNode,
                    "child '\(name)' of '\(composite)' has 'limit' \(cap), above \(PageLimits.upperBound), the most "
                        + "items a child may show (each page that reaches it reads them); lower it, or leave it out to "
                        + "page through the whole list"
                )
            }
            if more, cap == nil {
                fail(child["more"], "child '\(name)' of '\(composite)' has 'more: true' without 'limit'; cap it first")
            }
            return CompositeConfiguration.Child(
                name: name,
                content: .list(list, view: view, parameters: parameters),
                cap: cap,
                more: more,
                line: node.mark?.line ?? 0,
                column: node.mark?.column ?? 1
            )
        }
        let title = child["title"].flatMap { string($0, what: "'title'") }
        let section = child["section"].flatMap { string($0, what: "'section'") } ?? name
        var cells: [Cell] = []
        if let itemsNode = require(
            child["items"],
            in: node,
            key: "items",
            fix: "give the section's items: [{id: a, type: banner, data: {...}}], or 'list:' for a list"
        ), let items = sequence(itemsNode, what: "'items'") {
            var ids = Set<ExactText>()
            for itemNode in items {
                guard let cell = parseStaticItem(itemNode, child: name) else { continue }
                if !ids.insert(ExactText(cell.id)).inserted {
                    fail(itemNode, "child '\(name)' has two items with id '\(cell.id)'")
                }
                cells.append(cell)
            }
        }
        return CompositeConfiguration.Child(
            name: name,
            content: .section(id: section, title: title, cells: cells),
            cap: nil,
            more: false,
            line: node.mark?.line ?? 0,
            column: node.mark?.column ?? 1
        )
    }

    private mutating func parseStaticItem(_ node: Node, child: String) -> Cell? {
        guard let item = mapping(node, allowed: ["id", "type", "data"], what: "an item of '\(child)'") else {
            return nil
        }
        guard let idNode = require(item["id"], in: node, key: "id", fix: "give the item an id"),
            let id = string(idNode, what: "'id'"),
            let typeNode = require(item["type"], in: node, key: "type", fix: "give the item a cell type"),
            let type = string(typeNode, what: "'type'")
        else { return nil }
        if type == Cell.loadingType {
            fail(
                typeNode,
                "item '\(id)' of '\(child)' uses the cell type 'loading', which is kept for the loading section; "
                    + "choose another"
            )
        }
        var data = JSONValue.object([:])
        if let dataNode = item["data"] {
            var budget = DataBudget()
            data = jsonValue(dataNode, budget: &budget)
            if budget.isSpent {
                fail(
                    dataNode,
                    "the 'data' of item '\(id)' holds more than \(DataBudget.maximumValues) values or "
                        + "\(DataBudget.maximumBytes >> 20) MiB of text (YAML aliases repeat what they name); make it smaller"
                )
                return nil
            }
        }
        guard case .object = data else {
            fail(item["data"], "the 'data' of item '\(id)' must be a mapping")
            return nil
        }
        var writer = JSONWriter()
        writer.write(data)
        return Cell(id: id, type: type, rev: FieldPresenter.contentRevision(type: type, data: writer.bytes), data: data)
    }

    /// What one static item's `data` may hold: aliases of aliases would make a few lines of
    /// YAML billions of values ("billion laughs"), and an alias of a long text, repeated,
    /// gigabytes (a 512 KB text named 2,000 times took over 1 GB and two minutes).
    struct DataBudget {
        static let maximumValues = 100_000
        static let maximumBytes = 4 << 20
        var values = maximumValues
        var bytes = maximumBytes

        /// Whether the data read so far holds more than either bound.
        var isSpent: Bool { values < 0 || bytes < 0 }
    }

    /// A YAML node as JSON: mappings, sequences and scalars of their own type. Each value
    /// and each byte of text takes one of `budget`'s; past either (``DataBudget/isSpent``)
    /// the rest is not read.
    mutating func jsonValue(_ node: Node, budget: inout DataBudget) -> JSONValue {
        budget.values -= 1
        guard !budget.isSpent else { return .null }
        switch node {
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping where !budget.isSpent {
                let name = key.scalar?.string ?? ""
                budget.bytes -= name.utf8.count
                object[name] = jsonValue(value, budget: &budget)
            }
            return .object(object)
        case .sequence(let sequence):
            var elements: [JSONValue] = []
            for element in sequence where !budget.isSpent { elements.append(jsonValue(element, budget: &budget)) }
            return .array(elements)
        default:
            budget.bytes -= node.scalar?.string.utf8.count ?? 0
            return budget.isSpent ? .null : scalarValue(node)
        }
    }

    /// Refuses children that name no list or no view of it, and composites that contain
    /// themselves, with the cycle spelt out. A child naming a list of `declared` that did
    /// not read cleanly is passed over: that list's own errors say what is wrong.
    mutating func checkComposites(
        _ composites: [CompositeConfiguration],
        lists: [ListConfiguration],
        declared: Set<String>
    ) {
        let readCleanly = Set(lists.map(\.definition.name) + composites.map(\.name))
        var views: [String: [String]] = [:]
        for list in lists { views[list.definition.name] = list.definition.views.map(\.name) }
        let definitions = Dictionary(lists.map { ($0.definition.name, $0.definition) }) { first, _ in first }
        for composite in composites { views[composite.name] = [composite.viewName] }
        for composite in composites {
            for child in composite.children {
                guard case .list(let name, let view, let parameters) = child.content else { continue }
                if declared.contains(name), !readCleanly.contains(name) { continue }
                guard let known = views[name] else {
                    failAt(
                        child,
                        "child '\(child.name)' of '\(composite.name)' shows list '\(name)', which is not declared; use one of \(Self.names(views.keys.sorted().filter { $0 != composite.name }))"
                    )
                    continue
                }
                if definitions[name] == nil, let unknown = parameters.keys.sorted().first {
                    // A composite's one view takes no parameters: a child that gives one would
                    // show the whole composite, not the slice it names.
                    failAt(
                        child,
                        "child '\(child.name)' of '\(composite.name)' gives parameter '\(unknown)', but it shows "
                            + "composite '\(name)', which takes none; give the parameters to its children"
                    )
                }
                if let definition = definitions[name] {
                    if definition.scope != nil {
                        failAt(
                            child,
                            "child '\(child.name)' of '\(composite.name)' shows list '\(name)', which is scoped to each "
                                + "caller; a composite shows the same items to everyone"
                        )
                    } else if let resolved = try? definition.view(named: view) {
                        let taken = Set(resolved.parameters.map(\.name))
                        for unknown in parameters.keys.sorted() where !taken.contains(unknown) {
                            failAt(
                                child,
                                "child '\(child.name)' of '\(composite.name)' gives parameter '\(unknown)', which its "
                                    + "view does not take; "
                                    + (taken.isEmpty ? "it takes none" : "it takes \(Self.names(taken.sorted()))")
                            )
                        }
                        let missing = resolved.parameters.filter { $0.isRequired && parameters[$0.name] == nil }
                        for parameter in missing {
                            failAt(
                                child,
                                "child '\(child.name)' of '\(composite.name)' shows view '\(resolved.name)' of list "
                                    + "'\(name)', which needs parameter '\(parameter.name)'; give it under 'params:'"
                            )
                        }
                        do {
                            if missing.isEmpty {
                                _ = try definition.view(
                                    named: view,
                                    slice: SliceRequest(
                                        parameters: parameters.filter { taken.contains($0.key) }.mapValues { [$0] }
                                    )
                                )
                            }
                        } catch {
                            failAt(child, "child '\(child.name)' of '\(composite.name)': \(error.message)")
                        }
                    }
                }
                if let view, !known.contains(view) {
                    failAt(
                        child,
                        "child '\(child.name)' of '\(composite.name)' shows view '\(view)', which list '\(name)' does not have; use one of \(Self.names(known))"
                    )
                }
            }
        }
        let edges = Dictionary(composites.map { ($0.name, $0.listNames) }, uniquingKeysWith: { first, _ in first })
        var reported = Set<String>()
        for composite in composites {
            guard let cycle = Self.cycle(from: composite.name, edges: edges),
                reported.insert(cycle.sorted().joined()).inserted
            else { continue }
            failAt(
                composite,
                "composite list '\(composite.name)' contains itself: \(cycle.joined(separator: " -> ")); remove one of these children"
            )
        }
    }

    /// A path of composites from `start` back to itself, or nil.
    static func cycle(from start: String, edges: [String: [String]]) -> [String]? {
        var path: [String] = [start]
        var visited = Set<String>()
        func visit(_ name: String) -> [String]? {
            for next in edges[name] ?? [] {
                if next == start { return path + [start] }
                guard edges[next] != nil, visited.insert(next).inserted else { continue }
                path.append(next)
                if let found = visit(next) { return found }
                path.removeLast()
            }
            return nil
        }
        return visit(start)
    }

    private mutating func failAt(_ child: CompositeConfiguration.Child, _ message: String) {
        errors.append(ConfigFileError(file: file, line: child.line, column: child.column, message: message))
    }

    private mutating func failAt(_ composite: CompositeConfiguration, _ message: String) {
        errors.append(ConfigFileError(file: file, line: composite.line, column: composite.column, message: message))
    }
}
