/// Shows a composite item as the child's cell it came from, with the prefixed id.
public struct CompositePresenter: Presenter {
    /// Every cell type the composite's children show.
    public let cellTypes: [String]

    /// Creates the presenter of a composite whose children show `cellTypes`.
    public init(cellTypes: [String]) {
        self.cellTypes = cellTypes
    }

    /// The child's cell under the composite's id.
    public func cell(for item: Item) -> Cell {
        var type = "item"
        if case .string(let text) = item["type"] { type = text }
        return Cell(id: item["id"].idString, type: type, rev: item["rev"].idString, data: item["data"])
    }
}
