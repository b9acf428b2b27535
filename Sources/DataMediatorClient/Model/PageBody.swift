/// A page as the server sends it (API.md, "A page").
struct PageBody: Sendable, Decodable {
    struct Section: Sendable, Decodable {
        let id: String
        let kind: String
        let title: String?
        let continues: Bool
        let items: [ListItem]
    }

    let list: String
    let view: String
    /// The page size the server used (its `limit`), when it says.
    let limit: Int?
    let version: Int64
    let sections: [Section]
    let next: String?
    let prev: String?

    /// The data sections (the loading sections left out), each as a client section.
    var dataSections: [ListSection] {
        sections.filter { $0.kind == "items" }.map { ListSection(id: $0.id, title: $0.title, items: $0.items) }
    }

    private enum CodingKeys: String, CodingKey {
        case list, view, limit, version, sections, next, prev
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        list = try container.decode(String.self, forKey: .list)
        view = try container.decode(String.self, forKey: .view)
        // Only a hint (where a page around an item holds it): a server that sends no number
        // still has its pages read.
        limit = (try? container.decodeIfPresent(Int.self, forKey: .limit)).flatMap { $0 }
        guard let version = Int64(try container.decode(String.self, forKey: .version)) else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container, debugDescription: "not a version")
        }
        self.version = version
        sections = try container.decode([Section].self, forKey: .sections)
        next = try container.decodeIfPresent(String.self, forKey: .next)
        prev = try container.decodeIfPresent(String.self, forKey: .prev)
    }
}

/// One answer of `/changes` (API.md, "Changes").
struct ChangesBody: Sendable, Decodable {
    let version: String
    let changes: [ListChange]
    let next: String?
}
