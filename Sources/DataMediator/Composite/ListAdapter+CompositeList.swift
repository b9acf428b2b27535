extension ListAdapter {
    /// The adapter of a composite list: read-only, one view (`viewName`) that walks
    /// `children` in order.
    ///
    /// Its `changes` merge its children's (see ``CompositeDataProvider/changes(of:since:limit:)``).
    public static func composite(
        name: String,
        title: String,
        children: [CompositeChild],
        viewName: String = "all",
        limits: PageLimits = PageLimits(),
        signer: CursorSigner,
        notifier: ChangeNotifier = ChangeNotifier()
    ) -> ListAdapter {
        let provider = CompositeDataProvider(children: children, viewName: viewName)
        let definition = ListDefinition(
            name: name,
            title: title,
            idField: "id",
            views: [provider.view],
            limits: limits,
            composition: .array(children.map(\.summary))
        )
        return ListAdapter(
            definition: definition,
            provider: provider,
            signer: signer,
            presenters: [viewName: CompositePresenter(cellTypes: provider.view.cellType.types)],
            changeLog: provider,
            notifier: notifier
        )
    }
}

extension CompositeChild {
    /// The child as the composite's description shows it.
    var summary: JSONValue {
        var fields: [String: JSONValue] = ["name": .string(name)]
        switch content {
        case .section(let id, let title, let cells):
            fields["kind"] = .string("section")
            fields["section"] = .string(id)
            fields["title"] = title.map(JSONValue.string) ?? .null
            fields["items"] = .integer(Int64(cells.count))
        case .list(let adapter, let view):
            fields["kind"] = .string("list")
            fields["list"] = .string(adapter.definition.name)
            fields["view"] = .string(view.name)
            // The parameters it fixes: a client that follows the child's list with the
            // child's cursors asks with them.
            fields["params"] = .object(Dictionary(uniqueKeysWithValues: parameters))
        }
        fields["limit"] = cap.map { .integer(Int64($0)) } ?? .null
        fields["more"] = .bool(more && cap != nil)
        return .object(fields)
    }
}
