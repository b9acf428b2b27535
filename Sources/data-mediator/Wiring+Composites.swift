import DataMediator

/// The composite lists' adapters, built over the lists' adapters.
extension Wiring {
    /// The composites' adapters, each built after the lists it shows (the loader refused
    /// unknown children and cycles, so every composite gets built).
    static func composites(
        _ composites: [CompositeConfiguration],
        over lists: [ListAdapter],
        signer: CursorSigner,
        notifier: ChangeNotifier
    ) -> [ListAdapter] {
        var built = Dictionary(lists.map { ($0.definition.name, $0) }, uniquingKeysWith: { first, _ in first })
        var waiting = composites
        var result: [ListAdapter] = []
        while let index = waiting.firstIndex(where: { $0.listNames.allSatisfy { built[$0] != nil } }) {
            let composite = waiting.remove(at: index)
            let children = composite.children.compactMap { child -> CompositeChild? in
                switch child.content {
                case .section(let id, let title, let cells):
                    return CompositeChild(name: child.name, content: .section(id: id, title: title, cells: cells))
                case .list(let name, let viewName, let parameters):
                    let slice = SliceRequest(parameters: parameters.mapValues { [$0] })
                    guard let adapter = built[name],
                        let view = try? adapter.definition.view(named: viewName, slice: slice)
                    else { return nil }
                    return CompositeChild(
                        name: child.name,
                        content: .list(adapter, view: view),
                        cap: child.cap,
                        more: child.more
                    )
                }
            }
            let adapter = ListAdapter.composite(
                name: composite.name,
                title: composite.title,
                children: children,
                viewName: composite.viewName,
                limits: composite.limits,
                signer: signer,
                notifier: notifier
            )
            built[composite.name] = adapter
            result.append(adapter)
        }
        return result
    }
}
