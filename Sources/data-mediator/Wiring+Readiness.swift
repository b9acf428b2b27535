import DataMediatorSQL

extension Wiring {
    /// What `GET /ready` says of the composites when lists cannot be served (`problem`, the
    /// store's readiness; ``SourceCheck/cannotServe(_:)`` begins what it says of each): a
    /// composite that shows such a list, itself or through a composite it shows, cannot
    /// serve its pages either, and is named with the lists it waits for. Nil when none is.
    static func compositesProblem(_ problem: String, composites: [CompositeConfiguration]) -> String? {
        var blocked: [String: [String]] = [:]
        func lists(shownBy composite: CompositeConfiguration) -> [String] {
            composite.children.compactMap { child in
                if case .list(let name, _, _) = child.content { return name }
                return nil
            }
        }
        // The loader refused cycles: a pass per level of nesting settles every composite.
        for _ in 0...composites.count {
            for composite in composites where blocked[composite.name] == nil {
                let waits = lists(shownBy: composite).filter { name in
                    blocked[name] != nil || problem.contains(SourceCheck.cannotServe(name) + ":")
                }
                if !waits.isEmpty { blocked[composite.name] = waits }
            }
        }
        let said = composites.compactMap { composite in
            blocked[composite.name].map { waits in
                "Composite '\(composite.name)' cannot be served: it shows "
                    + waits.map { "'\($0)'" }.joined(separator: ", ") + ", which cannot be served."
            }
        }
        return said.isEmpty ? nil : said.joined(separator: " ")
    }
}
