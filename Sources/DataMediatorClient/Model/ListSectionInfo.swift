/// A view's sections over the whole view, as `GET /lists/{list}/sections` answers them:
/// the section info of the contract (`numberOfSections`, `numberOfItemsInSection`) for every
/// section, not only the loaded ones, for a scroll indicator, an index bar or a count in a
/// header.
public struct ListSectionInfo: Sendable, Hashable, Decodable {
    /// One section of the view: its id, its title and how many items it holds.
    public struct Section: Sendable, Hashable, Decodable {
        /// The section's id, as pages name it.
        public let id: String
        /// Its title; nil when the view gives none.
        public let title: String?
        /// How many items it holds.
        public let count: Int
    }

    /// The sections in the view's order.
    public let sections: [Section]
    /// How many items the view holds in all.
    public let total: Int
    /// The version the sections were counted at (a replica that lags answers an older
    /// one); nil from a server that does not say.
    public let version: Int64?

    private enum CodingKeys: String, CodingKey {
        case sections, total, version
    }

    /// Reads the answer; `version` is a string of digits, as every version in API.md.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sections = try container.decode([Section].self, forKey: .sections)
        total = try container.decode(Int.self, forKey: .total)
        version = try container.decodeIfPresent(String.self, forKey: .version).flatMap { Int64($0) }
    }
}
