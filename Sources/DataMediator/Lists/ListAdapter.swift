/// Composes a list's provider, section info and presenters behind the contract: pages,
/// located items and section info for any of the list's views.
///
/// Everything a request names arrives raw (strings as the client sent them) and is
/// checked here, so every front end applies the same rules.
public struct ListAdapter: Sendable {
    /// The list's definition.
    public let definition: ListDefinition
    let provider: any DataProvider & SectionInfoProvider
    private let presenters: [String: any Presenter]
    let mediator: Mediator
    let signer: CursorSigner
    let writer: (any ItemWriter)?
    /// Where the list's changes come from (nil: a single `reload` when its version moved).
    public let changeLog: (any ChangeLog)?
    /// Signals live streams after each write.
    public let notifier: ChangeNotifier
    /// The sections last built per view, reused while their counts stay the same.
    let sectionMemo = SectionMemo()
    /// The change reads the list's live streams share.
    let streamReads = SharedChangeReads()

    /// Creates an adapter; each view gets a ``FieldPresenter`` unless `presenters` names one.
    ///
    /// A list with a `changeLog` answers changes item by item; one without answers a
    /// single `reload` when its version moved.
    public init(
        definition: ListDefinition,
        provider: any DataProvider & SectionInfoProvider,
        signer: CursorSigner,
        presenters: [String: any Presenter] = [:],
        writer: (any ItemWriter)? = nil,
        changeLog: (any ChangeLog)? = nil,
        notifier: ChangeNotifier = ChangeNotifier()
    ) {
        self.definition = definition
        self.provider = provider
        self.writer = definition.isWritable ? writer : nil
        self.changeLog = changeLog
        self.notifier = notifier
        self.signer = signer
        self.mediator = Mediator(signer: signer)
        var all = presenters
        for view in definition.views where all[view.name] == nil {
            all[view.name] = FieldPresenter(
                view: view,
                idField: definition.idField,
                revisionField: definition.revisionField
            )
        }
        self.presenters = all
    }

    /// Compares two positions of `view`'s items as its provider orders them.
    func compare(_ lhs: Position, _ rhs: Position, in view: View) -> Int {
        provider.compare(lhs, rhs, in: view)
    }

    func presenter(for view: View) -> any Presenter {
        presenters[view.name]
            ?? FieldPresenter(view: view, idField: definition.idField, revisionField: definition.revisionField)
    }

}
