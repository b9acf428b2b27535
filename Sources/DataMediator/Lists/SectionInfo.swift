/// A view's sections and their item counts, as `GET /lists/{list}/sections` answers.
public struct SectionInfo: Sendable, Hashable {
    /// One section.
    public struct Section: Sendable, Hashable {
        /// The section id, as pages show it.
        public let id: String
        /// The section title.
        public let title: String?
        /// The number of items in the section.
        public let count: Int

        /// Creates a section entry.
        public init(id: String, title: String?, count: Int) {
            self.id = id
            self.title = title
            self.count = count
        }
    }

    /// The list's name.
    public let list: String
    /// The view's name.
    public let view: String
    /// The source's change counter when the counts were read.
    public let version: Int64
    /// The sections, in view order.
    public let sections: [Section]

    /// Creates section info.
    public init(list: String, view: String, version: Int64, sections: [Section]) {
        self.list = list
        self.view = view
        self.version = version
        self.sections = sections
    }

    /// The number of items in the whole view.
    public var total: Int { sections.reduce(0) { $0 + $1.count } }

    /// The answer as JSON.
    public func json() -> [UInt8] {
        var writer = JSONWriter(capacity: 128 + sections.count * 64)
        writer.openAnswer(list: list, view: view)
        writer.raw(",\"version\":")
        writer.write(String(version))
        writer.raw(",\"sections\":[")
        for (index, section) in sections.enumerated() {
            writer.separator(index)
            writer.raw("{\"id\":")
            writer.write(section.id)
            writer.raw(",\"title\":")
            writer.write(section.title)
            writer.raw(",\"count\":")
            writer.write(section.count)
            writer.raw("}")
        }
        writer.raw("],\"total\":")
        writer.write(total)
        writer.raw("}")
        return writer.bytes
    }
}
